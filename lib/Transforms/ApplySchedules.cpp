//===- ApplySchedules.cpp - Run each dispatch's transform script ----------===//
//
// Applies the named sequence every dispatch refers to, then drops the
// schedules module so later lowering sees only payload IR.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Transforms/Passes.h"
#include "vibegemm/Transforms/Schedules.h"

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMAPPLYSCHEDULESPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;
using namespace mlir::vibegemm;

namespace {
class ApplySchedulesPass
    : public WithVibeGemmTransformOps<
          vibegemm::impl::VibeGemmApplySchedulesPassBase<ApplySchedulesPass>> {
public:
  using WithVibeGemmTransformOps::WithVibeGemmTransformOps;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    ModuleOp schedules = getSchedulesModule(module, /*create=*/false);
    for (func::FuncOp dispatch : getDispatches(module))
      if (failed(applySchedule(dispatch, schedules, expensiveChecks)))
        return signalPassFailure();
    if (schedules && !keepSchedules)
      schedules.erase();
  }
};
} // namespace

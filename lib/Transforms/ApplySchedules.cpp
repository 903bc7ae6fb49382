//===- ApplySchedules.cpp - Run each dispatch's transform script ----------===//
//
// Applies the named sequence every dispatch refers to, then drops the
// schedules module so later lowering sees only payload IR.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/TransformOps/VibeGemmTransformOps.h"
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
    : public vibegemm::impl::VibeGemmApplySchedulesPassBase<
          ApplySchedulesPass> {
public:
  using Base::Base;

  // Scripts may use vibegemm's transform ops; a host that loaded only the
  // pass plugin learns them here.
  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    vibegemm::registerTransformDialectExtension(registry);
  }

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

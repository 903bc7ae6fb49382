//===- BuiltinSchedule.cpp - Attach built-in schedules to dispatches ------===//
//
// Asks the built-in scheduler for a script for every dispatch that has none
// and attaches it.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Analysis/DispatchInfo.h"
#include "vibegemm/Scheduler/BuiltinScheduler.h"
#include "vibegemm/Transforms/Passes.h"
#include "vibegemm/Transforms/Schedules.h"

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMBUILTINSCHEDULEPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;
using namespace mlir::vibegemm;

namespace {
class BuiltinSchedulePass : public WithVibeGemmTransformOps<
                                vibegemm::impl::VibeGemmBuiltinSchedulePassBase<
                                    BuiltinSchedulePass>> {
public:
  using WithVibeGemmTransformOps::WithVibeGemmTransformOps;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    const vibegemm::TargetInfo *info =
        vibegemm::lookupTargetOrEmitError(target, module.getLoc());
    if (!info)
      return signalPassFailure();
    SmallVector<func::FuncOp> dispatches = getDispatches(module);
    if (dispatches.empty()) {
      emitError(module.getLoc(), "no dispatches to schedule; run "
                                 "--vibegemm-form-dispatches first");
      return signalPassFailure();
    }
    for (func::FuncOp dispatch : dispatches) {
      if (dispatch->hasAttr(kScheduleAttr))
        continue;
      FailureOr<GemmProblem> problem = getGemmProblem(dispatch);
      if (failed(problem))
        return signalPassFailure();
      vibegemm::SimtTiling tiling =
          reference ? vibegemm::referenceTiling()
                    : vibegemm::chooseSimtTiling(*problem, *info);
      FailureOr<std::string> script = vibegemm::writeSimtSchedule(
          dispatch, *problem, tiling, dispatch.getSymName(), cpuCheck);
      if (failed(script) || failed(attachSchedule(dispatch, *script)))
        return signalPassFailure();
    }
  }
};
} // namespace

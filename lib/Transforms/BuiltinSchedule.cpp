//===- BuiltinSchedule.cpp - Attach built-in schedules to dispatches ------===//
//
// Asks the built-in scheduler for a script for every dispatch that has none
// and attaches it.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Analysis/DispatchInfo.h"
#include "vibegemm/Scheduler/BuiltinScheduler.h"
#include "vibegemm/Scheduler/GenericSchedule.h"
#include "vibegemm/Transforms/Passes.h"
#include "vibegemm/Transforms/Schedules.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMBUILTINSCHEDULEPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;
using namespace mlir::vibegemm;

namespace {

/// A softmax in f16/bf16 that a reference or CPU-check schedule would
/// decompose in its own element type, where a row sum saturates.
linalg::SoftmaxOp findHalfSoftmax(func::FuncOp dispatch) {
  linalg::SoftmaxOp found;
  dispatch.walk([&](linalg::SoftmaxOp op) {
    Type element = getElementTypeOrSelf(op.getInput().getType());
    if (element.isF16() || element.isBF16())
      found = op;
  });
  return found;
}

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
      // Every script applied to the dispatch, ours or not, builds kernels
      // within this target's limits.
      dispatch->setAttr(kTargetAttr,
                        StringAttr::get(&getContext(), info->name));
      if (dispatch->hasAttr(kScheduleAttr))
        continue;
      if (isGenericDispatch(dispatch)) {
        FailureOr<std::string> script = vibegemm::writeGenericSchedule(
            dispatch, dispatch.getSymName(), cpuCheck);
        if (failed(script) || failed(attachSchedule(dispatch, *script)))
          return signalPassFailure();
        continue;
      }
      // The CPU check decomposes the softmax too, so it needs it widened
      // as well.
      if (reference || cpuCheck) {
        if (linalg::SoftmaxOp half = findHalfSoftmax(dispatch)) {
          half.emitError("a reference or CPU-check schedule would sum this "
                         "softmax's rows in its own element type; run "
                         "--vibegemm-widen-half-softmax first");
          return signalPassFailure();
        }
      }
      bool widened = dispatch->hasAttr(kWidenedSoftmaxAttr);
      FailureOr<GemmProblem> problem = getGemmProblem(dispatch);
      if (failed(problem))
        return signalPassFailure();
      // The rounding after the widened softmax is an epilogue the GEMM's
      // tiles cannot fuse (the softmax lies between): one kernel per op.
      if (widened)
        problem->fuseEpilogues = false;
      vibegemm::SimtTiling tiling =
          reference ? vibegemm::referenceTiling()
                    : vibegemm::chooseSimtTiling(*problem, *info);
      OwningOpRef<ModuleOp> scratch = ModuleOp::create(dispatch.getLoc());
      OpBuilder builder = OpBuilder::atBlockEnd(scratch->getBody());
      FailureOr<transform::NamedSequenceOp> schedule =
          vibegemm::buildSimtSchedule(builder, dispatch, *problem, tiling,
                                      dispatch.getSymName(), cpuCheck);
      if (failed(schedule))
        return signalPassFailure();
      attachSchedule(dispatch, *schedule);
    }
  }
};
} // namespace

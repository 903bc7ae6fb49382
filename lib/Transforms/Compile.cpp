//===- Compile.cpp - Tuned schedules to PTX, deterministically ------------===//
//
// The plain-pass route for flows that tuned once: no LLM, no GPU, no
// artifacts, the same output for the same input and schedules.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Transforms/Passes.h"
#include "vibegemm/Transforms/Pipelines.h"
#include "vibegemm/Transforms/Schedules.h"

#include "mlir/Pass/PassManager.h"

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMCOMPILEPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;
using namespace mlir::vibegemm;

namespace {
class CompilePass : public WithVibeGemmTransformOps<
                        vibegemm::impl::VibeGemmCompilePassBase<CompilePass>> {
public:
  using WithVibeGemmTransformOps::WithVibeGemmTransformOps;

  void runOnOperation() override {
    OpPassManager pm(ModuleOp::getOperationName());
    VibeGemmFormDispatchesPassOptions formOptions;
    formOptions.f32Precision = f32Precision;
    formOptions.gemmOnly = gemmOnly;
    pm.addPass(createVibeGemmPreparePass());
    pm.addPass(createVibeGemmFormDispatchesPass(formOptions));
    VibeGemmBucketDispatchesPassOptions bucketOptions;
    bucketOptions.bucketSizes.assign(bucketSizes.begin(), bucketSizes.end());
    pm.addPass(createVibeGemmBucketDispatchesPass(bucketOptions));
    if (failed(runPipeline(pm, getOperation())))
      return signalPassFailure();
    // Nothing for the GPU (gemm-only on a module without GEMMs): the
    // module stays as the host flow gave it, prepared.
    if (vibegemm::getDispatches(getOperation()).empty())
      return;
    OpPassManager back(ModuleOp::getOperationName());
    back.addPass(createVibeGemmApplyTunedSchedulesPass({db, specs, target}));
    back.addPass(createVibeGemmBuiltinSchedulePass({target}));
    back.addPass(createVibeGemmApplySchedulesPass());
    buildLowerToPTXPipeline(back, target, optLevel, programmaticLaunch);
    if (failed(runPipeline(back, getOperation())))
      signalPassFailure();
  }
};
} // namespace

//===- Pipelines.h - vibegemm's lowering pipelines --------------*- C++ -*-===//
//
// Pipelines built in C++ from create*Pass() calls, as upstream's
// gpu-lower-to-nvvm-pipeline is, and registered under their flag names so
// textual pipelines and vibegemm-opt can name them too.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_TRANSFORMS_PIPELINES_H
#define VIBEGEMM_TRANSFORMS_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::vibegemm {

struct LowerToPTXOptions : public PassPipelineOptions<LowerToPTXOptions> {
  PassOptions::Option<std::string> target{
      *this, "target",
      llvm::cl::desc("GPU architecture to emit PTX for (sm_80, sm_90, "
                     "sm_90a)"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<unsigned> optLevel{
      *this, "opt-level",
      llvm::cl::desc("LLVM optimisation level for device code"),
      llvm::cl::init(3)};
  PassOptions::Option<bool> programmaticLaunch{
      *this, "programmatic-launch",
      llvm::cl::desc("Let each kernel launch start while the one before it "
                     "ends (vibegemm-programmatic-launch; sm_90 and later)"),
      llvm::cl::init(false)};
};

/// The module-wide bufferization that follows the scripts: function
/// boundaries with identity layouts, dispatch results as out-parameters.
void addModuleBufferizationPasses(OpPassManager &pm);

/// `vibegemm-lower-to-ptx`: scheduled IR (dispatches holding gpu.launch ops)
/// to host code with gpu.launch_func and one gpu.binary of PTX per dispatch.
void buildLowerToPTXPipeline(OpPassManager &pm, StringRef target,
                             unsigned optLevel = 3,
                             bool programmaticLaunch = false);
void buildLowerToPTXPipeline(OpPassManager &pm,
                             const LowerToPTXOptions &options);

/// Registers the pipelines above under their flag names.
void registerPipelines();

} // namespace mlir::vibegemm

#endif // VIBEGEMM_TRANSFORMS_PIPELINES_H

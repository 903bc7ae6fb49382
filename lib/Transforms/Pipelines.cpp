//===- Pipelines.cpp - vibegemm's lowering pipelines
//-----------------------===//
//
// vibegemm-lower-to-ptx as a sequence of named passes: each vibegemm step
// has its own flag and test, and the upstream passes come with the options
// the kernels need.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Transforms/Pipelines.h"
#include "vibegemm/Target/TargetInfo.h"
#include "vibegemm/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void vibegemm::addModuleBufferizationPasses(OpPassManager &pm) {
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  // A bucket dispatch's result is sized by its M argument: its caller
  // allocates it.
  outParams.hoistDynamicAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// Device code to NVVM. Vector transfers are lowered only here, after the
/// module-wide bufferization folded the boundary casts into static layouts
/// (earlier gives scalar loads). nvgpu ops (ldmatrix, cp.async, TMA,
/// mbarriers, wgmma) become NVVM first, while loops are still scf: the
/// warpgroup accumulators they carry are converted with them. Vector ops go
/// through convert-gpu-to-nvvm, which maps the workgroup address space of
/// shared-memory stores; what remains after it is lowered last.
static void addDeviceLoweringPasses(OpPassManager &pm) {
  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  device.addPass(createConvertLinalgToLoopsPass());
  device.addPass(vibegemm::createVibeGemmWidenFloat8Pass());
  device.addPass(createConvertNVGPUToNVVMPass());
  VectorTransferToSCFOptions toScf;
  toScf.enableFullUnroll().setTargetRank(1);
  device.addPass(createConvertVectorToSCFPass(toScf));
  device.addPass(createLowerAffinePass());
  device.addPass(createSCFToControlFlowPass());
  device.addPass(createCanonicalizerPass());
  device.addPass(memref::createExpandStridedMetadataPass());
  device.addPass(createLowerAffinePass());
  ConvertGpuOpsToNVVMOpsOptions toNvvm;
  // One device pointer per buffer: what a launch plan passes.
  toNvvm.useBarePtrCallConv = true;
  device.addPass(createConvertGpuOpsToNVVMOps(toNvvm));
  device.addPass(createConvertVectorToLLVMPass());
  device.addPass(createArithToLLVMConversionPass());
  device.addPass(createConvertNVVMToLLVMPass());
  device.addPass(createCanonicalizerPass());
  device.addPass(createCSEPass());
  device.addPass(createReconcileUnrealizedCastsPass());
}

void vibegemm::buildLowerToPTXPipeline(OpPassManager &pm, StringRef target,
                                       unsigned optLevel,
                                       bool programmaticLaunch) {
  pm.addPass(createVibeGemmPrepareLoweringPass({target.str()}));
  addModuleBufferizationPasses(pm);
  pm.addPass(createVibeGemmPrivatizeKernelAllocationsPass());
  pm.addPass(createVibeGemmOutlineKernelsPass());
  pm.addPass(createVibeGemmForwardCopiesIntoOutParamsPass());
  pm.addPass(createVibeGemmHoistKernelAccumulatorsPass());
  pm.addPass(createVibeGemmPassTensorMapsAsPointersPass());
  pm.addPass(createVibeGemmPassDynamicSizesAsScalarsPass());
  pm.addPass(createVibeGemmMergeKernelsPerDispatchPass());
  // An unknown target never gets here: the first pass refuses it.
  const TargetInfo *info = lookupTarget(target);
  // griddepcontrol came with sm_90, as clusters did.
  if (programmaticLaunch && info && info->hasClusters)
    pm.addPass(createVibeGemmProgrammaticLaunchPass());
  GpuNVVMAttachTargetOptions attach;
  attach.chip = info ? info->chip.str() : target.str();
  attach.features = info ? info->features.str() : "";
  attach.optLevel = optLevel;
  pm.addPass(createGpuNVVMAttachTarget(attach));
  addDeviceLoweringPasses(pm);
  pm.addPass(createVibeGemmExternDynamicSharedMemoryPass());
  GpuModuleToBinaryPassOptions serialise;
  serialise.compilationTarget = "isa"; // PTX
  pm.addPass(createGpuModuleToBinaryPass(serialise));
  pm.addPass(createSymbolDCEPass());
  pm.addPass(createVibeGemmFinalizeBinariesPass());
}

void vibegemm::buildLowerToPTXPipeline(OpPassManager &pm,
                                       const LowerToPTXOptions &options) {
  buildLowerToPTXPipeline(pm, options.target, options.optLevel,
                          options.programmaticLaunch);
}

void vibegemm::registerPipelines() {
  PassPipelineRegistration<LowerToPTXOptions>(
      "vibegemm-lower-to-ptx",
      "Bufferize, outline kernels, lower them to NVVM and serialise PTX: "
      "scheduled IR to host code with gpu.launch_func and one gpu.binary of "
      "PTX per dispatch (kernels use the bare-pointer calling convention)",
      [](OpPassManager &pm, const LowerToPTXOptions &options) {
        buildLowerToPTXPipeline(pm, options);
      });
}

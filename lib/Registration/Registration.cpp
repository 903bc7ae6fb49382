//===- Registration.cpp - Everything vibegemm registers -------------------===//
//
// Dialects, interface models, transform extensions, translations and passes
// for vibegemm-opt and the plugin.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Registration/Registration.h"
#include "vibegemm/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Affine/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Transform/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Transforms/Passes.h"

void mlir::vibegemm::registerDialects(mlir::DialectRegistry &registry) {
  // TODO(slim): list only the dialects and models vibegemm uses; the
  // upstream lists are taken whole for now because the GPU lowering needs
  // many interface models spread over them.
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
}

void mlir::vibegemm::registerPasses() {
  mlir::vibegemm::registerVibeGemmPasses();
  mlir::registerTransformsPasses();
  mlir::registerConversionPasses();
  mlir::affine::registerAffinePasses();
  mlir::bufferization::registerBufferizationPasses();
  mlir::registerGPUPasses();
  mlir::gpu::registerGPUToNVVMPipeline();
  mlir::registerLinalgPasses();
  mlir::memref::registerMemRefPasses();
  mlir::registerSCFPasses();
  mlir::transform::registerTransformPasses();
  mlir::vector::registerVectorPasses();
}

//===- LowerToCPU.cpp - Lower CPU-check schedules for mlir-runner ---------===//
//
// The testing path: scheduled dispatches whose foralls became loops are
// bufferized and lowered to the LLVM dialect, so mlir-runner can check the
// schedule's arithmetic against a reference on a machine without a GPU.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Transforms/Passes.h"
#include "vibegemm/Transforms/Schedules.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMLOWERTOCPUPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;
using namespace mlir::vibegemm;

namespace {

/// After the module-wide bufferization: everything to the LLVM dialect.
/// Unused private symbols (torch-mlir's ml_program globals) are dropped;
/// math functions LLVM has no intrinsic for (erf) call libm.
constexpr llvm::StringLiteral kCpuLoweringPipeline =
    "symbol-dce,convert-linalg-to-loops,vibegemm-widen-float8,"
    "convert-vector-to-scf{full-unroll=true},lower-affine,convert-scf-to-cf,"
    "expand-strided-metadata,lower-affine,convert-vector-to-llvm,"
    "finalize-memref-to-llvm,convert-math-to-llvm,convert-math-to-libm,"
    "convert-to-llvm,"
    "reconcile-unrealized-casts";

class LowerToCPUPass
    : public vibegemm::impl::VibeGemmLowerToCPUPassBase<LowerToCPUPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (func::FuncOp dispatch : getDispatches(module))
      markScriptBufferizedBoundary(dispatch);
    OpPassManager pm(ModuleOp::getOperationName());
    std::string pipeline =
        (kModuleBufferizationPipeline + "," + kCpuLoweringPipeline).str();
    if (failed(parsePassPipeline(pipeline, pm)) ||
        failed(runPipeline(pm, module)))
      signalPassFailure();
  }
};

} // namespace

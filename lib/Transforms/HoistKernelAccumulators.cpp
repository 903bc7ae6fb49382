//===- HoistKernelAccumulators.cpp - Hoist accumulators in kernels -------===//
//
// Accumulator transfers leave K loops once every kernel sees its own
// output argument, which is only true after outlining.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMHOISTKERNELACCUMULATORSPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;

namespace {

class HoistKernelAccumulatorsPass
    : public vibegemm::impl::VibeGemmHoistKernelAccumulatorsPassBase<
          HoistKernelAccumulatorsPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    module.walk([](gpu::GPUFuncOp kernel) {
      linalg::hoistRedundantVectorTransfers(kernel);
    });
  }
};
} // namespace

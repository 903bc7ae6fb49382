//===- ProgrammaticLaunch.cpp - Overlap each launch with the one before ---===//
//
// vibegemm-programmatic-launch: kernels wait for their predecessor grid at
// entry and then release their dependents; launches are marked so the plan
// asks the runtime for programmatic stream serialization.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMPROGRAMMATICLAUNCHPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;

namespace {

struct ProgrammaticLaunchPass
    : vibegemm::impl::VibeGemmProgrammaticLaunchPassBase<
          ProgrammaticLaunchPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::SmallPtrSet<Operation *, 8> waiting;
    WalkResult result = module.walk([&](gpu::LaunchFuncOp launch) {
      auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernel());
      if (!kernel || kernel.isExternal()) {
        launch.emitOpError("launches a kernel with no body here: the pass runs "
                           "before kernels are serialized");
        return WalkResult::interrupt();
      }
      launch->setAttr("vibegemm.programmatic", UnitAttr::get(&getContext()));
      if (!waiting.insert(kernel).second)
        return WalkResult::advance();
      OpBuilder b = OpBuilder::atBlockBegin(&kernel.getBody().front());
      b.create<NVVM::GriddepcontrolOp>(kernel.getLoc(),
                                       NVVM::GridDepActionKind::wait);
      b.create<NVVM::GriddepcontrolOp>(
          kernel.getLoc(), NVVM::GridDepActionKind::launch_dependents);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

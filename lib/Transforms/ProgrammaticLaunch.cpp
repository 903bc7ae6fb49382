//===- ProgrammaticLaunch.cpp - Overlap each launch with the one before ---===//
//
// vibegemm-programmatic-launch: kernels wait for their predecessor grid at
// entry and then release their dependents; launches are marked so the plan
// asks the runtime for programmatic stream serialization.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
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
      // The wait as inline PTX with a memory clobber: LLVM's intrinsic
      // touches no memory, so a load it may treat as invariant could be
      // hoisted above it; the clobber keeps every access after it.
      OpBuilder b = OpBuilder::atBlockBegin(&kernel.getBody().front());
      b.create<LLVM::InlineAsmOp>(
          kernel.getLoc(), TypeRange{}, ValueRange{}, "griddepcontrol.wait;",
          "~{memory}", /*has_side_effects=*/true, /*is_align_stack=*/false,
          LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr{},
          ArrayAttr{});
      b.create<NVVM::GriddepcontrolOp>(
          kernel.getLoc(), NVVM::GridDepActionKind::launch_dependents);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

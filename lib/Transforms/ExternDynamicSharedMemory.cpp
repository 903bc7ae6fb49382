//===- ExternDynamicSharedMemory.cpp - Dynamic shared memory as extern ---===//
//
// ptxas lays out the dynamic shared region after every static .shared
// variable only when it is declared .extern, as CUDA declares it.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMEXTERNDYNAMICSHAREDMEMORYPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;

namespace {

class ExternDynamicSharedMemoryPass
    : public vibegemm::impl::VibeGemmExternDynamicSharedMemoryPassBase<
          ExternDynamicSharedMemoryPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    module.walk([](LLVM::GlobalOp global) {
      auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
      if (global.getAddrSpace() == NVVM::NVVMMemorySpace::Shared && array &&
          array.getNumElements() == 0 && !global.getValueOrNull())
        global.setLinkage(LLVM::Linkage::External);
    });
  }
};
} // namespace

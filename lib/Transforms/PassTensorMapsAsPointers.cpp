//===- PassTensorMapsAsPointers.cpp - TMA descriptors as pointers --------===//
//
// Kernels receive TMA descriptors as pointers to tensor maps in global
// memory, a type NVVM lowering can convert.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMPASSTENSORMAPSASPOINTERSPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;

namespace {

class PassTensorMapsAsPointersPass
    : public vibegemm::impl::VibeGemmPassTensorMapsAsPointersPassBase<
          PassTensorMapsAsPointersPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    module.walk([](gpu::GPUFuncOp kernel) {
      if (kernel.isExternal())
        return;
      auto ptrType = LLVM::LLVMPointerType::get(kernel.getContext());
      Block &entry = kernel.getBody().front();
      OpBuilder builder = OpBuilder::atBlockBegin(&entry);
      SmallVector<Type> argTypes(kernel.getArgumentTypes());
      bool changed = false;
      for (BlockArgument arg : entry.getArguments()) {
        if (!isa<nvgpu::TensorMapDescriptorType>(arg.getType()))
          continue;
        Type descriptorType = arg.getType();
        arg.setType(ptrType);
        auto cast = UnrealizedConversionCastOp::create(
            builder, arg.getLoc(), descriptorType, ValueRange{arg});
        arg.replaceAllUsesExcept(cast.getResult(0), cast);
        argTypes[arg.getArgNumber()] = ptrType;
        changed = true;
      }
      if (changed)
        kernel.setFunctionType(FunctionType::get(kernel.getContext(), argTypes,
                                                 kernel.getResultTypes()));
    });
    // The launches pass the same pointer; the plan reads the descriptor's
    // source through the cast.
    module.walk([](gpu::LaunchFuncOp launch) {
      OpBuilder builder(launch);
      auto ptrType = LLVM::LLVMPointerType::get(launch.getContext());
      for (OpOperand &operand : launch->getOpOperands())
        if (isa<nvgpu::TensorMapDescriptorType>(operand.get().getType()))
          operand.set(UnrealizedConversionCastOp::create(
                          builder, launch.getLoc(), ptrType, operand.get())
                          .getResult(0));
    });
  }
};
} // namespace

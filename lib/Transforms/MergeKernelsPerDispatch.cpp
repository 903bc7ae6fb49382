//===- MergeKernelsPerDispatch.cpp - One gpu.module per dispatch ---------===//
//
// A dispatch ships as one PTX file: its kernels move into one gpu.module
// named <dispatch>_kernels.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMMERGEKERNELSPERDISPATCHPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;

namespace {

class MergeKernelsPerDispatchPass
    : public vibegemm::impl::VibeGemmMergeKernelsPerDispatchPassBase<
          MergeKernelsPerDispatchPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (auto func : module.getOps<func::FuncOp>()) {
      SmallVector<gpu::LaunchFuncOp> launches;
      func.walk([&](gpu::LaunchFuncOp op) { launches.push_back(op); });
      if (launches.empty())
        continue;
      OpBuilder builder(func);
      builder.setInsertionPointAfter(func);
      std::string name = (func.getSymName() + "_kernels").str();
      auto merged = gpu::GPUModuleOp::create(builder, func.getLoc(), name);
      symbols.insert(merged);
      for (auto [i, launch] : llvm::enumerate(launches)) {
        auto oldModule =
            symbols.lookup<gpu::GPUModuleOp>(launch.getKernelModuleName());
        if (!oldModule) {
          emitError(launch.getLoc(), "kernel module not found");
          return signalPassFailure();
        }
        auto kernel =
            oldModule.lookupSymbol<gpu::GPUFuncOp>(launch.getKernelName());
        std::string kernelName =
            (func.getSymName() + "_kernel_" + Twine(i)).str();
        kernel.setName(kernelName);
        // Shared-memory globals and other symbols the kernel uses come along;
        // a clashing name is renamed in the kernel first.
        SymbolTable mergedSymbols(merged);
        for (Operation &op : llvm::make_early_inc_range(
                 oldModule.getBody()->without_terminator())) {
          auto name =
              op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
          if (name && &op != kernel.getOperation() &&
              mergedSymbols.lookup(name)) {
            auto fresh = builder.getStringAttr(
                (name.getValue() + "_k" + Twine(i)).str());
            if (failed(
                    SymbolTable::replaceAllSymbolUses(name, fresh, kernel))) {
              emitError(kernel.getLoc(), "cannot rename symbol ") << name;
              return signalPassFailure();
            }
            SymbolTable::setSymbolName(&op, fresh);
          }
          op.moveBefore(merged.getBody(), std::prev(merged.getBody()->end()));
        }
        launch.setKernelAttr(SymbolRefAttr::get(
            builder.getStringAttr(name),
            {FlatSymbolRefAttr::get(builder.getContext(), kernelName)}));
        if (oldModule.getBody()->getOperations().size() <= 1)
          oldModule.erase();
      }
    }
  }
};
} // namespace

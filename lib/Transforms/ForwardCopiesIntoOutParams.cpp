//===- ForwardCopiesIntoOutParams.cpp - Results straight into out-params -===//
//
// After buffer-results-to-out-params, a result computed into a local
// allocation reaches its out-parameter through a copy; where nothing else
// touches the out-parameter, the allocation becomes the out-parameter.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMFORWARDCOPIESINTOOUTPARAMSPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;

namespace {

class ForwardCopiesIntoOutParamsPass
    : public vibegemm::impl::VibeGemmForwardCopiesIntoOutParamsPassBase<
          ForwardCopiesIntoOutParamsPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : module.getOps<func::FuncOp>()) {
      auto numInputs = func->getAttrOfType<IntegerAttr>("vibegemm.num_inputs");
      if (!numInputs || func.isExternal())
        continue;
      SmallVector<memref::CopyOp> copies;
      func.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
      for (memref::CopyOp copy : copies) {
        auto out = dyn_cast<BlockArgument>(copy.getTarget());
        // A result reshaped in host code (an epilogue's [B*S, N] expanded
        // to [B, S, N]): the allocation becomes the inverse reshape of the
        // out-param.
        Operation *reshape = copy.getSource().getDefiningOp();
        if (out && reshape && out.hasOneUse() &&
            isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(reshape) &&
            reshape->hasOneUse() &&
            static_cast<int64_t>(out.getArgNumber()) >= numInputs.getInt() &&
            cast<MemRefType>(out.getType()).getLayout().isIdentity()) {
          auto alloc = reshape->getOperand(0).getDefiningOp<memref::AllocOp>();
          if (alloc && alloc->getBlock() == copy->getBlock()) {
            OpBuilder builder(alloc);
            Value view;
            if (auto expand = dyn_cast<memref::ExpandShapeOp>(reshape))
              view = memref::CollapseShapeOp::create(
                  builder, alloc.getLoc(), out,
                  expand.getReassociationIndices());
            else
              view = memref::ExpandShapeOp::create(
                  builder, alloc.getLoc(), alloc.getType().getShape(), out,
                  cast<memref::CollapseShapeOp>(reshape)
                      .getReassociationIndices());
            if (view.getType() == alloc.getType()) {
              copy.erase();
              reshape->erase();
              alloc.getResult().replaceAllUsesWith(view);
              alloc.erase();
              continue;
            }
            view.getDefiningOp()->erase();
          }
        }
        auto alloc = copy.getSource().getDefiningOp<memref::AllocOp>();
        if (!out || out.getOwner() != &func.getBody().front() ||
            static_cast<int64_t>(out.getArgNumber()) < numInputs.getInt() ||
            !out.hasOneUse() || !alloc ||
            alloc->getBlock() != copy->getBlock() ||
            alloc.getType() != out.getType())
          continue;
        copy.erase();
        alloc.getResult().replaceAllUsesWith(out);
        alloc.erase();
      }
    }
  }
};
} // namespace

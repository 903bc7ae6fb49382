//===- ForwardCopiesIntoOutParams.cpp - Results straight into out-params -===//
//
// After buffer-results-to-out-params, a result computed into a local
// allocation reaches its out-parameter through a copy; where nothing else
// touches the out-parameter, the allocation becomes the out-parameter. A
// host choice among bucket kernels that feeds the next dispatch gets one
// allocation for all its branches.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dominance.h"

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMFORWARDCOPIESINTOOUTPARAMSPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;

namespace {

/// Whether every buffer `source` can be comes from an allocation in the
/// block that computes it: an allocation (through a cast), or an `scf.if`
/// (the host's choice among bucket kernels) each of whose branches yields
/// one. `apply` makes those allocations views of `out`.
bool redirectAllocations(Value source, Value out, bool apply) {
  // Checked before `apply` erases the copy, the last use of the result.
  if (!apply && !source.hasOneUse() && !source.getDefiningOp<memref::AllocOp>())
    return false;
  if (auto cast = source.getDefiningOp<memref::CastOp>())
    return redirectAllocations(cast.getSource(), out, apply);
  if (auto alloc = source.getDefiningOp<memref::AllocOp>()) {
    auto outType = cast<MemRefType>(out.getType());
    if (!memref::CastOp::areCastCompatible(outType, alloc.getType()) ||
        !alloc.getType().getLayout().isIdentity())
      return false;
    if (apply) {
      OpBuilder builder(alloc);
      Value view = out;
      if (outType != alloc.getType())
        view = memref::CastOp::create(builder, alloc.getLoc(), alloc.getType(),
                                      out);
      alloc.getResult().replaceAllUsesWith(view);
      alloc.erase();
    }
    return true;
  }
  auto ifOp = source.getDefiningOp<scf::IfOp>();
  if (!ifOp || ifOp.getElseRegion().empty())
    return false;
  unsigned index = cast<OpResult>(source).getResultNumber();
  return llvm::all_of(
      SmallVector<Value>{ifOp.thenYield().getOperand(index),
                         ifOp.elseYield().getOperand(index)},
      [&](Value yielded) { return redirectAllocations(yielded, out, apply); });
}

/// The dynamic sizes of an allocation that a branch of `choice` yields
/// (through casts and nested choices) with `type`, where they are defined
/// before `choice`.
std::optional<SmallVector<Value>> sizesBefore(Value yielded, MemRefType type,
                                              scf::IfOp choice,
                                              DominanceInfo &dominance) {
  if (auto cast = yielded.getDefiningOp<memref::CastOp>())
    return sizesBefore(cast.getSource(), type, choice, dominance);
  if (auto alloc = yielded.getDefiningOp<memref::AllocOp>()) {
    if (alloc.getType() != type ||
        !llvm::all_of(alloc.getDynamicSizes(), [&](Value size) {
          return dominance.properlyDominates(size, choice);
        }))
      return std::nullopt;
    return SmallVector<Value>(alloc.getDynamicSizes());
  }
  auto inner = yielded.getDefiningOp<scf::IfOp>();
  if (!inner || inner.getElseRegion().empty())
    return std::nullopt;
  unsigned index = cast<OpResult>(yielded).getResultNumber();
  for (Value value : {inner.thenYield().getOperand(index),
                      inner.elseYield().getOperand(index)})
    if (auto sizes = sizesBefore(value, type, choice, dominance))
      return sizes;
  return std::nullopt;
}

/// A host choice among bucket kernels whose result feeds more host code
/// (the next dispatch) is one buffer: an allocation before the choice, of
/// which every branch's allocation becomes a view.
void allocateBeforeChoice(scf::IfOp choice, DominanceInfo &dominance) {
  if (choice.getElseRegion().empty())
    return;
  for (OpResult result : choice.getResults()) {
    auto type = dyn_cast<MemRefType>(result.getType());
    if (!type || !type.getLayout().isIdentity())
      continue;
    unsigned index = result.getResultNumber();
    SmallVector<Value> yielded = {choice.thenYield().getOperand(index),
                                  choice.elseYield().getOperand(index)};
    std::optional<SmallVector<Value>> sizes;
    for (Value value : yielded)
      if (!sizes)
        sizes = sizesBefore(value, type, choice, dominance);
    if (!sizes)
      continue;
    OpBuilder builder(choice);
    auto alloc =
        memref::AllocOp::create(builder, choice.getLoc(), type, *sizes);
    if (!llvm::all_of(yielded, [&](Value value) {
          return redirectAllocations(value, alloc, /*apply=*/false);
        })) {
      alloc.erase();
      continue;
    }
    for (Value value : yielded)
      redirectAllocations(value, alloc, /*apply=*/true);
  }
}

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
          // The allocation, or the host's choice among bucket kernels over
          // a batch folded into M ([B * S, N] from each bucket).
          Value source = reshape->getOperand(0);
          Operation *producer = source.getDefiningOp();
          if (isa_and_nonnull<memref::AllocOp, scf::IfOp>(producer) &&
              producer->getBlock() == copy->getBlock()) {
            OpBuilder builder(producer);
            auto sourceType = cast<MemRefType>(source.getType());
            Value view;
            if (auto expand = dyn_cast<memref::ExpandShapeOp>(reshape))
              view = memref::CollapseShapeOp::create(
                  builder, producer->getLoc(), out,
                  expand.getReassociationIndices());
            else
              view = memref::ExpandShapeOp::create(
                  builder, producer->getLoc(), sourceType.getShape(), out,
                  cast<memref::CollapseShapeOp>(reshape)
                      .getReassociationIndices());
            if (view.getType() == sourceType &&
                redirectAllocations(source, view, /*apply=*/false)) {
              copy.erase();
              reshape->erase();
              redirectAllocations(source, view, /*apply=*/true);
              continue;
            }
            view.getDefiningOp()->erase();
          }
        }
        // The host's choice among bucket kernels: every branch's result
        // allocation becomes the out-parameter.
        if (out && out.getOwner() == &func.getBody().front() &&
            static_cast<int64_t>(out.getArgNumber()) >= numInputs.getInt() &&
            out.hasOneUse() && copy.getSource().getDefiningOp<scf::IfOp>() &&
            copy.getSource().hasOneUse() &&
            redirectAllocations(copy.getSource(), out, /*apply=*/false)) {
          Value source = copy.getSource();
          copy.erase();
          redirectAllocations(source, out, /*apply=*/true);
          continue;
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
      // Choices whose result stayed in the host; the outermost of a chain.
      DominanceInfo dominance(func);
      SmallVector<scf::IfOp> choices;
      func.walk([&](scf::IfOp choice) {
        if (!choice->getParentOfType<scf::IfOp>())
          choices.push_back(choice);
      });
      for (scf::IfOp choice : choices)
        allocateBeforeChoice(choice, dominance);
    }
  }
};
} // namespace

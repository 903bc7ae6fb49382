//===- WidenHalfSoftmax.cpp - f16/bf16 softmax computed in f32 ------------===//
//
// Reference and CPU-check schedules decompose a softmax into generics in
// its own element type; this pass first makes an f16/bf16 softmax an f32
// one between an extension and a rounding, as PyTorch and vibegemm's
// kernels compute it.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Analysis/DispatchInfo.h"
#include "vibegemm/Transforms/Passes.h"
#include "vibegemm/Transforms/Schedules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMWIDENHALFSOFTMAXPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;
using namespace mlir::vibegemm;

namespace {

/// Reference and CPU-check schedules decompose a softmax into generics in
/// its own element type, so an f16/bf16 row sum would saturate (adding 1 to
/// 256 is lost in bf16). They compute it as PyTorch and vibegemm's kernels
/// do: widened to f32, the result rounded once. The extension and the
/// rounding become two more elementwise ops. Returns whether it widened
/// any.
bool widenHalfSoftmax(func::FuncOp dispatch) {
  bool widened = false;
  SmallVector<linalg::SoftmaxOp> softmaxes;
  dispatch.walk([&](linalg::SoftmaxOp op) { softmaxes.push_back(op); });
  int64_t nextEpilogue = 0;
  dispatch.walk([&](Operation *op) {
    if (auto role = op->getAttrOfType<StringAttr>(kRoleAttr);
        role && role.getValue().starts_with("epilogue"))
      ++nextEpilogue;
  });
  for (linalg::SoftmaxOp softmax : softmaxes) {
    auto type = cast<RankedTensorType>(softmax.getInput().getType());
    Type element = type.getElementType();
    if (!element.isF16() && !element.isBF16())
      continue;
    OpBuilder b(softmax);
    Location loc = softmax.getLoc();
    auto wideType = type.clone(b.getF32Type());
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(b, loc, softmax.getInput());
    auto convert = [&](Value in, Value init, bool widen) {
      int64_t rank = type.getRank();
      AffineMap id = b.getMultiDimIdentityMap(rank);
      SmallVector<utils::IteratorType> iterators(rank,
                                                 utils::IteratorType::parallel);
      auto op = linalg::GenericOp::create(
          b, loc, init.getType(), ValueRange{in}, ValueRange{init},
          ArrayRef<AffineMap>{id, id}, iterators,
          [&](OpBuilder &nb, Location nl, ValueRange args) {
            Value v =
                widen ? arith::ExtFOp::create(nb, nl, nb.getF32Type(), args[0])
                            .getResult()
                      : arith::TruncFOp::create(nb, nl, element, args[0])
                            .getResult();
            linalg::YieldOp::create(nb, nl, v);
          });
      op->setAttr(kRoleAttr,
                  b.getStringAttr("epilogue" + Twine(nextEpilogue++)));
      return op.getResult(0);
    };
    Value wideInit = tensor::EmptyOp::create(b, loc, sizes, b.getF32Type());
    Value wide = convert(softmax.getInput(), wideInit, /*widen=*/true);
    Value wideOut = tensor::EmptyOp::create(b, loc, sizes, b.getF32Type());
    auto wideSoftmax = linalg::SoftmaxOp::create(
        b, loc, TypeRange{wideType}, wide, wideOut, softmax.getDimension());
    if (Attribute role = softmax->getAttr(kRoleAttr))
      wideSoftmax->setAttr(kRoleAttr, role);
    b.setInsertionPointAfter(wideSoftmax);
    Value narrow = convert(wideSoftmax.getResult()[0], softmax.getOutput(),
                           /*widen=*/false);
    softmax.getResult()[0].replaceAllUsesWith(narrow);
    softmax.erase();
    widened = true;
  }
  return widened;
}

class WidenHalfSoftmaxPass
    : public vibegemm::impl::VibeGemmWidenHalfSoftmaxPassBase<
          WidenHalfSoftmaxPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    for (func::FuncOp dispatch : getDispatches(getOperation()))
      if (widenHalfSoftmax(dispatch))
        dispatch->setAttr(kWidenedSoftmaxAttr, UnitAttr::get(&getContext()));
  }
};

} // namespace

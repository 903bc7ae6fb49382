//===- WidenFloat8.cpp - FP8 to wider floats with integer arithmetic ------===//
//
// Neither arith-to-llvm nor gpu-to-nvvm lowers `arith.extf` from an FP8
// type (LLVM has none; the operands become i8). The bits are rearranged
// into an f16 with the same value, or a fixed power of two from it, which
// every target widens exactly.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Analysis/DispatchInfo.h"
#include "vibegemm/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMWIDENFLOAT8PASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;
using namespace mlir::vibegemm;

namespace {

/// `type` (a scalar or a vector) with `element` in place of its elements.
Type withElement(Type type, Type element) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.clone(element);
  return element;
}

struct WidenFloat8ExtF : public OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ExtFOp op,
                                PatternRewriter &rewriter) const override {
    Type from = op.getIn().getType();
    Type source = getElementTypeOrSelf(from);
    if (!isFloat8(source))
      return failure();
    Location loc = op.getLoc();
    Type i8 = withElement(from, rewriter.getI8Type());
    Type i16 = withElement(from, rewriter.getI16Type());
    Type f16 = withElement(from, rewriter.getF16Type());
    Type f32 = withElement(from, rewriter.getF32Type());
    auto constant = [&](Type type, TypedAttr scalar) -> Value {
      if (auto shaped = dyn_cast<ShapedType>(type))
        return arith::ConstantOp::create(
            rewriter, loc, DenseElementsAttr::get(shaped, scalar));
      return arith::ConstantOp::create(rewriter, loc, scalar);
    };
    auto i16Constant = [&](int64_t v) {
      return constant(i16, rewriter.getI16IntegerAttr(v));
    };
    Value bits = arith::BitcastOp::create(rewriter, loc, i8, op.getIn());
    Value wide = arith::ExtUIOp::create(rewriter, loc, i16, bits);
    Value widened;
    if (isa<Float8E5M2Type>(source)) {
      // e5m2 is the top byte of an f16 (same exponent bias, inf and NaN).
      Value half = arith::BitcastOp::create(
          rewriter, loc, f16,
          arith::ShLIOp::create(rewriter, loc, wide, i16Constant(8)));
      widened = arith::ExtFOp::create(rewriter, loc, f32, half);
    } else {
      // e4m3fn's exponent and mantissa placed under an f16's: the f16 is
      // the value times 2^(7 - 15), subnormals included; 0x7f/0xff are NaN
      // (the format has no infinity).
      Value sign = arith::ShLIOp::create(
          rewriter, loc,
          arith::AndIOp::create(rewriter, loc, wide, i16Constant(0x80)),
          i16Constant(8));
      Value magnitude =
          arith::AndIOp::create(rewriter, loc, wide, i16Constant(0x7f));
      Value half = arith::BitcastOp::create(
          rewriter, loc, f16,
          arith::OrIOp::create(
              rewriter, loc, sign,
              arith::ShLIOp::create(rewriter, loc, magnitude,
                                    i16Constant(7))));
      Value scaled = arith::MulFOp::create(
          rewriter, loc, arith::ExtFOp::create(rewriter, loc, f32, half),
          constant(f32, rewriter.getF32FloatAttr(256.0f)));
      Value isNaN = arith::CmpIOp::create(rewriter, loc,
                                          arith::CmpIPredicate::eq, magnitude,
                                          i16Constant(0x7f));
      widened = arith::SelectOp::create(
          rewriter, loc, isNaN,
          constant(f32, rewriter.getF32FloatAttr(
                            std::numeric_limits<float>::quiet_NaN())),
          scaled);
    }
    Type to = getElementTypeOrSelf(op.getType());
    if (to.isF32())
      rewriter.replaceOp(op, widened);
    else if (to.getIntOrFloatBitWidth() > 32)
      rewriter.replaceOpWithNewOp<arith::ExtFOp>(op, op.getType(), widened);
    else // f16, bf16: every FP8 value is exact in them
      rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, op.getType(), widened);
    return success();
  }
};

class WidenFloat8Pass
    : public vibegemm::impl::VibeGemmWidenFloat8PassBase<WidenFloat8Pass> {
public:
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<WidenFloat8ExtF>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

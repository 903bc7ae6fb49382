//===- CpuCheckHarness.cpp - Check a function against its own semantics ---===//
//
// Testing aid: a `main` that runs a function as vibegemm compiles it and as
// written (an untouched clone, lowered naively) on the same deterministic
// inputs, and prints how far apart the results are.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Analysis/DispatchInfo.h"
#include "vibegemm/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMCPUCHECKHARNESSPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;
using namespace mlir::vibegemm;

namespace {

/// `value` (f32) as `type`.
Value fromF32(OpBuilder &b, Location loc, Value value, Type type) {
  if (type.isF32())
    return value;
  if (auto fl = dyn_cast<FloatType>(type))
    return fl.getWidth() > 32 ? arith::ExtFOp::create(b, loc, type, value)
                                    .getResult()
                              : arith::TruncFOp::create(b, loc, type, value)
                                    .getResult();
  if (type.isIntOrIndex())
    return arith::FPToSIOp::create(b, loc, type, value);
  return {};
}

/// `value` as f32.
Value toF32(OpBuilder &b, Location loc, Value value) {
  Type type = value.getType();
  Type f32 = b.getF32Type();
  if (type.isF32())
    return value;
  if (auto fl = dyn_cast<FloatType>(type))
    return fl.getWidth() > 32
               ? arith::TruncFOp::create(b, loc, f32, value).getResult()
               : arith::ExtFOp::create(b, loc, f32, value).getResult();
  return arith::SIToFPOp::create(b, loc, f32, value);
}

/// A tensor of `type` whose elements are small non-zero multiples of 1/16
/// that vary along every dimension (exact in bf16), different per `seed`;
/// FP8 tensors get codes of values in [1/4, 1] (e4m3fn) instead.
FailureOr<Value> makeInput(OpBuilder &b, Location loc, RankedTensorType type,
                           int64_t seed, double scale) {
  static const int64_t kStrides[] = {7, 13, 5, 3, 11, 17};
  if (!type.hasStaticShape() || type.getRank() > 6)
    return failure();
  auto generate = tensor::GenerateOp::create(
      b, loc, type, ValueRange{},
      [&](OpBuilder &nb, Location nl, ValueRange indices) {
        Value sum = arith::ConstantIndexOp::create(nb, nl, 3 * seed + 1);
        for (auto [i, index] : llvm::enumerate(indices)) {
          Value stride = arith::ConstantIndexOp::create(nb, nl, kStrides[i]);
          sum = arith::AddIOp::create(
              nb, nl, sum, arith::MulIOp::create(nb, nl, index, stride));
        }
        Value mod = arith::RemUIOp::create(
            nb, nl, sum, arith::ConstantIndexOp::create(nb, nl, 17));
        Value asInt = arith::IndexCastOp::create(nb, nl, nb.getI64Type(), mod);
        if (isFloat8(type.getElementType())) {
          // FP8 has no narrowing lowering: codes 0x28-0x38 (finite in both
          // formats), negative where the index sum is odd.
          Value i8 = arith::TruncIOp::create(nb, nl, nb.getI8Type(), asInt);
          Value code = arith::OrIOp::create(
              nb, nl,
              arith::AddIOp::create(
                  nb, nl, i8,
                  arith::ConstantIntOp::create(nb, nl, nb.getI8Type(), 0x28)),
              arith::ShLIOp::create(
                  nb, nl,
                  arith::AndIOp::create(
                      nb, nl, i8,
                      arith::ConstantIntOp::create(nb, nl, nb.getI8Type(), 1)),
                  arith::ConstantIntOp::create(nb, nl, nb.getI8Type(), 7)));
          tensor::YieldOp::create(
              nb, nl,
              arith::BitcastOp::create(nb, nl, type.getElementType(), code));
          return;
        }
        Value asFloat =
            arith::SIToFPOp::create(nb, nl, nb.getF32Type(), asInt);
        // (r - 8.5) / 16: in [-0.53, 0.47], never 0.
        Value centred = arith::SubFOp::create(
            nb, nl, asFloat,
            arith::ConstantOp::create(nb, nl, nb.getF32FloatAttr(8.5)));
        Value scaled = arith::MulFOp::create(
            nb, nl, centred,
            arith::ConstantOp::create(nb, nl,
                                      nb.getF32FloatAttr(0.0625 * scale)));
        tensor::YieldOp::create(
            nb, nl, fromF32(nb, nl, scaled, type.getElementType()));
      });
  return generate.getResult();
}

/// The largest |a - b| / (1 + |b|) over two tensors of one shape.
Value maxRelativeError(OpBuilder &b, Location loc, Value actual,
                       Value expected) {
  auto type = cast<RankedTensorType>(actual.getType());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> lbs(type.getRank(), zero), steps(type.getRank(), one),
      ubs;
  for (int64_t dim : type.getShape())
    ubs.push_back(arith::ConstantIndexOp::create(b, loc, dim));
  Value init = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, ValueRange{init},
      [&](OpBuilder &nb, Location nl, ValueRange ivs,
          ValueRange iterArgs) -> scf::ValueVector {
        Value a = toF32(nb, nl, tensor::ExtractOp::create(nb, nl, actual, ivs));
        Value e =
            toF32(nb, nl, tensor::ExtractOp::create(nb, nl, expected, ivs));
        Value diff = math::AbsFOp::create(
            nb, nl, arith::SubFOp::create(nb, nl, a, e));
        Value scale = arith::AddFOp::create(
            nb, nl, math::AbsFOp::create(nb, nl, e),
            arith::ConstantOp::create(nb, nl, nb.getF32FloatAttr(1.0)));
        Value rel = arith::DivFOp::create(nb, nl, diff, scale);
        // NaN anywhere must fail: maximumf propagates it.
        return {arith::MaximumFOp::create(nb, nl, iterArgs[0], rel)};
      });
  return nest.results.empty() ? init : nest.results[0];
}

class CpuCheckHarnessPass
    : public vibegemm::impl::VibeGemmCpuCheckHarnessPassBase<
          CpuCheckHarnessPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp target;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && func.isPublic() &&
          (function.empty() ? !func->hasAttr(kIgnoreAttr)
                            : func.getSymName() == function)) {
        target = func;
        break;
      }
    if (!target) {
      emitError(module.getLoc(), "no function to check")
          << (function.empty() ? "" : " named " + function);
      return signalPassFailure();
    }
    SymbolTable symbols(module);
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto reference = cast<func::FuncOp>(b.clone(*target));
    reference.setSymName((target.getSymName() + "_reference").str());
    reference->setAttr(kIgnoreAttr, b.getUnitAttr());
    symbols.insert(reference);
    // The reference is lowered with plain loops, which know neither
    // tensor-level arith nor a softmax: upstream's own rewrites give them.
    {
      RewritePatternSet patterns(&getContext());
      linalg::populateElementwiseToLinalgConversionPatterns(patterns);
      if (failed(applyPatternsGreedily(reference, std::move(patterns))))
        return signalPassFailure();
    }
    SmallVector<linalg::SoftmaxOp> softmaxes;
    reference.walk([&](linalg::SoftmaxOp op) { softmaxes.push_back(op); });
    for (linalg::SoftmaxOp softmax : softmaxes) {
      IRRewriter rewriter(softmax);
      FailureOr<SmallVector<Value>> parts = softmax.decomposeOperation(rewriter);
      if (failed(parts))
        return signalPassFailure();
      rewriter.replaceOp(softmax, *parts);
    }

    Location loc = target.getLoc();
    auto main = func::FuncOp::create(b, loc, "vibegemm_check_main",
                                     b.getFunctionType({}, {}));
    main->setAttr(kIgnoreAttr, b.getUnitAttr());
    symbols.insert(main);
    OpBuilder body = OpBuilder::atBlockEnd(main.addEntryBlock());
    SmallVector<Value> inputs;
    for (auto [i, type] : llvm::enumerate(target.getArgumentTypes())) {
      auto tensorType = dyn_cast<RankedTensorType>(type);
      FailureOr<Value> input =
          tensorType ? makeInput(body, loc, tensorType, i, inputScale)
                     : FailureOr<Value>(failure());
      if (failed(input)) {
        emitError(loc, "cannot make an input of type ") << type;
        return signalPassFailure();
      }
      inputs.push_back(*input);
    }
    auto actual = func::CallOp::create(body, loc, target, inputs);
    auto expected = func::CallOp::create(body, loc, reference, inputs);
    Value tolerance = arith::ConstantOp::create(
        body, loc, body.getF32FloatAttr(static_cast<float>(this->tolerance)));
    for (auto [a, e] : llvm::zip(actual.getResults(), expected.getResults())) {
      if (!isa<RankedTensorType>(a.getType())) {
        emitError(loc, "results must be tensors");
        return signalPassFailure();
      }
      Value err = maxRelativeError(body, loc, a, e);
      vector::PrintOp::create(body, loc, "max_rel_err\n");
      vector::PrintOp::create(body, loc, err);
      vector::PrintOp::create(body, loc, "ok\n");
      vector::PrintOp::create(
          body, loc,
          arith::CmpFOp::create(body, loc, arith::CmpFPredicate::OLT, err,
                                tolerance));
    }
    func::ReturnOp::create(body, loc);
  }
};

} // namespace

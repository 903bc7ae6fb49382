//===- SplitK.cpp - Split-K over run-time parallel sizes -----------------===//
//
// Upstream's linalg::splitReduction builds the partial results' tensor.empty
// from static loop ranges only: a GEMM over a run-time M gets a
// `tensor<2x?xN>` empty with no operand for its `?`, which is invalid IR.
// This runs it and gives that tensor.empty its dynamic sizes, read from the
// output the combine writes.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Kernels/Kernels.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

FailureOr<linalg::SplitReductionResult> vibegemm::splitK(RewriterBase &rewriter,
                                                         linalg::LinalgOp op,
                                                         int64_t splitFactor,
                                                         std::string &why) {
  if (splitFactor < 2) {
    why = "the split factor must be at least 2";
    return failure();
  }
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 1) {
    why = "the target must be a linalg op on tensors with one output and "
          "one reduction dimension";
    return failure();
  }
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  int64_t k = op.getStaticLoopRanges()[reductions.front()];
  if (ShapedType::isDynamic(k) || k % splitFactor) {
    why = llvm::formatv("the reduction size ({0}) must be static and a "
                        "multiple of the split factor ({1})",
                        ShapedType::isDynamic(k) ? "?" : std::to_string(k),
                        splitFactor)
              .str();
    return failure();
  }
  // Where each dynamic output size can be read from an input (A's rows for
  // a run-time M), not from the output, whose fill schedules fuse into the
  // combine's loops afterwards.
  SmallVector<std::pair<Value, int64_t>> dynamicSizes;
  OpOperand *output = op.getDpsInitOperand(0);
  AffineMap outputMap = op.getMatchingIndexingMap(output);
  for (auto [i, size] :
       llvm::enumerate(cast<ShapedType>(output->get().getType()).getShape())) {
    if (!ShapedType::isDynamic(size))
      continue;
    std::pair<Value, int64_t> source = {output->get(), i};
    for (OpOperand *input : op.getDpsInputOperands()) {
      std::optional<unsigned> pos =
          op.getMatchingIndexingMap(input).getResultPosition(
              outputMap.getResult(i));
      if (pos) {
        source = {input->get(), *pos};
        break;
      }
    }
    dynamicSizes.push_back(source);
  }
  auto control = [&](linalg::LinalgOp) {
    return linalg::SplitReductionOptions{splitFactor, /*index=*/0,
                                         /*innerParallel=*/false};
  };
  FailureOr<linalg::SplitReductionResult> split =
      linalg::splitReduction(rewriter, op, control);
  if (failed(split)) {
    why = "linalg::splitReduction refused the target (no combiner with a "
          "neutral element)";
    return failure();
  }
  // The partials are [split, output dims...], upstream's empty without the
  // dynamic ones' operands.
  auto empty = dyn_cast<tensor::EmptyOp>(split->initOrAlloc);
  if (!empty || empty.getType().hasStaticShape())
    return split;
  rewriter.setInsertionPoint(empty);
  SmallVector<Value> sizes = llvm::map_to_vector(
      dynamicSizes, [&](std::pair<Value, int64_t> source) -> Value {
        return tensor::DimOp::create(rewriter, empty.getLoc(), source.first,
                                     source.second);
      });
  auto sized =
      tensor::EmptyOp::create(rewriter, empty.getLoc(), empty.getType(), sizes);
  rewriter.replaceOp(empty, sized);
  split->initOrAlloc = sized;
  return split;
}

//===- BlockSoftmax.h - A block's softmax rows as block reductions -*- C++ -*-===//
//
// Builds the body behind `transform.vibegemm.softmax_to_block_reduce`: the
// threads of a block share each row, an online max-and-sum pass reduces
// through warp shuffles and shared memory, a second pass writes.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_TRANSFORMOPS_BLOCKSOFTMAX_H
#define VIBEGEMM_TRANSFORMOPS_BLOCKSOFTMAX_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

namespace mlir::vibegemm {

struct BlockSoftmaxOptions {
  /// Threads of the block; a multiple of 32.
  int64_t threads = 256;
};

/// Replaces the bufferized 2-D `linalg.softmax` `target` over its last
/// dimension (one block's rows, inside a gpu.launch) with a kernel body in
/// which the block's threads share each row, and returns the row loop. On
/// failure the IR is untouched and `why` says what did not fit.
FailureOr<scf::ForOp> rewriteSoftmaxAsBlockReduce(
    RewriterBase &rewriter, Operation *target,
    const BlockSoftmaxOptions &options, std::string &why);

} // namespace mlir::vibegemm

#endif // VIBEGEMM_TRANSFORMOPS_BLOCKSOFTMAX_H

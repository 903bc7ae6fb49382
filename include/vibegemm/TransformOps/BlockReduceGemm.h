//===- BlockReduceGemm.h - A small GEMM tile as a block reduction -*- C++ -*-===//
//
// Builds the body behind `transform.vibegemm.gemm_to_block_reduce`: the
// threads of a block split K, each accumulates every output of a tile of a
// few outputs (a GEMV row), then warp shuffles and shared memory reduce.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_TRANSFORMOPS_BLOCKREDUCEGEMM_H
#define VIBEGEMM_TRANSFORMOPS_BLOCKREDUCEGEMM_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

namespace mlir::vibegemm {

struct BlockReduceOptions {
  /// Threads of the block; a multiple of 32.
  int64_t threads = 256;
};

/// Outputs one block tile may hold: each thread keeps a partial sum of
/// every one of them.
constexpr int64_t kMaxBlockReduceOutputs = 16;

/// Replaces the bufferized contraction `target` (one block's tile of at
/// most kMaxBlockReduceOutputs outputs, inside a gpu.launch) and its
/// elementwise consumers with a K-split dot-product kernel body, and
/// returns its K loop. On failure the IR is untouched and `why` says what
/// did not fit.
FailureOr<scf::ForOp> rewriteGemmAsBlockReduce(RewriterBase &rewriter,
                                               Operation *target,
                                               const BlockReduceOptions &options,
                                               std::string &why);

} // namespace mlir::vibegemm

#endif // VIBEGEMM_TRANSFORMOPS_BLOCKREDUCEGEMM_H

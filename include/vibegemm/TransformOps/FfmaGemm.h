//===- FfmaGemm.h - A block's f32 GEMM tile as an FFMA kernel --*- C++ -*-===//
//
// The CUDA-core path for f32 operands (no TF32): register tiles of FFMA
// outer products fed from a cp.async ring in shared memory.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_TRANSFORMOPS_FFMAGEMM_H
#define VIBEGEMM_TRANSFORMOPS_FFMAGEMM_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

namespace mlir::vibegemm {

struct FfmaOptions {
  int64_t blockK = 16;
  /// Outputs per thread along M and N; multiples of 4 (float4 fragments).
  int64_t threadM = 8, threadN = 8;
  int64_t stages = 3;
};

/// Replaces the bufferized f32 contraction `target` (one block's output
/// tile, inside a gpu.launch) and its elementwise consumers with an FFMA
/// kernel body, and returns its K loop. On failure the IR is untouched and
/// `why` says what did not fit.
FailureOr<scf::ForOp> rewriteGemmAsFfma(RewriterBase &rewriter,
                                        Operation *target,
                                        const FfmaOptions &options,
                                        std::string &why);

} // namespace mlir::vibegemm

#endif // VIBEGEMM_TRANSFORMOPS_FFMAGEMM_H

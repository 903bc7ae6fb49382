//===- AlignOperandRows.h - Zero-padded copies of misaligned operands -*- C++ -*-===//
//
// Builds what `transform.vibegemm.align_operand_rows` does: each GEMM
// operand whose rows are not a multiple of 16 bytes is copied, by a kernel
// of its own, into a buffer whose rows are, with a zero tail; the GEMM then
// reads a view of it, so TMA (which needs 16-byte strides) can load it.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_TRANSFORMOPS_ALIGNOPERANDROWS_H
#define VIBEGEMM_TRANSFORMOPS_ALIGNOPERANDROWS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

namespace mlir::vibegemm {

/// Marks an allocation whose rows were padded with zeros past the data
/// they copy, with the data's row length (elements): reading past it gives
/// 0, which the wgmma path relies on when its K loop runs into the tail.
constexpr llvm::StringLiteral kZeroPaddedAttr = "vibegemm.zero_padded";

/// Copies each input of the bufferized GEMM `target` (inside a gpu.launch)
/// named by `operands` (input indices) whose underlying buffer has rows
/// that are not a multiple of 16 bytes into a buffer whose rows are
/// rounded up to `rowBytes` (a power of two, at least 16), before the
/// launch, and points the GEMM at it. Returns the copy kernels' launches
/// (none when every such operand was aligned). On failure the IR is
/// untouched and `why` says what did not fit.
FailureOr<SmallVector<gpu::LaunchOp>>
alignOperandRows(RewriterBase &rewriter, Operation *target,
                 ArrayRef<int64_t> operands, int64_t rowBytes,
                 std::string &why);

} // namespace mlir::vibegemm

#endif // VIBEGEMM_TRANSFORMOPS_ALIGNOPERANDROWS_H

//===- GemmTile.h - What the tensor-core rewrites share ---------*- C++ -*-===//
//
// Facts about a block's bufferized GEMM tile (bounds, alignment, map
// positions) and its elementwise epilogue chain, used by both the mma.sync
// and the wgmma rewrites.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_TRANSFORMOPS_GEMMTILE_H
#define VIBEGEMM_TRANSFORMOPS_GEMMTILE_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/SetVector.h"

#include <optional>
#include <string>
#include <utility>

namespace mlir::vibegemm {

/// The elementwise consumers fused into the registers, in program order.
struct EpilogueChain {
  Value accumulator;                  // the contraction's output buffer
  linalg::FillOp init;                // its fill, if any
  SmallVector<linalg::GenericOp> ops; // generics over register values
  llvm::SetVector<Value> registerBuffers;
};

/// Allocations local to the block (temporaries of the chain).
bool isBlockLocalAllocation(Value buffer);

/// True when every row of `view` starts `divisor`-element aligned relative
/// to its allocation: the allocation's rows are, and every subview offset
/// along the innermost dimension keeps them so.
bool rowsAligned(Value view, int64_t divisor);

/// Static upper bound of dimension `dim` of `buffer`.
FailureOr<int64_t> upperBound(Value buffer, int64_t dim);

/// Position of loop dimension `loopDim` among `map`'s results.
std::optional<unsigned> resultPosition(AffineMap map, unsigned loopDim);

/// Collects the fill and the elementwise chain around `gemm`, or says why
/// a consumer cannot run on registers.
FailureOr<EpilogueChain> collectEpilogue(linalg::LinalgOp gemm,
                                         std::string &why);

/// Runs the epilogue chain on one accumulator value at `tileIndices` (loop
/// values of the chain's generics); returns each chain buffer with its
/// value there, the accumulator first.
SmallVector<std::pair<Value, Value>>
evaluateEpilogue(OpBuilder &b, Location loc, const EpilogueChain &chain,
                 ArrayRef<Value> tileIndices, Value value);

/// A pair (or more) of adjacent columns can be stored as one vector when
/// the buffer's rows are contiguous along dimension `nPos` and every row
/// starts aligned to `elements`.
bool canStoreVectors(Value buffer, unsigned nPos, int64_t elements);

/// Erases the GEMM, its fill, the chain and the block-local buffers the
/// chain ran through, once their values are stored.
void eraseGemmAndEpilogue(RewriterBase &b, Operation *gemm,
                          const EpilogueChain &chain);

} // namespace mlir::vibegemm

#endif // VIBEGEMM_TRANSFORMOPS_GEMMTILE_H

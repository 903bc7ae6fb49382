//===- Prepare.h - Helpers shared by the preparation passes -----*- C++ -*-===//
//
// What the passes of `vibegemm-prepare` share: which functions they touch
// and how they recognise GEMMs and pure data movement.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_TRANSFORMS_PREPARE_H
#define VIBEGEMM_TRANSFORMS_PREPARE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"

namespace mlir::vibegemm {

/// Applies `patterns` greedily to every function with a body that is not
/// marked `vibegemm.ignore` and is not a formed dispatch.
LogicalResult applyToPreparedFunctions(ModuleOp module,
                                       const FrozenRewritePatternSet &patterns);

/// Functions the preparation rewrites: defined, not `vibegemm.ignore`, not
/// already a dispatch.
bool isPreparedFunction(func::FuncOp func);

/// A generic whose body only yields one of its inputs: a copy, transpose or
/// broadcast, which folds into its users' indexing maps for free.
bool isDataMovementGeneric(linalg::GenericOp op);

/// A contraction with f16/bf16/f32 operands that dispatch formation may take
/// as a GEMM root once normalised (named matmuls and contraction generics).
bool isContractionCandidate(linalg::LinalgOp op);

/// `op` itself if it is a generic, else its generalized form (the named op
/// replaced).
FailureOr<linalg::GenericOp> asGeneric(RewriterBase &rewriter,
                                       linalg::LinalgOp op);

/// A `tensor.empty` of `like`'s shape (its dynamic sizes read with
/// `tensor.dim`) and `elementType`.
Value emptyLike(OpBuilder &builder, Location loc, Value like, Type elementType);

/// Whether `type` has dynamic sizes vibegemm does not compile: unranked,
/// more than two dynamic dimensions (a batch and the token count M), or,
/// at a function's boundary (`atBoundary`), a dynamic innermost dimension.
/// Inside, frontends reshape [1, S, 1] into [1, S] on the way to a
/// broadcast; generic dispatches tile such sizes, and GEMM dispatches
/// refuse them at their arguments.
bool isUnsupportedDynamicShape(Type type, bool atBoundary = true);

/// The refusal of such a type, saying which of the three it is.
InFlightDiagnostic emitUnsupportedDynamicShapeError(Location loc, Type type);

} // namespace mlir::vibegemm

#endif // VIBEGEMM_TRANSFORMS_PREPARE_H

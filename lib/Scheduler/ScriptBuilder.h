//===- ScriptBuilder.h - Build schedule pieces as transform ops -*- C++ -*-===//
//
// Reusable pieces of the built-in schedules, each creating transform ops at
// a builder's insertion point: role matches, tiling to blocks and threads,
// fusion, bufferization, the mapping to launches, the softmax row kernel.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_LIB_SCHEDULER_SCRIPTBUILDER_H
#define VIBEGEMM_LIB_SCHEDULER_SCRIPTBUILDER_H

#include "vibegemm/Analysis/DispatchInfo.h"

#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::vibegemm::script {

/// `!transform.any_op`, the type of every op handle the schedules use.
Type anyOpType(MLIRContext *context);

/// Builds `transform.named_sequence @<name>(%func: !transform.any_op
/// {transform.consumed})` at `b`'s insertion point; `body` fills it from the
/// function's handle and the sequence's yield closes it.
transform::NamedSequenceOp
buildNamedSequence(ImplicitLocOpBuilder &b, StringRef name,
                   function_ref<void(ImplicitLocOpBuilder &, Value)> body);

/// `transform.tune.knob<"<name>"> = <value> : i64 from options = [...]`.
Value buildKnob(ImplicitLocOpBuilder &b, StringRef name, int64_t value,
                ArrayRef<int64_t> options);

/// The ops in `target` that carry `attributes`.
Value buildMatchAttributes(ImplicitLocOpBuilder &b, Value target,
                           DictionaryAttr attributes);

/// The ops in `target` whose `vibegemm.role` is `role`.
Value buildMatchRole(ImplicitLocOpBuilder &b, Value target, StringRef role);

/// Handles to each of `roles`, matched in `target` in that order.
llvm::StringMap<Value> buildRoleMatches(ImplicitLocOpBuilder &b, Value target,
                                        ArrayRef<std::string> roles);

/// The `opName` ops in `target` (any op where `opName` is empty), those
/// with `attributes` where given.
Value buildMatchOps(ImplicitLocOpBuilder &b, Value target, StringRef opName,
                    DictionaryAttr attributes = {});

/// `#gpu.block<...>` for the `rank` outer dimensions: [x], [y, x], [z, y, x].
ArrayAttr blockMapping(MLIRContext *context, int64_t rank);
/// `#gpu.thread<...>`, as blockMapping.
ArrayAttr threadMapping(MLIRContext *context, int64_t rank);

/// The handles `tile_using_forall` returns.
struct TiledOp {
  Value tiled, loop;
};

/// Tiles `target` into a forall of `tileSizes` (constants or params).
TiledOp buildTileSizes(ImplicitLocOpBuilder &b, Value target,
                       ArrayRef<OpFoldResult> tileSizes, ArrayAttr mapping);

/// Tiles `target` into a forall of `numThreads` iterations.
TiledOp buildNumThreads(ImplicitLocOpBuilder &b, Value target,
                        ArrayRef<int64_t> numThreads, ArrayAttr mapping);

/// Fuses each of `producers`, in order, into `loop` and then into the loop
/// each fusion returns, which `loop` is left holding. Returns the fused
/// producers' handles.
SmallVector<Value> buildFuseIntoLoop(ImplicitLocOpBuilder &b,
                                     ArrayRef<Value> producers, Value &loop);

/// `transform.apply_patterns to <target>` with the pattern ops `patterns`
/// creates, and CSE where `cse` is set.
void buildApplyPatterns(ImplicitLocOpBuilder &b, Value target,
                        function_ref<void(OpBuilder &, Location)> patterns,
                        bool cse);

/// `transform.foreach %<handles>` with one block argument; `body` fills it.
void buildForeach(ImplicitLocOpBuilder &b, Value handles,
                  function_ref<void(ImplicitLocOpBuilder &, Value)> body);

/// Vectorizes `target`, with `vectorSizes` where given (else the static
/// shapes).
void buildVectorize(ImplicitLocOpBuilder &b, Value target,
                    ArrayRef<int64_t> vectorSizes = {});

/// The closest `opName` ancestor of each op in `target`.
Value buildGetParent(ImplicitLocOpBuilder &b, Value target, StringRef opName);

/// Maps the block forall in `target` to a new `gpu.launch`.
Value buildMapToLaunch(ImplicitLocOpBuilder &b, Value target);

/// Maps the foralls nested in `launch` to `blockDims` threads.
Value buildMapToThreads(ImplicitLocOpBuilder &b, Value launch,
                        ArrayRef<int64_t> blockDims);

/// The handles `buildLaunchAround` returns.
struct LaunchedOp {
  Value launch, op;
};

/// Maps the block forall around the ops `match` finds in `buffers` to a
/// launch of its own. Returns the launch and those ops, matched again in
/// it, since the mapping moves them.
LaunchedOp
buildLaunchAround(ImplicitLocOpBuilder &b, Value buffers,
                  function_ref<Value(ImplicitLocOpBuilder &, Value)> match);

/// `transform.apply_patterns to <target> { canonicalization }`, with CSE
/// where `cse` is set.
void buildCanonicalize(ImplicitLocOpBuilder &b, Value target, bool cse);

/// Bufferizes the function `func` (copies as `linalg.copy`).
Value buildBufferize(ImplicitLocOpBuilder &b, Value func);

/// Gives each thread's GEMM a private accumulator (operand 2, an alloca).
Value buildPromoteAccumulator(ImplicitLocOpBuilder &b, Value gemm);

/// Maps each forall in `buffers` with block mapping `mapping` to a launch
/// and its nested foralls to `blockDims` threads.
void buildMapBlockLoops(ImplicitLocOpBuilder &b, Value buffers,
                        ArrayAttr mapping, ArrayRef<int64_t> blockDims);

/// CPU check: every forall in `buffers` runs as a sequential `scf.parallel`.
void buildForallsToParallel(ImplicitLocOpBuilder &b, Value buffers);

/// The block mapping of a softmax kernel: rows along x, batches along y.
ArrayAttr softmaxBlockMapping(MLIRContext *context, const GemmProblem &p);

/// Tiles the softmax `softmax` to one row per block.
TiledOp buildSoftmaxRowTiling(ImplicitLocOpBuilder &b, Value softmax,
                              const GemmProblem &p);

/// After bufferization: the softmax's row loop in `buffers` becomes a
/// launch and `softmax_to_block_reduce` its body, which computes in f32.
void buildSoftmaxRowKernel(ImplicitLocOpBuilder &b, Value buffers,
                           const GemmProblem &p);

} // namespace mlir::vibegemm::script

#endif // VIBEGEMM_LIB_SCHEDULER_SCRIPTBUILDER_H

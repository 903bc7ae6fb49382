//===- KernelSchedule.cpp - The kernel-path schedules ---------------------===//
//
// Builds the schedule of a kernel path (mma.sync, wgmma, FFMA,
// block-reduce): block tiles with the fused chain in one loop, bufferized,
// mapped to blocks, then the GEMM rewritten into the path's kernel body;
// split-K adds a combining kernel.
//
//===----------------------------------------------------------------------===//

#include "ScheduleWriters.h"
#include "ScriptBuilder.h"
#include "vibegemm/TransformOps/VibeGemmTransformOps.h"

#include "mlir/Dialect/Bufferization/TransformOps/BufferizationTransformOps.h"
#include "mlir/Dialect/Linalg/TransformOps/LinalgTransformOps.h"
#include "mlir/Dialect/MemRef/TransformOps/MemRefTransformOps.h"

using namespace mlir;
using namespace mlir::vibegemm;
using namespace mlir::vibegemm::schedule;
using namespace mlir::vibegemm::script;

namespace {

/// Marks the partial GEMM of a split-K schedule, to find it again after
/// bufferization.
constexpr llvm::StringLiteral kSplitKMarker = "vibegemm.split_k";

/// The SIMT kernels beside the GEMM's (unfused epilogues, the split-K
/// combine) run kSimtThreads x kSimtThreads threads per block.
constexpr int64_t kSimtThreads = 16;

/// The tile of an unfused epilogue's block: 64x64, 4x4 outputs per thread.
constexpr int64_t kEpilogueTile = 64;

/// `sizes`, behind `lead` where `hasLead`: the size along a batch, or along
/// the split of a split-K sum (0: not tiled).
SmallVector<int64_t> withLead(bool hasLead, int64_t lead,
                              ArrayRef<int64_t> sizes) {
  SmallVector<int64_t> all(sizes);
  if (hasLead)
    all.insert(all.begin(), lead);
  return all;
}

/// Canonicalizes the function `func`, then bufferizes it.
Value buildBufferizeFunction(ImplicitLocOpBuilder &b, Value func) {
  buildCanonicalize(b, func, /*cse=*/false);
  transform::EliminateEmptyTensorsOp::create(b, b.getLoc(), func);
  return buildBufferize(b, func);
}

/// The kernel rewrite of the block-tiled GEMM `gemm` in the launch `launch`
/// on the mma.sync, wgmma or FFMA path. Attributes are set as the path's
/// tiling states them, and only those (defaults stay unset).
void buildBlockGemmRewrite(ImplicitLocOpBuilder &b, const KernelTiling &t,
                           Value launch, Value gemm) {
  Type any = anyOpType(b.getContext());
  auto i64 = [&](int64_t value) { return b.getI64IntegerAttr(value); };
  auto i64If = [&](bool set, int64_t value) {
    return set ? i64(value) : IntegerAttr();
  };
  auto unitIf = [&](bool set) { return set ? b.getUnitAttr() : UnitAttr(); };
  auto groupBlocks = [&] {
    if (t.groupRows > 1)
      transform::GroupBlocksOp::create(b, launch, i64(t.groupRows));
  };
  // Clusters pair blocks by their y id, before grouping renumbers them; a
  // persistent kernel in clusters orders its tiles itself (group_rows).
  bool ownOrder = t.clusterRows > 1 && t.persistentBlocks;
  if (t.clusterRows == 1)
    groupBlocks();
  if (!t.alignOperands.empty())
    transform::AlignOperandRowsOp::create(
        b, gemm,
        t.alignOperands.size() == 1 ? b.getDenseI64ArrayAttr(t.alignOperands)
                                    : DenseI64ArrayAttr(),
        i64If(t.alignRowBytes != 16, t.alignRowBytes));
  StringAttr precision =
      t.f32Precision.empty() ? StringAttr() : b.getStringAttr(t.f32Precision);
  if (t.path == KernelPath::Wgmma)
    transform::GemmToWgmmaOp::create(
        b, any, gemm, i64(t.stages), i64(t.consumers), precision,
        i64If(t.persistentBlocks, t.persistentBlocks),
        i64If(t.clusterRows > 1, t.clusterRows),
        i64If(ownOrder && t.groupRows > 1, t.groupRows), unitIf(t.tmaStore),
        /*ping_pong=*/UnitAttr(), unitIf(t.tmaLoadResidual));
  else if (t.path == KernelPath::Ffma)
    transform::GemmToFfmaOp::create(
        b, any, gemm, i64(t.blockK),
        b.getDenseI64ArrayAttr({t.threadM, t.threadN}), i64(t.stages));
  else
    transform::GemmToMmaSyncOp::create(
        b, any, gemm, i64(t.blockK),
        b.getDenseI64ArrayAttr({t.warpsM, t.warpsN}), i64(t.stages), precision);
  if (t.clusterRows > 1 && !ownOrder)
    groupBlocks();
}

/// Split-K: the partial GEMM is a batch-like op over [split, M, N]
/// (tensor cores), the combining sum and the epilogue chain a SIMT kernel
/// with one output per thread: 16x16 threads over 16x16 tiles. The sum is
/// latency-bound, so it wants many blocks with coalesced loads, and LLVM
/// unrolls a one-output loop 8 deep (8 partials in flight; unrolling it
/// whole gained nothing on the H200, A/B in one run: a_huge_k 20.0 / 19.9
/// us); 4x4 outputs per thread over 64x64 tiles ran 4 blocks for a 128x128
/// output.
void buildSplitK(ImplicitLocOpBuilder &b, Value func, const KernelTiling &t,
                 const DispatchOps &ops, const FusionPlan &plan,
                 llvm::StringMap<Value> &roles,
                 ArrayRef<OpFoldResult> blockTile, int64_t problemN,
                 bool dynamicM) {
  MLIRContext *ctx = b.getContext();
  // Upstream's split leaves a run-time M out of the partials' tensor.empty;
  // both ops return (init, fill, partial op, combining op).
  Operation *split =
      dynamicM ? transform::SplitKOp::create(b, roles["root"], t.splitK)
                     .getOperation()
               : transform::SplitReductionOp::create(b, roles["root"], t.splitK,
                                                     /*insertSplitDimension=*/0)
                     .getOperation();
  Value fill = split->getResult(1), partialGemm = split->getResult(2),
        combining = split->getResult(3);
  transform::AnnotateOp::create(b, partialGemm, kSplitKMarker,
                                /*param=*/Value());
  SmallVector<OpFoldResult> splitTile = {b.getI64IntegerAttr(1)};
  llvm::append_range(splitTile, blockTile);
  TiledOp partial =
      buildTileSizes(b, partialGemm, splitTile, blockMapping(ctx, 3));
  buildFuseIntoLoop(b, {fill}, partial.loop);
  // Producers of the combine kernel: epilogues (last first), the combining
  // sum, the output's fill. Unfused, the sum anchors it, its leading split
  // dimension left whole.
  SmallVector<Value> chain =
      llvm::map_to_vector(plan.producers, [&](const std::string &p) {
        return p == "root" ? combining : roles[p];
      });
  if (!plan.fused && ops.hasInit)
    chain.assign({roles["init"]});
  Value anchor = plan.fused ? roles[plan.anchor] : combining;
  // Over a run-time M the 16x16 tiles would be ragged, and the threads'
  // private tiles (with the epilogue's f32 temporaries) dynamic: one row
  // per block instead, up to 256 columns with one thread each.
  SmallVector<int64_t> combineShape = {kCombineTile, kCombineTile};
  SmallVector<int64_t> threads = {kSimtThreads, kSimtThreads};
  if (dynamicM) {
    int64_t columns = kSimtThreads * kSimtThreads;
    while (problemN % columns)
      columns /= 2;
    combineShape = {1, columns};
    threads = {1, columns};
  }
  SmallVector<OpFoldResult> combineTile =
      getAsIndexOpFoldResult(ctx, withLead(!plan.fused, 0, combineShape));
  TiledOp combine =
      buildTileSizes(b, anchor, combineTile, blockMapping(ctx, 2));
  SmallVector<Value> inBlocks = buildFuseIntoLoop(b, chain, combine.loop);
  // Over a run-time M, fusing the sum left a tensor.dim of the output's
  // fill in the block loop, which keeps a second copy of the fill there;
  // folding it to the empty's size lets that copy die before the fill is
  // fused per thread.
  if (dynamicM)
    buildApplyPatterns(
        b, func,
        [](OpBuilder &nested, Location loc) {
          transform::ApplyResolveRankedShapedTypeResultDimsPatternsOp::create(
              nested, loc);
        },
        /*cse=*/false);
  TiledOp perThread =
      buildNumThreads(b, combine.tiled, withLead(!plan.fused, 0, threads),
                      threadMapping(ctx, 2));
  buildFuseIntoLoop(b, inBlocks, perThread.loop);

  Value buffers = buildBufferizeFunction(b, func);
  buildCanonicalize(b, buffers, /*cse=*/true);
  DictionaryAttr marked =
      b.getDictionaryAttr(b.getNamedAttr(kSplitKMarker, b.getUnitAttr()));
  LaunchedOp gemm =
      buildLaunchAround(b, buffers, [&](ImplicitLocOpBuilder &b, Value target) {
        return buildMatchAttributes(b, target, marked);
      });
  buildBlockGemmRewrite(b, t, gemm.launch, gemm.op);
  buildMapBlockLoops(b, buffers, blockMapping(ctx, 2),
                     {threads[1], threads[0], 1});
  buildCanonicalize(b, buffers, /*cse=*/true);
}

} // namespace

transform::NamedSequenceOp
schedule::buildKernelSchedule(ImplicitLocOpBuilder &b,
                              const GemmProblem &problem, const KernelTiling &t,
                              const DispatchOps &ops, StringRef sequenceName) {
  MLIRContext *ctx = b.getContext();
  bool batched = problem.batched;
  FusionPlan plan = planFusion(problem, ops);
  ArrayAttr blockMap = blockMapping(ctx, batched ? 3 : 2);

  return buildNamedSequence(
      b, sequenceName, [&](ImplicitLocOpBuilder &b, Value func) {
        // A matrix-vector block computes one or two outputs.
        SmallVector<int64_t> tileOptions = {16, 32, 64, 128, 256};
        if (t.path == KernelPath::BlockReduce)
          tileOptions = {1, 2};
        Value blockM = buildKnob(b, "block_m", t.blockM, tileOptions);
        Value blockN = buildKnob(b, "block_n", t.blockN, tileOptions);
        llvm::StringMap<Value> roles =
            buildRoleMatches(b, func, ops.roles(/*softmax=*/true));
        SmallVector<OpFoldResult> blockTile = {blockM, blockN};
        if (t.splitK > 1)
          return buildSplitK(b, func, t, ops, plan, roles, blockTile, problem.n,
                             problem.mRange.has_value());

        if (batched)
          blockTile.insert(blockTile.begin(), b.getI64IntegerAttr(1));
        buildBlockLoop(b, plan, roles, blockTile, blockMap);
        // A softmax consumer: its own kernel, one row per block (a grid of
        // batches by rows when batched).
        if (ops.hasSoftmax)
          buildSoftmaxRowTiling(b, roles["softmax"], problem);
        // Unfused epilogues: SIMT kernels, 16x16 threads over 64x64 tiles.
        if (!plan.fused)
          for (StringRef e : ops.epilogues) {
            SmallVector<OpFoldResult> tile = getAsIndexOpFoldResult(
                ctx, withLead(batched, 1, {kEpilogueTile, kEpilogueTile}));
            TiledOp epilogue = buildTileSizes(b, roles[e], tile, blockMap);
            buildNumThreads(b, epilogue.tiled,
                            withLead(batched, 0, {kSimtThreads, kSimtThreads}),
                            threadMapping(ctx, 2));
          }

        Value buffers = buildBufferizeFunction(b, func);
        // Folds the self-copies bufferization leaves behind the epilogue.
        buildCanonicalize(b, buffers, /*cse=*/true);
        LaunchedOp gemm = buildLaunchAround(
            b, buffers, [](ImplicitLocOpBuilder &b, Value target) {
              return buildMatchRole(b, target, "root");
            });
        if (t.path == KernelPath::BlockReduce)
          transform::GemmToBlockReduceOp::create(
              b, anyOpType(ctx), gemm.op, b.getI64IntegerAttr(t.threads));
        else
          buildBlockGemmRewrite(b, t, gemm.launch, gemm.op);
        if (!plan.fused && !ops.epilogues.empty())
          buildMapBlockLoops(b, buffers, blockMap,
                             {kSimtThreads, kSimtThreads, 1});
        if (ops.hasSoftmax)
          buildSoftmaxRowKernel(b, buffers, problem);
        buildCanonicalize(b, buffers, /*cse=*/true);
      });
}

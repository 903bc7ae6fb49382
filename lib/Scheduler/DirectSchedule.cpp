//===- DirectSchedule.cpp - The direct SIMT schedule ----------------------===//
//
// Builds the direct SIMT schedule, which takes any shape: block tiles, a
// fixed thread grid, operands read from global memory. Also the reference
// and CPU-check schedules.
//
//===----------------------------------------------------------------------===//

#include "ScheduleWriters.h"
#include "ScriptBuilder.h"

#include "mlir/Dialect/Linalg/TransformOps/LinalgTransformOps.h"

using namespace mlir;
using namespace mlir::vibegemm;
using namespace mlir::vibegemm::schedule;
using namespace mlir::vibegemm::script;

transform::NamedSequenceOp schedule::buildDirectSchedule(
    ImplicitLocOpBuilder &b, const GemmProblem &problem, const SimtTiling &t,
    const DispatchOps &ops, StringRef sequenceName, bool cpuCheck) {
  MLIRContext *ctx = b.getContext();
  bool batched = problem.batched;
  int64_t bdx = t.blockN / t.threadN, bdy = t.blockM / t.threadM;
  // Softmax blocks of up to 32 rows, one per thread; the count divides M,
  // since a ragged last block would give the decomposed softmax's row
  // buffers a dynamic size. A run-time M takes one row per block.
  int64_t softmaxRows = problem.mRange ? 1 : 32;
  while (problem.m % softmaxRows)
    softmaxRows /= 2;
  FusionPlan plan = planFusion(problem, ops);
  ArrayAttr blockMap = blockMapping(ctx, batched ? 3 : 2);
  ArrayAttr threadMap = threadMapping(ctx, 2);
  // The thread grid over a block tile; a batch dimension gets no threads.
  SmallVector<int64_t> threads = {bdy, bdx};
  if (batched)
    threads.insert(threads.begin(), 0);

  return buildNamedSequence(
      b, sequenceName, [&](ImplicitLocOpBuilder &b, Value func) {
        const int64_t tileOptions[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};
        Value blockM = buildKnob(b, "block_m", t.blockM, tileOptions);
        Value blockN = buildKnob(b, "block_n", t.blockN, tileOptions);
        llvm::StringMap<Value> roles =
            buildRoleMatches(b, func, ops.roles(/*softmax=*/true));
        SmallVector<OpFoldResult> blockTile = {blockM, blockN};
        if (batched)
          blockTile.insert(blockTile.begin(), b.getI64IntegerAttr(1));

        BlockLoop blocks = buildBlockLoop(b, plan, roles, blockTile, blockMap);
        // A fixed thread grid: per-thread tiles shrink at ragged block edges,
        // so the forall keeps a static trip count.
        TiledOp perThread =
            buildNumThreads(b, blocks.tiled, threads, threadMap);
        buildFuseIntoLoop(b, blocks.fused, perThread.loop);
        if (!plan.fused)
          for (StringRef e : ops.epilogues) {
            TiledOp epilogue = buildTileSizes(b, roles[e], blockTile, blockMap);
            buildNumThreads(b, epilogue.tiled, threads, threadMap);
          }
        ArrayAttr softmaxMap = softmaxBlockMapping(ctx, problem);
        // On the GPU the softmax gets the block-reduce kernel (f32 math, a
        // block per row); the reference and the CPU check decompose it, a
        // thread per row, independent of that kernel.
        bool rowKernel = ops.hasSoftmax && !cpuCheck && !t.reference;
        if (rowKernel) {
          buildSoftmaxRowTiling(b, roles["softmax"], problem);
        } else if (ops.hasSoftmax) {
          SmallVector<OpFoldResult> rows = {b.getI64IntegerAttr(softmaxRows)};
          SmallVector<int64_t> rowThreads = {softmaxRows};
          if (batched) {
            rows.insert(rows.begin(), b.getI64IntegerAttr(1));
            rowThreads.insert(rowThreads.begin(), 0);
          }
          TiledOp softmax =
              buildTileSizes(b, roles["softmax"], rows, softmaxMap);
          TiledOp softmaxThreads = buildNumThreads(b, softmax.tiled, rowThreads,
                                                   threadMapping(ctx, 1));
          transform::DecomposeInterfaceOp::create(b, anyOpType(ctx),
                                                  softmaxThreads.tiled);
        }
        buildCanonicalize(b, func, /*cse=*/false);
        Value buffers = buildBufferize(b, func);
        // Each thread accumulates its C tile in a private buffer (registers or
        // local memory) instead of reading and writing global memory every K
        // step. Under a fused epilogue the accumulator is already a private
        // temporary. A single thread over the whole output has no C tile to
        // promote (the tiles folded away), and nothing to gain from it.
        bool wholeOutputInOneThread = !batched && bdx == 1 && bdy == 1 &&
                                      problem.m <= t.blockM &&
                                      problem.n <= t.blockN;
        if (!plan.fused && !wholeOutputInOneThread)
          buildPromoteAccumulator(b, buildMatchRole(b, buffers, "root"));
        if (cpuCheck) {
          buildForallsToParallel(b, buffers);
          return;
        }
        // One kernel per block-mapped loop (the GEMM, unfused epilogues), then
        // the softmax kernel, whose blocks are one-dimensional.
        buildMapBlockLoops(b, buffers, blockMap, {bdx, bdy, 1});
        if (rowKernel)
          buildSoftmaxRowKernel(b, buffers, problem);
        else if (ops.hasSoftmax)
          buildMapBlockLoops(b, buffers, softmaxMap, {softmaxRows, 1, 1});
      });
}

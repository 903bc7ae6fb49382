//===- SimtSchedule.cpp - The SIMT schedules ------------------------------===//
//
// Builds the staged SIMT schedule (A and B K-tiles through shared memory, a
// register tile per thread) and hands the other kinds to their builders;
// also the roles and fusion plan they share.
//
//===----------------------------------------------------------------------===//

#include "ScheduleWriters.h"
#include "ScriptBuilder.h"
#include "vibegemm/Scheduler/BuiltinScheduler.h"

#include "vibegemm/TransformOps/VibeGemmTransformOps.h"

#include "mlir/Dialect/Bufferization/TransformOps/BufferizationTransformOps.h"
#include "mlir/Dialect/GPU/TransformOps/GPUTransformOps.h"
#include "mlir/Dialect/Linalg/TransformOps/LinalgTransformOps.h"
#include "mlir/Dialect/MemRef/TransformOps/MemRefTransformOps.h"
#include "mlir/Dialect/SCF/TransformOps/SCFTransformOps.h"
#include "mlir/Dialect/Transform/IR/TransformTypes.h"
#include "mlir/Dialect/Vector/TransformOps/VectorTransformOps.h"
#include "mlir/IR/Verifier.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::vibegemm;
using namespace mlir::vibegemm::schedule;
using namespace mlir::vibegemm::script;

DispatchOps schedule::collectRoles(func::FuncOp dispatch) {
  DispatchOps ops;
  dispatch.walk([&](Operation *op) {
    auto role = op->getAttrOfType<StringAttr>(kRoleAttr);
    if (!role)
      return;
    if (role.getValue() == "init")
      ops.hasInit = true;
    else if (role.getValue().starts_with("epilogue"))
      ops.epilogues.push_back(role.getValue().str());
    else if (role.getValue() == "softmax")
      ops.hasSoftmax = true;
  });
  return ops;
}

FusionPlan schedule::planFusion(const GemmProblem &problem,
                                const DispatchOps &ops) {
  FusionPlan plan;
  // The last fused elementwise op anchors the tiling. Unfused epilogues get
  // kernels of their own instead.
  plan.fused = problem.fuseEpilogues && !ops.epilogues.empty();
  plan.anchor = plan.fused ? ops.epilogues.back() : "root";
  if (plan.fused) {
    for (int i = static_cast<int>(ops.epilogues.size()) - 2; i >= 0; --i)
      plan.producers.push_back(ops.epilogues[i]);
    plan.producers.push_back("root");
  }
  if (ops.hasInit)
    plan.producers.push_back("init");
  return plan;
}

BlockLoop schedule::buildBlockLoop(ImplicitLocOpBuilder &b,
                                   const FusionPlan &plan,
                                   const llvm::StringMap<Value> &roles,
                                   ArrayRef<OpFoldResult> blockTile,
                                   ArrayAttr mapping) {
  SmallVector<Value> producers = llvm::map_to_vector(
      plan.producers, [&](const std::string &p) { return roles.lookup(p); });
  TiledOp blocks =
      buildTileSizes(b, roles.lookup(plan.anchor), blockTile, mapping);
  SmallVector<Value> fused = buildFuseIntoLoop(b, producers, blocks.loop);
  return {blocks.tiled, blocks.loop, fused};
}

SmallVector<std::string> schedule::DispatchOps::roles(bool softmax) const {
  SmallVector<std::string> roles = {"root"};
  if (hasInit)
    roles.push_back("init");
  llvm::append_range(roles, epilogues);
  if (softmax && hasSoftmax)
    roles.push_back("softmax");
  return roles;
}

namespace {

/// The staged SIMT schedule: block tiles over M and N, a K loop whose A and
/// B tiles are copied cooperatively into shared memory, a register tile per
/// thread, and an accumulator that stays in registers. A ragged M or N is
/// split into an interior the block tile divides and edges tiled directly;
/// a softmax consumer gets a kernel of its own, one row per block.
transform::NamedSequenceOp
buildStagedSchedule(ImplicitLocOpBuilder &b, const GemmProblem &problem,
                    const SimtTiling &t, const DispatchOps &ops,
                    StringRef sequenceName, bool cpuCheck) {
  MLIRContext *ctx = b.getContext();
  Type any = anyOpType(ctx);
  bool hasEpilogue = !ops.epilogues.empty();
  bool split = t.splitM || t.splitN;
  // A softmax kernel besides the GEMM's: each block loop is mapped apart.
  bool perLoop = split || ops.hasSoftmax;
  int64_t bdx = t.blockN / t.threadN, bdy = t.blockM / t.threadM;
  ArrayAttr blocks = blockMapping(ctx, 2), threads = threadMapping(ctx, 2);

  return buildNamedSequence(
      b, sequenceName, [&](ImplicitLocOpBuilder &b, Value func) {
        const int64_t tileOptions[] = {4, 8, 16, 32, 64, 128, 256};
        const int64_t threadOptions[] = {2, 4, 8};
        Value blockM = buildKnob(b, "block_m", t.blockM, tileOptions);
        Value blockN = buildKnob(b, "block_n", t.blockN, tileOptions);
        Value blockK = buildKnob(b, "block_k", t.blockK, {8, 16, 32});
        Value threadM = buildKnob(b, "thread_m", t.threadM, threadOptions);
        Value threadN = buildKnob(b, "thread_n", t.threadN, threadOptions);
        SmallVector<OpFoldResult> blockTile = {blockM, blockN};
        SmallVector<OpFoldResult> threadTile = {threadM, threadN};
        Value root = buildMatchRole(b, func, "root");
        Value init = buildMatchRole(b, func, "init");
        Value epilogue;
        if (hasEpilogue)
          epilogue = buildMatchRole(b, func, "epilogue0");

        // 1. Block tiles; the fill (and the GEMM under an epilogue) are fused
        // in. Ragged M or N: the fill runs as its own kernel, and the GEMM is
        // split into an interior the block tile divides and edges, each
        // accumulating onto the filled output.
        Value interior = root;
        SmallVector<Value, 2> edges;
        if (split) {
          TiledOp fill = buildTileSizes(b, init, blockTile, blocks);
          buildNumThreads(b, fill.tiled, {bdy, bdx}, threads);
          const int64_t splitAt[] = {t.splitM, t.splitN};
          for (auto [dim, at] : llvm::enumerate(splitAt)) {
            if (!at)
              continue;
            Value parts = transform::SplitOp::create(
                b, b.getLoc(), any, interior, /*dimension=*/dim,
                /*dynamic_chunk_sizes=*/Value(), /*static_chunk_sizes=*/at);
            auto halves =
                transform::SplitHandleOp::create(b, b.getLoc(), parts,
                                                 /*numResultHandles=*/2);
            interior = halves.getResult(0);
            edges.push_back(halves.getResult(1));
          }
          interior = transform::MergeHandlesOp::create(
              b, b.getLoc(), ValueRange{interior}, /*deduplicate=*/false);
        }
        Value blockGemm, blockFill, blockEpilogue;
        if (!hasEpilogue) {
          TiledOp gemm = buildTileSizes(b, interior, blockTile, blocks);
          blockGemm = gemm.tiled;
          if (!split)
            blockFill = buildFuseIntoLoop(b, {init}, gemm.loop)[0];
        } else {
          TiledOp tiled = buildTileSizes(b, epilogue, blockTile, blocks);
          blockEpilogue = tiled.tiled;
          SmallVector<Value> fused =
              buildFuseIntoLoop(b, {root, init}, tiled.loop);
          blockGemm = fused[0];
          blockFill = fused[1];
        }
        if (ops.hasSoftmax) {
          TiledOp rows = buildSoftmaxRowTiling(
              b, buildMatchRole(b, func, "softmax"), problem);
          if (cpuCheck)
            transform::DecomposeInterfaceOp::create(b, any, rows.tiled);
        }
        // Edges are thin strips with long K: small block tiles with one output
        // per thread give many blocks, and one dot product per thread.
        for (Value edge : edges) {
          SmallVector<OpFoldResult> edgeTile = {b.getI64IntegerAttr(bdy),
                                                b.getI64IntegerAttr(bdx)};
          TiledOp edgeBlocks = buildTileSizes(b, edge, edgeTile, blocks);
          buildNumThreads(b, edgeBlocks.tiled, {bdy, bdx}, threads);
        }

        // 2. The K loop.
        auto kLoop = transform::TileUsingForOp::create(
            b, b.getLoc(), blockGemm,
            ArrayRef<OpFoldResult>{b.getI64IntegerAttr(0),
                                   b.getI64IntegerAttr(0), blockK});
        // 3. A and B K-tiles become explicit copies, split over all threads.
        SmallVector<Attribute> zeros = llvm::map_to_vector(
            ArrayRef<Type>{problem.lhsType, problem.rhsType, problem.accType},
            [&](Type type) -> Attribute { return b.getZeroAttr(type); });
        auto pad = transform::PadOp::create(
            b, b.getLoc(), TypeRange{any, any, any}, kLoop.getTiledLinalgOp(),
            b.getArrayAttr(zeros), b.getI64ArrayAttr({0, 1, 2}),
            /*pad_to_multiple_of=*/ValueRange(),
            /*static_pad_to_multiple_of=*/DenseI64ArrayAttr(),
            /*nofold_flags=*/b.getI64ArrayAttr({1, 1, 0}),
            /*transpose_paddings=*/nullptr, b.getStringAttr("none"));
        auto copies = transform::MapCopyToThreadsOp::create(
            b, b.getLoc(), any, any, pad.getPad(), t.threadsPerBlock(),
            t.copyBits);
        buildForeach(b, copies.getForallOp(),
                     [&](ImplicitLocOpBuilder &b, Value copy) {
                       transform::TakeAssumedBranchOp::create(
                           b, b.getLoc(), buildMatchOps(b, copy, "scf.if"),
                           /*take_else_branch=*/b.getUnitAttr());
                     });
        // 4. Register tiles per thread.
        Value threadGemm =
            buildTileSizes(b, pad.getPadded(), threadTile, threads).tiled;
        Value threadFill, threadEpilogue;
        if (!split)
          threadFill = buildTileSizes(b, blockFill, threadTile, threads).tiled;
        if (hasEpilogue)
          threadEpilogue =
              buildTileSizes(b, blockEpilogue, threadTile, threads).tiled;
        buildApplyPatterns(
            b, func,
            [](OpBuilder &nested, Location loc) {
              transform::ApplyCanonicalizationPatternsOp::create(nested, loc);
              transform::ApplyTilingCanonicalizationPatternsOp::create(nested,
                                                                       loc);
            },
            /*cse=*/true);
        // Vector sizes of the copies are each thread's share of the A and B
        // tiles.
        auto copyTiles = transform::SplitHandleOp::create(
            b, b.getLoc(), copies.getTiledOp(), /*numResultHandles=*/2);
        buildVectorize(b, copyTiles.getResult(0), t.copyA);
        buildVectorize(b, copyTiles.getResult(1), t.copyB);
        buildVectorize(b, threadGemm);
        if (!split)
          buildVectorize(b, threadFill);
        if (hasEpilogue)
          buildVectorize(b, threadEpilogue);
        // 5. The staged tiles live in shared memory (address space 3).
        transform::BufferizeToAllocationOp::create(
            b, b.getLoc(), copies.getForallOp(),
            /*memory_space=*/b.getI64IntegerAttr(cpuCheck ? 0 : 3),
            /*memcpy_op=*/nullptr,
            /*alloc_op=*/b.getStringAttr("memref.alloca"),
            /*bufferize_destination_only=*/b.getUnitAttr());
        buildApplyPatterns(
            b, func,
            [](OpBuilder &nested, Location loc) {
              transform::ApplyCanonicalizationPatternsOp::create(nested, loc);
              transform::ApplyLowerMaskedTransfersPatternsOp::create(nested,
                                                                     loc);
            },
            /*cse=*/true);
        // 6. Bufferize the dispatch (its boundary is bufferized with the
        // module).
        transform::EliminateEmptyTensorsOp::create(b, b.getLoc(), func);
        transform::ApplyDeadCodeEliminationOp::create(b, b.getLoc(), func);
        transform::ApplyCommonSubexpressionEliminationOp::create(b, b.getLoc(),
                                                                 func);
        Value buffers = buildBufferize(b, func);
        buildCanonicalize(b, buffers, /*cse=*/true);
        buildVectorize(b, buildMatchOps(b, buffers, "linalg.copy"));
        Value allocas = transform::MatchOp::create(
            b, transform::OperationType::get(ctx, "memref.alloca"), buffers,
            b.getStrArrayAttr({"memref.alloca"}), /*interface=*/nullptr,
            /*op_attrs=*/nullptr, /*filter_result_type=*/nullptr,
            /*filter_operand_types=*/nullptr);
        transform::MemRefAllocaToGlobalOp::create(b, b.getLoc(), any, any,
                                                  allocas);
        // Edge threads accumulate in a private copy of their C tile; the
        // interior's GEMMs were vectorized away, so only edges match.
        if (split)
          buildPromoteAccumulator(b, buildMatchRole(b, buffers, "root"));
        // The return op outlives the mapping and leads back to the function.
        Value ret = buildMatchOps(b, buffers, "func.return");
        // 7. Map to blocks and threads: one launch for the function, or one
        // per block-mapped loop (fill, interior, edges, softmax rows). The CPU
        // check runs blocks and threads as sequential loops instead, which
        // keeps the order the barriers enforce on the GPU.
        Value mappedFunc;
        if (cpuCheck) {
          buildForallsToParallel(b, buffers);
          mappedFunc = buildGetParent(b, ret, "func.func");
        } else if (perLoop) {
          buildMapBlockLoops(b, buffers, blocks, {bdx, bdy, 1});
          if (ops.hasSoftmax)
            buildSoftmaxRowKernel(b, buffers, problem);
          mappedFunc = buildGetParent(b, ret, "func.func");
        } else {
          Value launch =
              buildMatchOps(b, buildMapToLaunch(b, buffers), "gpu.launch");
          mappedFunc = buildGetParent(
              b, buildMapToThreads(b, launch, {bdx, bdy, 1}), "func.func");
        }
        buildApplyPatterns(
            b, mappedFunc,
            [](OpBuilder &nested, Location loc) {
              transform::ApplyCanonicalizationPatternsOp::create(nested, loc);
              transform::ApplyFoldMemrefAliasOpsPatternsOp::create(nested, loc);
            },
            /*cse=*/true);
        transform::ApplyLoopInvariantCodeMotionOp::create(
            b, b.getLoc(), buildMatchOps(b, mappedFunc, "scf.for"));
        // 8. Keep the accumulator in registers across the K loop.
        Value hoisted = transform::HoistRedundantVectorTransfersOp::create(
            b, b.getLoc(), any, mappedFunc);
        if (hasEpilogue)
          transform::MemRefEraseDeadAllocAndStoresOp::create(b, b.getLoc(),
                                                             hoisted);
        // 9. Contractions become outer products, then FMAs.
        buildApplyPatterns(
            b, hoisted,
            [](OpBuilder &nested, Location loc) {
              transform::ApplyVectorReductionToContractPatternsOp::create(
                  nested, loc);
              transform::ApplyTransferPermutationPatternsOp::create(nested,
                                                                    loc);
              transform::ApplySinkVectorPatternsOp::create(nested, loc);
              transform::ApplyCanonicalizationPatternsOp::create(nested, loc);
            },
            /*cse=*/true);
        buildApplyPatterns(
            b, hoisted,
            [](OpBuilder &nested, Location loc) {
              transform::ApplyLowerContractionPatternsOp::create(
                  nested, loc,
                  vector::VectorContractLoweringAttr::get(
                      nested.getContext(),
                      vector::VectorContractLowering::OuterProduct));
              transform::ApplyLowerOuterProductPatternsOp::create(nested, loc);
              transform::ApplyLowerTransposePatternsOp::create(
                  nested, loc, vector::VectorTransposeLoweringAttr(),
                  BoolAttr());
              transform::ApplyLowerBroadcastPatternsOp::create(nested, loc);
              transform::ApplyLowerShapeCastPatternsOp::create(nested, loc);
              transform::ApplyCanonicalizationPatternsOp::create(nested, loc);
            },
            /*cse=*/true);
      });
}

/// Refuses tilings no schedule can be written for.
LogicalResult checkTiling(func::FuncOp dispatch, const SimtTiling &t) {
  if (t.blockM % t.threadM || t.blockN % t.threadN)
    return emitError(dispatch.getLoc(),
                     "block tile must be a multiple of the thread "
                     "tile");
  return success();
}

} // namespace

/// Replaces upstream's block mapping, which needs static trip counts, by
/// `transform.vibegemm.map_forall_to_grid`, which computes the grid at run
/// time.
static void mapBlocksToRuntimeGrid(transform::NamedSequenceOp sequence) {
  SmallVector<transform::MapForallToBlocks> maps;
  sequence.walk([&](transform::MapForallToBlocks op) { maps.push_back(op); });
  for (transform::MapForallToBlocks op : maps) {
    OpBuilder b(op);
    auto grid = transform::MapForallToGridOp::create(
        b, op.getLoc(), op.getResult().getType(), op.getTarget());
    op.getResult().replaceAllUsesWith(grid.getLaunch());
    op.erase();
  }
}

FailureOr<transform::NamedSequenceOp>
vibegemm::buildSimtSchedule(OpBuilder &builder, func::FuncOp dispatch,
                            const GemmProblem &problem, const SimtTiling &t,
                            StringRef sequenceName, bool cpuCheck) {
  if (failed(checkTiling(dispatch, t)))
    return failure();
  DispatchOps ops = collectRoles(dispatch);
  ImplicitLocOpBuilder b(
      NameLoc::get(builder.getStringAttr("builtin-schedule")), builder);
  // The reference runs every op in a kernel of its own. Elsewhere thread
  // tiles shrink at ragged block edges, which would give a fused epilogue's
  // private accumulator a dynamic size: such epilogues run as kernels of
  // their own too.
  GemmProblem direct = problem;
  if (t.reference || problem.m % t.blockM || problem.n % t.blockN ||
      problem.mRange)
    direct.fuseEpilogues = false;
  // The CPU check runs the kernel paths' tilings as SIMT schedules.
  transform::NamedSequenceOp sequence;
  if (t.kernel && !t.reference && !cpuCheck)
    sequence = buildKernelSchedule(b, problem, *t.kernel, ops, sequenceName);
  else if (t.staged && !t.reference)
    sequence = buildStagedSchedule(b, problem, t, ops, sequenceName, cpuCheck);
  else
    sequence = buildDirectSchedule(b, direct, t, ops, sequenceName, cpuCheck);
  // A run-time M gives run-time trip counts to the block loops along M.
  if (problem.mRange)
    mapBlocksToRuntimeGrid(sequence);
  // The parser verifies what it reads; built ops are verified here.
  for (Operation &op : sequence.getBody().front())
    if (failed(verify(&op))) {
      sequence.erase();
      return failure();
    }
  return sequence;
}

FailureOr<std::string> vibegemm::writeSimtSchedule(func::FuncOp dispatch,
                                                   const GemmProblem &problem,
                                                   const SimtTiling &t,
                                                   StringRef sequenceName,
                                                   bool cpuCheck) {
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(dispatch.getLoc());
  // A named sequence verifies only in such a module; the printer falls back
  // to the generic form for one that does not.
  (*scratch)->setAttr(transform::TransformDialect::kWithNamedSequenceAttrName,
                      UnitAttr::get(dispatch.getContext()));
  OpBuilder builder = OpBuilder::atBlockEnd(scratch->getBody());
  FailureOr<transform::NamedSequenceOp> sequence =
      buildSimtSchedule(builder, dispatch, problem, t, sequenceName, cpuCheck);
  if (failed(sequence))
    return failure();
  std::string text;
  llvm::raw_string_ostream os(text);
  sequence->print(os);
  return text;
}

//===- Analysis.cpp - Whether a block GEMM can be a wgmma kernel ----------===//
//
// Checks a bufferized block GEMM against what TMA, wgmma and the kernel's
// shared memory allow, and returns the plan the emitter builds from, or a
// refusal that says why. Builds no IR.
//
//===----------------------------------------------------------------------===//

#include "WgmmaPlan.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::vibegemm;
using namespace mlir::vibegemm::wgmma;

LogicalResult wgmma::traceToRoot(TmaOperand &op, std::string &why) {
  ViewChain chain = traceViews(op.tile);
  if (!chain.unitStrides())
    return refuse(why, "TMA operands must be unit-stride views of a buffer");
  op.offsets.assign(cast<MemRefType>(op.tile.getType()).getRank(), {});
  for (memref::SubViewOp sub : chain.subviews())
    for (auto [d, offset] : llvm::enumerate(sub.getMixedOffsets()))
      op.offsets[d].push_back(offset);
  op.root = chain.root;
  // Possibly split-K's view of a whole buffer with K split in two; the
  // analysis decides (else the expanded buffer is the root, as any other).
  if (auto expand = op.root.getDefiningOp<memref::ExpandShapeOp>())
    op.splitExpand = expand;
  return success();
}

namespace {

/// True when a tile's `size` along dimension `dim` is the whole `block`,
/// ends where `buffer` does (`offset` the tile's), or is min(block, extent
/// - offset): a ragged last tile, so TMA's clipping at the buffer's edge is
/// the tile's. A run-time extent (rows of M) is the buffer's own size.
bool endsAtBufferEdge(OpFoldResult size, OpFoldResult offset, int64_t block,
                      Value buffer, int64_t dim) {
  if (isConstantIntValue(size, block))
    return true;
  using Bounds = ValueBoundsConstraintSet;
  MLIRContext *ctx = offset.getContext();
  AffineMap sum =
      AffineMap::get(2, 0, getAffineDimExpr(0, ctx) + getAffineDimExpr(1, ctx));
  // A run-time extent (rows of M) is the buffer's own size.
  int64_t extent = cast<ShapedType>(buffer.getType()).getDimSize(dim);
  Bounds::Variable bufferEnd =
      ShapedType::isDynamic(extent)
          ? Bounds::Variable(buffer, dim)
          : Bounds::Variable(OpFoldResult(Builder(ctx).getIndexAttr(extent)));
  auto endsAtEdge = [&](const Bounds::Variable &extentFromOffset) {
    Bounds::Variable end(sum, ArrayRef<Bounds::Variable>{
                                  extentFromOffset, Bounds::Variable(offset)});
    return Bounds::compare(end, Bounds::ComparisonOperator::EQ, bufferEnd);
  };
  // A tile smaller than the block that ends at the edge (e.g. all 16 rows
  // of a decode output under a 64-row block).
  if (endsAtEdge(Bounds::Variable(size)))
    return true;
  auto value = dyn_cast<Value>(size);
  auto min = value ? value.getDefiningOp<affine::AffineMinOp>() : nullptr;
  if (!min || min.getMap().getNumResults() != 2)
    return false;
  bool blockBound = false, edgeBound = false;
  for (unsigned i = 0; i < 2; ++i) {
    AffineExpr result = min.getMap().getResult(i);
    if (auto k = dyn_cast<AffineConstantExpr>(result)) {
      blockBound |= k.getValue() == block;
      continue;
    }
    edgeBound |= endsAtEdge(
        Bounds::Variable(min.getMap().getSubMap({i}), min.getOperands()));
  }
  return blockBound && edgeBound;
}

/// TMA addresses whole row-major buffers of `rank` (their row count may be
/// dynamic) defined outside `launch`, whose rows are a multiple of 16
/// bytes; `viewers` and `rowsOf` begin the diagnostics ("TMA operands must
/// view", "output ").
LogicalResult checkTmaBuffer(Value root, unsigned rank, int64_t elementBytes,
                             gpu::LaunchOp launch, StringRef viewers,
                             StringRef rowsOf, std::string &why) {
  auto type = dyn_cast<MemRefType>(root.getType());
  // A dispatch argument is still `bufferization.to_buffer` of its tensor
  // here, typed with a general layout; plan buffers are row-major.
  bool rowMajor = type && (type.getLayout().isIdentity() ||
                           root.getDefiningOp<bufferization::ToBufferOp>());
  // Rows may be a run-time M: the runtime encodes the descriptor from the
  // plan buffer's evaluated shape, and TMA clips boxes past it.
  if (!type || type.getRank() != rank || type.isDynamicDim(rank - 1) ||
      !rowMajor || launch.getBody().isAncestor(root.getParentRegion()))
    return refuse(why, viewers + " whole row-major buffers (only their rows "
                                 "of run-time count) defined outside the "
                                 "gpu.launch");
  if (type.getDimSize(rank - 1) * elementBytes % 16)
    return refuse(why, llvm::formatv("{0}rows of {1} elements are not a "
                                     "multiple of 16 bytes, as TMA needs",
                                     rowsOf, type.getDimSize(rank - 1)));
  return success();
}

/// Finds the row, K and batch positions of an operand's map, or fails
/// when the map is not a permutation of [batch,] row, K.
LogicalResult operandDims(AffineMap map, unsigned rowDim, unsigned kDim,
                          std::optional<unsigned> batchDim, TmaOperand &op) {
  unsigned expected = 2 + (batchDim ? 1 : 0);
  if (map.getNumResults() != expected)
    return failure();
  std::optional<unsigned> row, k;
  for (auto [pos, expr] : llvm::enumerate(map.getResults())) {
    auto d = dyn_cast<AffineDimExpr>(expr);
    if (!d)
      return failure();
    if (d.getPosition() == rowDim)
      row = pos;
    else if (d.getPosition() == kDim)
      k = pos;
    else if (batchDim && d.getPosition() == *batchDim)
      op.batchPos = pos;
    else
      return failure();
  }
  if (!row || !k || (batchDim && !op.batchPos))
    return failure();
  op.rowPos = *row;
  op.kPos = *k;
  op.kMajor = *k > *row;
  return success();
}

/// The analysis of one GEMM: fills `plan` step by step, or refuses.
class WgmmaAnalysis {
public:
  WgmmaAnalysis(WgmmaPlan &plan, std::string &why) : plan(plan), why(why) {}

  LogicalResult analyse();

private:
  LogicalResult fail(const Twine &msg) { return refuse(why, msg); }
  LogicalResult analyseOperands(bool tf32);
  LogicalResult analyseTileSizes();
  LogicalResult analysePersistent();
  LogicalResult analyseCluster();
  LogicalResult analyseTmaStore();
  LogicalResult analyseTmaLoadResidual();

  WgmmaPlan &plan;
  std::string &why;
};

LogicalResult WgmmaAnalysis::analyse() {
  linalg::LinalgOp gemm = plan.gemm;
  const WgmmaOptions &opt = plan.opt;
  FailureOr<BlockGemm> facts =
      analyseBlockGemm(gemm, "wgmma", why, /*allowF8=*/true);
  if (failed(facts))
    return failure();
  if (!facts->target->hasWgmma)
    return fail(llvm::formatv("wgmma needs sm_90a; the dispatch is "
                              "scheduled for {0} (vibegemm.target)",
                              facts->target->name));
  bool tf32 = opt.precision == F32Precision::Tf32;
  if (opt.precision == F32Precision::Tf32x3)
    return fail("3xtf32 runs on gemm_to_mma_sync only");
  if (failed(checkF32Precision(*facts, tf32, "wgmma", "\"tf32\"", why)))
    return failure();
  if (facts->batchDims.size() > 1)
    return fail("the wgmma path takes at most one batch dimension");
  plan.batched = facts->batchDims.size() == 1;
  static_cast<BlockGemm &>(plan) = *facts;
  plan.elementBytes = plan.elementType.getIntOrFloatBitWidth() / 8;
  plan.blockK = kKTileBytes / plan.elementBytes;
  plan.mmaK = 32 / plan.elementBytes;
  if (failed(analyseOperands(tf32)) || failed(analyseTileSizes()))
    return failure();

  FailureOr<EpilogueChain> epilogue = analyseEpilogue(gemm, plan.launch, why);
  if (failed(epilogue))
    return failure();
  plan.chain = std::move(*epilogue);
  if (plan.persistent() && failed(analysePersistent()))
    return failure();
  if (opt.tmaStore && failed(analyseTmaStore()))
    return failure();
  if (opt.tmaLoadResidual && failed(analyseTmaLoadResidual()))
    return failure();
  if (plan.clustered())
    return analyseCluster();
  return success();
}

/// The operands' layouts, their buffers as TMA reads them, split-K, and
/// the K-tiles.
LogicalResult WgmmaAnalysis::analyseOperands(bool tf32) {
  linalg::LinalgOp gemm = plan.gemm;
  TmaOperand &lhs = plan.lhs, &rhs = plan.rhs;
  Value a = gemm.getDpsInputs()[0], bv = gemm.getDpsInputs()[1];

  // Operands are [batch,] rows, columns: the batch (tiled to 1) outermost,
  // then the two matrix dimensions in either order. Under split-K the split
  // dimension sits just outside K instead, and the operands view 2-D
  // buffers through the expand_shape that split their K.
  SmallVector<AffineMap> maps = gemm.getIndexingMapsArray();
  std::optional<unsigned> batchDim;
  if (plan.batched)
    batchDim = plan.batchDims[0];
  const char *layoutError =
      "the wgmma path takes A as [M, K] or [K, M] and B as [K, N] or [N, K], "
      "all row-major; other layouts use gemm_to_mma_sync";
  lhs.tile = a;
  rhs.tile = bv;
  if (failed(operandDims(maps[0], plan.mDim, plan.kDim, batchDim, lhs)) ||
      failed(operandDims(maps[1], plan.nDim, plan.kDim, batchDim, rhs)))
    return fail(layoutError);
  FailureOr<OutputMap> output = analyseOutputMap(gemm, plan, why);
  if (failed(output))
    return failure();
  plan.output = *output;
  for (TmaOperand *op : {&lhs, &rhs})
    if (failed(traceToRoot(*op, why)))
      return failure();
  // Split-K: both operands view buffers whose K the batch-like dimension
  // splits, just outside K. Any other expand_shape is a buffer like others.
  auto splitsK = [&](TmaOperand &op) {
    if (!op.splitExpand || !plan.batched || *op.batchPos + 1 != op.kPos)
      return false;
    auto expanded = op.splitExpand.getResultType();
    return expanded.getRank() == 3 && expanded.hasStaticShape() &&
           llvm::all_of(op.splitExpand.getReassociationIndices(),
                        [&](const ReassociationIndices &g) {
                          return g.size() == 1 ||
                                 (g.size() == 2 &&
                                  g[0] == static_cast<int64_t>(*op.batchPos) &&
                                  g[1] == static_cast<int64_t>(op.kPos));
                        });
  };
  plan.splitK = splitsK(lhs) && splitsK(rhs);
  if (plan.splitK) {
    for (TmaOperand *op : {&lhs, &rhs}) {
      Value source = op->splitExpand.getSrc();
      while (auto cast = source.getDefiningOp<memref::CastOp>())
        source = cast.getSource();
      op->root = source;
      int64_t chunk = op->splitExpand.getResultType().getDimSize(op->kPos);
      if (plan.kChunk && chunk != plan.kChunk)
        return fail("both operands must split K into the same chunks");
      plan.kChunk = chunk;
    }
    // A K-tile must not read into the next split's chunk.
    if (plan.kChunk % plan.blockK)
      return fail(llvm::formatv("split-K chunks of {0} are not a multiple of "
                                "the {1}-wide K-tiles",
                                plan.kChunk, plan.blockK));
  } else if (plan.batched && (*lhs.batchPos != 0 || *rhs.batchPos != 0)) {
    return fail(layoutError);
  }
  plan.lhsKMajor = lhs.kMajor;
  plan.rhsKMajor = rhs.kMajor;
  // wgmma reads TF32 from shared memory K-major only (no transpose).
  if (tf32 && (!plan.lhsKMajor || !plan.rhsKMajor))
    return fail("TF32 wgmma reads both operands K-major: A stored [M, K] "
                "and B stored [N, K] (x * W^T); other layouts take "
                "gemm_to_mma_sync {f32_precision = \"tf32\"}");
  // So does FP8, and no other path takes it.
  if (isFloat8(plan.elementType) && (!plan.lhsKMajor || !plan.rhsKMajor))
    return fail("FP8 wgmma reads both operands K-major: A stored [M, K] "
                "and B stored [N, K] (x * W^T, as FP8 weights are kept); "
                "transpose the other layouts before the GEMM");
  unsigned rootRank = plan.tma3d() ? 3 : 2;
  for (TmaOperand *op : {&lhs, &rhs}) {
    if (failed(checkTmaBuffer(op->root, rootRank, plan.elementBytes,
                              plan.launch, "TMA operands must view", "", why)))
      return failure();
    if (plan.batched &&
        cast<MemRefType>(op->tile.getType()).getDimSize(*op->batchPos) != 1)
      return fail("batch dimensions must be tiled to 1 first");
  }
  // The K loop runs over the whole K of both buffers (of the split's chunk
  // under split-K). A buffer of align_operand_rows may be longer along K:
  // its tail is zero, and reading it adds nothing.
  auto lhsType = cast<MemRefType>(a.getType());
  int64_t kTotal = lhsType.isDynamicDim(lhs.kPos)
                       ? ShapedType::kDynamic
                       : lhsType.getDimSize(lhs.kPos);
  auto spansK = [&](const TmaOperand &op) {
    auto tileType = cast<MemRefType>(op.tile.getType());
    unsigned k = op.kPos;
    if (tileType.isDynamicDim(k) || tileType.getDimSize(k) != kTotal)
      return false;
    auto fromZero = llvm::all_of(op.offsets[k], [](OpFoldResult offset) {
      return isConstantIntValue(offset, 0);
    });
    if (plan.splitK)
      return kTotal == plan.kChunk && fromZero;
    int64_t rootK = cast<MemRefType>(op.root.getType()).getDimSize(k);
    if (rootK == kTotal)
      return true;
    // A row-aligned copy whose data ends where this K does: past it, zeros.
    Operation *def = op.root.getDefiningOp();
    auto dataColumns =
        def ? def->getAttrOfType<IntegerAttr>(kZeroPaddedAttr) : nullptr;
    bool zeroTail = dataColumns && dataColumns.getInt() == kTotal &&
                    k + 1 == static_cast<unsigned>(tileType.getRank());
    return zeroTail && fromZero;
  };
  if (!spansK(lhs) || !spansK(rhs))
    return fail("the block tile must span the whole K of its operands");
  plan.kTileCount = llvm::divideCeil(kTotal, plan.blockK);
  return success();
}

/// The block tile, the consumers' share of it, and the ring's shared
/// memory.
LogicalResult WgmmaAnalysis::analyseTileSizes() {
  const WgmmaOptions &opt = plan.opt;
  Value a = plan.gemm.getDpsInputs()[0], bv = plan.gemm.getDpsInputs()[1];
  FailureOr<int64_t> mBound = upperBound(a, plan.lhs.rowPos);
  FailureOr<int64_t> nBound = upperBound(bv, plan.rhs.rowPos);
  if (failed(mBound) || failed(nBound))
    return fail("cannot bound the block tile's extent statically");
  plan.blockM = llvm::alignTo(*mBound, 64 * plan.slotConsumers());
  plan.blockN = llvm::alignTo(*nBound, kBoxN);
  plan.rowsPerConsumer = plan.blockM / plan.slotConsumers();
  if (plan.blockM > 256 || plan.blockN > 256)
    return fail(llvm::formatv("a {0}x{1} block tile is larger than TMA "
                              "boxes and wgmma allow (256x256)",
                              plan.blockM, plan.blockN));
  // A thread holds rows * N / 128 accumulators.
  if (plan.rowsPerConsumer * plan.blockN / kWarpgroup > 128)
    return fail(llvm::formatv("each consumer warpgroup would hold a {0}x{1} "
                              "accumulator, {2} registers per thread (at most "
                              "128); add consumers",
                              plan.rowsPerConsumer, plan.blockN,
                              plan.rowsPerConsumer * plan.blockN / kWarpgroup));
  // ptxas compiles the whole kernel within the registers a thread starts
  // with (the register file over the block's threads; setmaxnreg does not
  // raise that bound): three consumers' 512 threads start with 128, and a
  // 64x256 accumulator (128 registers) with its addressing asked for 154
  // (ptxas 13.0, C7602). Two consumers start with 168.
  int64_t accumulators = plan.rowsPerConsumer * plan.blockN / kWarpgroup;
  int64_t entry = plan.target->registersPerSm / plan.threads() / 8 * 8;
  if (accumulators + kAccumulatorOverhead > entry)
    return fail(llvm::formatv(
        "{0} consumer warpgroups ({1} threads) start with {2} registers a "
        "thread, and ptxas compiles the kernel within them: a {3}x{4} "
        "accumulator ({5} registers) and its addressing need about {6}; take "
        "fewer consumers or a narrower block tile",
        opt.consumers, plan.threads(), entry, plan.rowsPerConsumer, plan.blockN,
        accumulators, accumulators + kAccumulatorOverhead));
  plan.lhs.boxRows = plan.lhsKMajor ? plan.blockM : plan.blockK;
  plan.rhs.boxRows =
      plan.rhsKMajor ? plan.blockN / opt.clusterRows : plan.blockK;
  return checkRingFits(*plan.target, opt.stages, plan.sharedBytes(), why);
}

LogicalResult WgmmaAnalysis::analyseCluster() {
  const WgmmaOptions &opt = plan.opt;
  gpu::LaunchOp launch = plan.launch;
  if (launch->hasAttr(kClusterShapeAttr) || launch.hasClusterSize())
    return fail("the launch already has a cluster shape");
  std::optional<int64_t> y =
      getConstantIntValue(launch.getGridSizeOperandValues().y);
  if (!y || *y % opt.clusterRows)
    return fail(llvm::formatv("clusters of {0} rows need a constant grid y "
                              "that is a multiple of {0}",
                              opt.clusterRows));
  if (!plan.rhsKMajor && (plan.blockN / kBoxN) % opt.clusterRows)
    return fail(llvm::formatv("B stored [K, N] is loaded in 64-column boxes: "
                              "a {0}-column tile does not split into {1} "
                              "halves of whole boxes",
                              plan.blockN, opt.clusterRows));
  // The blocks of a cluster differ only in their y id; they share B's
  // K-tiles only if B's tile origin does not depend on it.
  Block &body = launch.getBody().front();
  Value blockY = launch.getBlockIds().y;
  SmallVector<Value> worklist;
  for (ArrayRef<OpFoldResult> offsets : plan.rhs.offsets)
    for (OpFoldResult offset : offsets)
      if (auto value = dyn_cast<Value>(offset))
        worklist.push_back(value);
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    Operation *def = value.getDefiningOp();
    auto id = dyn_cast_or_null<gpu::BlockIdOp>(def);
    if (value == blockY || (id && id.getDimension() == gpu::Dimension::y))
      return fail("B's tile origin depends on the block's y id, so the "
                  "blocks of a cluster would not share B (apply group_blocks "
                  "after gemm_to_wgmma)");
    if (!def || !body.getParentOp()->isAncestor(def) ||
        !seen.insert(def).second)
      continue;
    def->walk([&](Operation *nested) {
      llvm::append_range(worklist, nested->getOperands());
    });
  }
  return success();
}

LogicalResult WgmmaAnalysis::analyseTmaStore() {
  const WgmmaOptions &opt = plan.opt;
  const EpilogueChain &chain = plan.chain;
  TmaOperand &out = plan.out;
  if (!plan.persistent())
    return fail("tma_store needs persistent_blocks");
  if (plan.splitK)
    return fail("tma_store writes the GEMM's output; split-K's partials "
                "finish through their staging tile");
  // The buffers the epilogue writes (block-local ones stay in registers).
  llvm::SetVector<Value> written;
  if (!isBlockLocalAllocation(chain.accumulator))
    written.insert(chain.accumulator);
  for (linalg::GenericOp op : chain.ops)
    if (!isBlockLocalAllocation(op.getDpsInits()[0]))
      written.insert(op.getDpsInits()[0]);
  if (written.size() != 1)
    return fail(llvm::formatv("tma_store writes one output; this epilogue "
                              "writes {0} buffers",
                              written.size()));
  out.tile = written.front();
  auto tileType = cast<MemRefType>(out.tile.getType());
  AffineMap accMap = plan.gemm.getIndexingMapsArray()[2];
  unsigned rank = plan.outRank();
  if (tileType.getRank() != rank ||
      resultPosition(accMap, plan.mDim) != rank - 2 ||
      resultPosition(accMap, plan.nDim) != rank - 1 ||
      (plan.batched && (resultPosition(accMap, plan.batchDims[0]) != 0u ||
                        tileType.getDimSize(0) != 1)))
    return fail("tma_store writes an [M, N] output, or [batch, M, N] with "
                "the batch tiled to 1");
  plan.outType = tileType.getElementType();
  if (!plan.outType.isF32() && !plan.outType.isF16() && !plan.outType.isBF16())
    return fail("tma_store writes f32, f16 or bf16 outputs");
  plan.outBytes = plan.outType.getIntOrFloatBitWidth() / 8;
  if (failed(traceToRoot(out, why)))
    return failure();
  if (failed(checkTmaBuffer(out.root, rank, plan.outBytes, plan.launch,
                            "tma_store writes views of", "output ", why)))
    return failure();
  // TMA stores whole 64-row boxes, clipped only at the buffer's edges: a
  // tile smaller than the block must end where the buffer does (a ragged
  // last tile as tiling makes it), or its boxes would write the next
  // tile's rows or past the output inside a larger buffer.
  auto sub = out.tile.getDefiningOp<memref::SubViewOp>();
  Value source = sub ? sub.getSource() : Value();
  while (auto cast = source ? source.getDefiningOp<memref::CastOp>() : nullptr)
    source = cast.getSource();
  // The whole buffer, through casts only, ends at its own edges.
  bool wholeBuffer = llvm::all_of(
      out.offsets, [](const auto &offsets) { return offsets.empty(); });
  for (unsigned d = rank - 2; d < rank; ++d) {
    int64_t block = d == rank - 2 ? plan.blockM : plan.blockN;
    if (wholeBuffer ||
        (!tileType.isDynamicDim(d) && tileType.getDimSize(d) == block))
      continue;
    if (!sub || source != out.root ||
        !endsAtBufferEdge(sub.getMixedSizes()[d], sub.getMixedOffsets()[d],
                          block, out.root, d))
      return fail(llvm::formatv(
          "tma_store stores whole {0}x{1} tiles, or ragged ones ending at "
          "the output's edge (min(block, extent - offset)); this output "
          "tile's {2} are neither",
          plan.blockM, plan.blockN, d == rank - 2 ? "rows" : "columns"));
  }
  // The widest pass of whole boxes whose staging fits beside the ring.
  for (int64_t columns = plan.blockN; columns >= plan.boxColumns();
       columns -= plan.boxColumns()) {
    if (plan.blockN % columns)
      continue;
    plan.tmaPassColumns = columns;
    if (plan.sharedBytes() <= plan.target->maxSharedBytesPerBlock)
      break;
  }
  if (plan.sharedBytes() > plan.target->maxSharedBytesPerBlock)
    return fail(llvm::formatv("the {0}-stage ring and the TMA staging "
                              "tiles need {1} bytes of shared memory (at "
                              "most {2} on {3})",
                              opt.stages, plan.sharedBytes(),
                              plan.target->maxSharedBytesPerBlock,
                              plan.target->name));
  return success();
}

LogicalResult WgmmaAnalysis::analyseTmaLoadResidual() {
  const WgmmaOptions &opt = plan.opt;
  const EpilogueChain &chain = plan.chain;
  // Where the output's element sits in the epilogue's indices: its map in
  // the generic that writes it, or the accumulator's own (identity).
  unsigned rank = plan.outRank();
  AffineMap outMap =
      AffineMap::getMultiDimIdentityMap(rank, plan.gemm.getContext());
  llvm::SmallPtrSet<Value, 8> registers = {chain.accumulator};
  for (linalg::GenericOp op : chain.ops) {
    OpOperand *init = op.getDpsInitOperand(0);
    registers.insert(init->get());
    if (init->get() == plan.out.tile)
      outMap = op.getMatchingIndexingMap(init);
  }
  llvm::SetVector<Value> residuals;
  for (linalg::GenericOp op : chain.ops)
    for (OpOperand *input : op.getDpsInputOperands()) {
      Value value = input->get();
      auto type = dyn_cast<MemRefType>(value.getType());
      if (registers.contains(value) || isBlockLocalAllocation(value) || !type ||
          type.getElementType() != plan.outType || type.getRank() != rank ||
          op.getMatchingIndexingMap(input) != outMap)
        continue;
      residuals.insert(value);
    }
  if (residuals.empty())
    return fail(llvm::formatv("tma_load_residual found no epilogue input "
                              "indexed and typed as the output ({0})",
                              plan.outType));
  if (residuals.size() > 1)
    return fail(llvm::formatv("tma_load_residual loads one input through the "
                              "staging tile; this epilogue reads {0}",
                              residuals.size()));
  // A second pass would load and wait while the later columns'
  // accumulators are live, and ptxas then serialised every wgmma (C7520).
  if (plan.tmaPassColumns != plan.blockN)
    return fail(llvm::formatv(
        "tma_load_residual stages the whole {0}x{1} tile at once; beside "
        "the {2}-stage ring there is room for {3} columns (use fewer stages)",
        plan.blockM, plan.blockN, opt.stages, plan.tmaPassColumns));
  TmaOperand &residual = plan.residual;
  residual.tile = residuals.front();
  if (plan.batched &&
      cast<MemRefType>(residual.tile.getType()).getDimSize(0) != 1)
    return fail("tma_load_residual needs the batch tiled to 1");
  if (failed(traceToRoot(residual, why)))
    return failure();
  // TMA zero-fills past the buffer's edges; rows read past a ragged tile
  // inside the buffer go unused, as the stores clip there.
  return checkTmaBuffer(residual.root, rank, plan.outBytes, plan.launch,
                        "tma_load_residual reads views of", "residual ", why);
}

LogicalResult WgmmaAnalysis::analysePersistent() {
  const WgmmaOptions &opt = plan.opt;
  const EpilogueChain &chain = plan.chain;
  gpu::LaunchOp launch = plan.launch;
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  std::optional<int64_t> x = getConstantIntValue(grid.x);
  std::optional<int64_t> y = getConstantIntValue(grid.y);
  std::optional<int64_t> z = getConstantIntValue(grid.z);
  // Rows of tiles over a run-time M are counted on the host; the blocks
  // loop over as many tiles as there are then.
  if (!x || !z || (!y && plan.clustered()))
    return fail("a persistent kernel needs a launch grid of constant size "
                "(grid y, the rows of M tiles, may be a run-time size "
                "without clusters)");
  plan.gridX = *x;
  plan.gridZ = *z;
  if (y) {
    plan.gridY = *y;
    plan.tileCount = plan.gridX * plan.gridY * plan.gridZ;
    plan.blocks = std::min(opt.persistentBlocks, plan.tileCount);
  } else {
    plan.runtimeGridY = grid.y;
    plan.gridY = plan.tileCount = 0;
    plan.blocks = opt.persistentBlocks;
  }
  // Clusters take the tiles in pairs (analyseCluster checks they pair up).
  if (plan.clustered())
    plan.blocks = std::max(opt.clusterRows,
                           plan.blocks / opt.clusterRows * opt.clusterRows);
  // The consumers run the launch body once per tile, so it may only
  // compute views and indices besides the GEMM, its epilogue and their
  // block-local buffers.
  llvm::SmallPtrSet<Operation *, 8> kernelOps(chain.ops.begin(),
                                              chain.ops.end());
  kernelOps.insert(plan.gemm);
  if (chain.init)
    kernelOps.insert(chain.init);
  Block &body = launch.getBody().front();
  for (Operation &op : body.without_terminator()) {
    plan.bodyOps.push_back(&op);
    auto dealloc = dyn_cast<memref::DeallocOp>(op);
    if (kernelOps.contains(&op) || isMemoryEffectFree(&op) ||
        (op.getNumResults() == 1 && isBlockLocalAllocation(op.getResult(0))) ||
        (dealloc && isBlockLocalAllocation(dealloc.getMemref())))
      continue;
    return fail(llvm::formatv("a persistent kernel runs the launch body once "
                              "per tile, and '{0}' in it has side effects",
                              op.getName()));
  }
  // The producer clones what its tile origins are computed from.
  BackwardSliceOptions options;
  options.inclusive = true;
  options.omitBlockArguments = true;
  options.filter = [&](Operation *op) { return op->getBlock() == &body; };
  for (TmaOperand *op : {&plan.lhs, &plan.rhs})
    for (ArrayRef<OpFoldResult> offsets : op->offsets)
      for (OpFoldResult offset : offsets)
        if (auto value = dyn_cast<Value>(offset))
          if (Operation *def = value.getDefiningOp();
              def && def->getBlock() == &body &&
              failed(getBackwardSlice(def, &plan.producerSlice, options)))
            return fail("cannot trace the operands' tile origins");
  return success();
}

} // namespace

FailureOr<WgmmaPlan> wgmma::analyseWgmma(linalg::LinalgOp gemm,
                                         const WgmmaOptions &options,
                                         std::string &why) {
  WgmmaPlan plan;
  plan.gemm = gemm;
  plan.opt = options;
  if (failed(WgmmaAnalysis(plan, why).analyse()))
    return failure();
  return plan;
}

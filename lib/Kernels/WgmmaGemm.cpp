//===- WgmmaGemm.cpp - A block's GEMM tile as a Hopper wgmma kernel -------===//
//
// Warp specialisation: the last warpgroup is the producer, whose first
// thread streams 64-wide K-tiles of A and B into a ring of 128-byte-swizzled
// shared-memory slots with TMA; "full" mbarriers count the bytes in and
// "empty" mbarriers hand slots back. The consumer warpgroups run wgmma on
// the slots with f32 accumulators in registers, keeping one wgmma group in
// flight. The result goes through a padded shared-memory staging tile so
// the elementwise epilogue reads rows 4 values per thread, conflict-free, and
// stores them coalesced.
//
// Persistent: a fixed number of blocks loop over the tiles. Each role runs
// its own tile loop, and the ring's slots and phases count on across
// tiles, so the producer loads the next tile while the consumers finish
// this one, each through its own staging tile past the ring (the shared
// one above would overlay the ring the producer is refilling). Ping-pong:
// the two consumers own alternate tiles and take turns at the main loop.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Kernels/Kernels.h"
#include "vibegemm/Analysis/DispatchInfo.h"
#include "GemmTile.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::vibegemm;

namespace {

/// A K-tile is one 128-byte swizzle row: 128 FP8, 64 16-bit or 32 f32
/// elements (WgmmaBuilder::blockK); an MN-major B comes in boxes of 64
/// columns.
constexpr int64_t kKTileBytes = 128;
constexpr int64_t kBoxN = 64;
constexpr int64_t kWarpgroup = 128;
/// 128-byte swizzling repeats every 1024 bytes; slots start on it.
constexpr int64_t kSwizzleRepeat = 1024;
/// tma_store: an output box is 64 rows of one 128-byte swizzle row.
constexpr int64_t kOutBoxBytes = 64 * kKTileBytes;
/// Staging rows are padded by 8 floats: a half-warp's 8-byte accumulator
/// stores then cover rows 0-3 on disjoint banks (a pad of 4 gave 2-way
/// conflicts, measured by Nsight Compute on the H200).
constexpr int64_t kStagePad = 8;
/// Chunk of a staged row one thread finishes: 4 values, so the 8 threads of
/// a quarter-warp read 128 consecutive bytes (8-value chunks had 2-way
/// conflicts on the loads); a warp still stores whole rows' bytes.
constexpr int64_t kStoreChunk = 4;
/// Persistent kernels: a consumer finishes its rows in passes of at most
/// this many columns, so its staging tile fits beside a 3-stage ring of
/// 128x256 tiles.
constexpr int64_t kPersistentPassColumns = 128;
/// Named barriers: 1 joins the consumers (non-persistent staging);
/// persistent consumer c syncs its own warpgroup on 2 + c; a ping-pong
/// consumer c waits for its turn on 4 + c.
constexpr int64_t kConsumersBarrier = 1;
constexpr int64_t kFirstConsumerBarrier = 2;
constexpr int64_t kFirstTurnBarrier = 4;
/// Registers a producer thread keeps after `setmaxnreg`, and the most a
/// consumer thread takes.
constexpr int64_t kProducerRegisters = 40;
constexpr int64_t kMaxConsumerRegisters = 232;
/// Registers a thread starts with in a one-consumer kernel (256 threads,
/// where ptxas cannot derive it and would ignore `setmaxnreg`); what it
/// derives for two consumers' 384.
constexpr int64_t kOneConsumerEntryRegisters = 168;
/// Ticks before a try_wait suspends and retries (PTX's suggestion).
constexpr int64_t kWaitTicks = 10000000;

/// An operand as TMA reads it: the whole buffer and where the block's tile
/// starts in it.
struct TmaOperand {
  Value tile;
  Value root;
  /// Offsets of every subview between root and tile, per dimension.
  SmallVector<SmallVector<OpFoldResult>> offsets;
  int64_t boxRows = 0; // rows of one box; the box is 64 elements wide
  Value descriptor;
  /// Split-K: the expand_shape that splits the buffer's K into
  /// [split, K / split] (structured.split_reduction); null otherwise.
  memref::ExpandShapeOp splitExpand;
  /// Positions in the tile of the row (M for A, N for B), K and the batch
  /// or split dimension.
  unsigned rowPos = 0, kPos = 0;
  std::optional<unsigned> batchPos;
  /// The tile is [rows, K] (else [K, rows]) after the batch dimension.
  bool kMajor = false;
};

/// Follows subviews (unit strides, no rank change) and casts from `view`
/// to the buffer it views.
LogicalResult traceToRoot(TmaOperand &op, std::string &why) {
  Value v = op.tile;
  auto rank = cast<MemRefType>(v.getType()).getRank();
  op.offsets.assign(rank, {});
  while (Operation *def = v.getDefiningOp()) {
    if (auto sub = dyn_cast<memref::SubViewOp>(def)) {
      if (sub.getSourceType().getRank() != rank ||
          !llvm::all_of(sub.getMixedStrides(), [](OpFoldResult s) {
            return isConstantIntValue(s, 1);
          })) {
        why = "TMA operands must be unit-stride views of a buffer";
        return failure();
      }
      for (auto [d, offset] : llvm::enumerate(sub.getMixedOffsets()))
        op.offsets[d].push_back(offset);
      v = sub.getSource();
      continue;
    }
    if (auto cast = dyn_cast<memref::CastOp>(def)) {
      v = cast.getSource();
      continue;
    }
    // Possibly split-K's view of a whole buffer with K split in two; the
    // analysis decides (else the expanded buffer is the root, as any other).
    if (auto expand = dyn_cast<memref::ExpandShapeOp>(def))
      op.splitExpand = expand;
    break;
  }
  op.root = v;
  return success();
}

/// True when a tile's `size` along a dimension is the whole `block`, ends
/// where the buffer (of `extent`) does (`offset` the tile's), or is
/// min(block, extent - offset): a ragged last tile, so TMA's clipping at
/// the buffer's edge is the tile's.
bool endsAtBufferEdge(OpFoldResult size, OpFoldResult offset, int64_t block,
                      int64_t extent) {
  if (isConstantIntValue(size, block))
    return true;
  using Bounds = ValueBoundsConstraintSet;
  MLIRContext *ctx = offset.getContext();
  AffineMap sum = AffineMap::get(
      2, 0, getAffineDimExpr(0, ctx) + getAffineDimExpr(1, ctx));
  Bounds::Variable bufferEnd(OpFoldResult(Builder(ctx).getIndexAttr(extent)));
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

/// TMA addresses whole static row-major buffers of `rank` defined outside
/// `launch`, whose rows are a multiple of 16 bytes; `viewers` and `rowsOf`
/// begin the diagnostics ("TMA operands must view", "output ").
LogicalResult checkTmaBuffer(Value root, unsigned rank, int64_t elementBytes,
                             gpu::LaunchOp launch, StringRef viewers,
                             StringRef rowsOf, std::string &why) {
  auto type = dyn_cast<MemRefType>(root.getType());
  // A dispatch argument is still `bufferization.to_buffer` of its tensor
  // here, typed with a general layout; plan buffers are row-major.
  bool rowMajor = type && (type.getLayout().isIdentity() ||
                           root.getDefiningOp<bufferization::ToBufferOp>());
  if (!type || type.getRank() != rank || !type.hasStaticShape() ||
      !rowMajor || launch.getBody().isAncestor(root.getParentRegion()))
    return refuse(why, viewers + " whole static row-major buffers defined "
                                 "outside the gpu.launch");
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

class WgmmaBuilder : IndexBuilder, BlockGemm {
public:
  WgmmaBuilder(RewriterBase &rewriter, linalg::LinalgOp gemm,
               const WgmmaOptions &options)
      : IndexBuilder(rewriter, gemm.getLoc()), gemm(gemm), opt(options),
        threads(kWarpgroup * (1 + options.consumers)) {}

  LogicalResult analyse(std::string &why);
  scf::ForOp build();

private:
  bool persistent() const { return opt.persistentBlocks > 0; }
  bool clustered() const { return opt.clusterRows > 1; }
  /// A consumer thread's registers after `setmaxnreg`: what the register
  /// file leaves beside the producer's, at most 232, in steps of 8.
  int64_t consumerRegisters() const {
    int64_t free = target->registersPerSm - kWarpgroup * kProducerRegisters;
    return std::min<int64_t>(kMaxConsumerRegisters,
                             free / (kWarpgroup * opt.consumers) / 8 * 8);
  }
  /// Consumers that read each ring slot (ping-pong: the tile's owner).
  int64_t slotConsumers() const { return opt.pingPong ? 1 : opt.consumers; }
  /// This consumer's first row in the block tile.
  Value consumerFirstRow() {
    return opt.pingPong ? c(0) : mul(warpgroup, c(rowsPerConsumer));
  }
  /// Ping-pong: waits for this consumer's turn at the main loop of tile
  /// `t`, and hands the turn on once its K-tiles are issued.
  void waitForTurn(Value t);
  void passTurn(Value t);
  /// Persistent kernels: erf as a branch-free polynomial.
  void approximateBranchingErf();
  LogicalResult analysePersistent(std::string &why);
  LogicalResult analyseCluster(std::string &why);
  LogicalResult analyseTmaStore(std::string &why);
  LogicalResult analyseTmaLoadResidual(std::string &why);
  /// tma_load_residual: moves the residual's view ahead of the GEMM when
  /// what it is computed from is, so its first boxes can load before the
  /// main loop; returns whether it could.
  bool hoistResidualView();
  /// tma_load_residual: the consumer leader loads the residual's tile into
  /// the staging tile once the last stores have read it.
  void loadResidual();
  /// tma_load_residual: waits for this tile's residual.
  void waitResidual();
  /// Coordinates of a 64-row output box (innermost first), in the view
  /// `op` (the output or the residual) of its buffer.
  SmallVector<Value> boxCoordinates(TmaOperand &op, Value row, Value col);
  /// The consumers' release of ring slot `slot`: an arrive on its "empty"
  /// mbarrier, in every block of the cluster.
  void releaseSlot(Value slot);
  /// All threads of the cluster's blocks meet (release, then acquire).
  void clusterBarrier();
  /// Persistent: the loop over this block's tiles, from its block id in
  /// steps of the grid (`alternate`: a ping-pong consumer's, every other
  /// one from its own first). Maps the launch's block ids and grid sizes
  /// to the tile's in `tileValues`, and returns the tile's first ring
  /// index.
  std::pair<scf::ForOp, Value> emitTileLoop(bool alternate = false);
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  /// Parity bit of `round` as the i1 an mbarrier wait takes.
  Value parity(Value round) {
    return arith::IndexCastOp::create(b, loc, b.getI1Type(), rem(round, 2));
  }
  /// Shared memory at byte `offset` past the aligned base, as `type`.
  Value sharedView(Value offset, ArrayRef<int64_t> shape, Type element) {
    auto type = MemRefType::get(shape, element, AffineMap(), smemSpace());
    return memref::ViewOp::create(b, loc, type, dynamicSmem,
                                  add(alignedBase, offset), ValueRange{});
  }
  Attribute smemSpace() {
    return gpu::AddressSpaceAttr::get(b.getContext(),
                                      gpu::AddressSpace::Workgroup);
  }
  nvgpu::TensorMapDescriptorType tensorMapType(int64_t rows) {
    SmallVector<int64_t> shape = {rows, blockK};
    if (tma3d())
      shape.insert(shape.begin(), 1);
    return nvgpu::TensorMapDescriptorType::get(
        b.getContext(),
        MemRefType::get(shape, elementType, AffineMap(), smemSpace()),
        nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
        nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
        nvgpu::TensorMapOOBKind::OOB_ZERO,
        nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
  }
  /// Operands are 3-D tensor maps (a batch dimension, not split-K's).
  bool tma3d() const { return batched && !splitK; }
  /// Sum of the subview offsets along `dim`: the tile's origin there (as
  /// this tile's values, in a persistent producer).
  Value origin(TmaOperand &op, unsigned dim) {
    Value sum = c(0);
    for (OpFoldResult offset : op.offsets[dim])
      sum = add(sum, tileValues.lookupOrDefault(
                         getValueOrCreateConstantIndexOp(b, loc, offset)));
    return sum;
  }
  /// Ring index of K-tile `kt`: slots and phases run on across a
  /// persistent block's tiles from `kStart` (null: the first tile).
  Value ringIndex(Value kStart, Value kt) {
    return kStart ? add(kStart, kt) : kt;
  }
  SmallVector<Value> indicesFor(AffineMap map, Value row, Value col);
  /// A wgmma shared-memory matrix descriptor (128-byte swizzle) for the
  /// tile at `byteOffset` past the aligned base.
  Value matrixDescriptor(Value byteOffset, int64_t leadingBytes);

  void createDescriptors();
  void emitProducer(Value kTiles, Value kStart);
  scf::ForOp emitConsumer(Value kTiles, Value kStart);
  /// Row (within its consumer's rows) and column of a consumer thread's
  /// first accumulator value.
  std::pair<Value, Value> accumulatorOrigin();
  void stageAccumulators(scf::ForOp loop);
  void emitEpilogue();
  /// Persistent: each consumer stages its accumulators in passes of
  /// columns through its own staging tile and finishes them.
  void emitConsumerEpilogue(scf::ForOp loop);
  /// Persistent with tma_store: each consumer finishes its accumulators in
  /// registers, writes them to its swizzled staging tile in the output
  /// type, and its first thread stores the boxes with TMA.
  void emitConsumerTmaEpilogue(scf::ForOp loop);
  /// The first thread of each consumer warpgroup.
  Value consumerLeader() {
    return cmp(arith::CmpIPredicate::eq, rem(tid, kWarpgroup), c(0));
  }
  /// Waits (in the consumer leader) until its TMA stores have read their
  /// staging tile (`readOnly`) or completed.
  void waitStores(bool readOnly);
  /// Stores accumulator columns [firstColumn, firstColumn + columns) of a
  /// consumer thread's pairs to `staging` (its column 0 is firstColumn),
  /// rows from `rowBase`.
  void stagePairs(scf::ForOp loop, Value staging, Value rowBase,
                  Value colBase, int64_t firstColumn, int64_t columns);
  /// Threads firstThread, + threadCount, ... finish `rows` x `columns` of
  /// `staging` in 4-column chunks: staged (r, c) is output (rowOrigin + r,
  /// colOrigin + c) (a null rowOrigin: 0).
  void finishStaged(Value staging, int64_t rows, int64_t columns,
                    Value firstThread, int64_t threadCount, Value rowOrigin,
                    int64_t colOrigin);
  /// bar.sync on named barrier `id` (i32) of `count` threads.
  void namedBarrier(Value id, int64_t count);
  /// Finishes `count` adjacent columns of `row` from `col` (`element(e)`
  /// gives the accumulated value) and stores them: as vectors where the
  /// buffers allow, element by element where the tile may end among them.
  void storeColumns(Value row, Value col, int64_t count,
                    function_ref<Value(int64_t)> element);
  /// Epilogue for staged element `e` of a chunk: the initial value added,
  /// the chain run, the results returned per chain buffer.
  SmallVector<std::pair<Value, Value>>
  finish(Value row, Value col, Value staged,
         const DenseMap<Value, Value> *preloaded = nullptr);

  int64_t stageBytes() const {
    return (blockM * blockK + blockK * blockN) * elementBytes;
  }
  int64_t ringBytes() const { return opt.stages * stageBytes(); }
  int64_t stagingBytes() const { return blockM * (blockN + kStagePad) * 4; }
  /// Persistent: columns a consumer stages and finishes at a time (as many
  /// values as 64 rows of kPersistentPassColumns), and its staging tile
  /// (beside the ring, which the producer keeps filling).
  int64_t passColumns() const {
    return std::min<int64_t>(blockN,
                             kPersistentPassColumns * 64 / rowsPerConsumer);
  }
  int64_t consumerStagingBytes() const {
    if (opt.tmaStore)
      return rowsPerConsumer * tmaPassColumns * outBytes;
    return rowsPerConsumer * (passColumns() + kStagePad) * 4;
  }
  /// tma_store: output columns in one 128-byte box row.
  int64_t boxColumns() const { return kKTileBytes / outBytes; }
  /// tma_store: the output is [M, N], or [batch, M, N] when batched.
  unsigned outRank() const { return batched ? 3 : 2; }
  /// tma_store: a box of 64 rows, with the batch's 1 when batched.
  SmallVector<int64_t> outBox() const {
    SmallVector<int64_t> box = {64, boxColumns()};
    if (batched)
      box.insert(box.begin(), 1);
    return box;
  }
  int64_t sharedBytes() const {
    if (persistent())
      return ringBytes() + opt.consumers * consumerStagingBytes() +
             kSwizzleRepeat;
    return std::max(ringBytes(), stagingBytes()) + kSwizzleRepeat;
  }

  linalg::LinalgOp gemm;
  WgmmaOptions opt;
  int64_t threads;
  TmaOperand lhs, rhs;
  /// B stored [N, K] (nn.Linear weights) rather than [K, N].
  bool rhsKMajor = false;
  /// A stored [M, K] (else [K, M], loaded in 64-column boxes like B).
  bool lhsKMajor = true;
  /// One batch dimension, tiled to 1: operands are 3-D.
  bool batched = false;
  /// The batch-like dimension is split-K's: both operands view 2-D
  /// buffers whose K splits into [split, kChunk]; the block's K-tiles
  /// start at split index * kChunk.
  bool splitK = false;
  int64_t kChunk = 0;
  int64_t elementBytes = 2;
  /// Elements per K-tile (one 128-byte row) and per wgmma (32 bytes).
  int64_t blockK = 64, mmaK = 16;
  int64_t blockM = 0, blockN = 0, rowsPerConsumer = 0, kTileCount = 0;
  EpilogueChain chain;
  /// tma_store: the one buffer the epilogue writes, as TMA stores it, its
  /// element type and size, and the columns staged per pass.
  TmaOperand out;
  Type outType;
  int64_t outBytes = 4, tmaPassColumns = 0;
  /// tma_load_residual: the epilogue input loaded into the staging tile
  /// (same boxes as `out`), and whether its first pass loads before the
  /// main loop.
  TmaOperand residual;
  bool prefetchResidual = false;
  // Persistent kernels: the launch's grid, its body (run once per tile by
  // the consumers) and the part of it the producer clones for its origins.
  int64_t gridX = 1, gridY = 1, gridZ = 1, tileCount = 1, blocks = 1;
  SmallVector<Operation *> bodyOps;
  llvm::SetVector<Operation *> producerSlice;
  IRMapping tileValues;
  // Per-thread values, set while building.
  Value tid, warpgroup, dynamicSmem, alignedBase, smemAddress, barriers;
  /// tma_load_residual: the residual mbarrier's completions before this
  /// consumer's tile.
  Value residualRound;
  /// This block's rank in its cluster (clusters only).
  Value clusterRank;
  Value mSize, nSize;
};

LogicalResult WgmmaBuilder::analyse(std::string &why) {
  auto fail = [&](const Twine &msg) { return refuse(why, msg); };
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
  batched = facts->batchDims.size() == 1;
  static_cast<BlockGemm &>(*this) = *facts;
  elementBytes = elementType.getIntOrFloatBitWidth() / 8;
  blockK = kKTileBytes / elementBytes;
  mmaK = 32 / elementBytes;
  Value a = gemm.getDpsInputs()[0], bv = gemm.getDpsInputs()[1];

  // Operands are [batch,] rows, columns: the batch (tiled to 1) outermost,
  // then the two matrix dimensions in either order. Under split-K the split
  // dimension sits just outside K instead, and the operands view 2-D
  // buffers through the expand_shape that split their K.
  SmallVector<AffineMap> maps = gemm.getIndexingMapsArray();
  std::optional<unsigned> batchDim;
  if (batched)
    batchDim = facts->batchDims[0];
  const char *layoutError =
      "the wgmma path takes A as [M, K] or [K, M] and B as [K, N] or [N, K], "
      "all row-major; other layouts use gemm_to_mma_sync";
  lhs.tile = a;
  rhs.tile = bv;
  if (failed(operandDims(maps[0], mDim, kDim, batchDim, lhs)) ||
      failed(operandDims(maps[1], nDim, kDim, batchDim, rhs)))
    return fail(layoutError);
  std::optional<unsigned> accM = resultPosition(maps[2], mDim);
  std::optional<unsigned> accN = resultPosition(maps[2], nDim);
  if (!accM || !accN)
    return fail("the accumulator's indexing map must hold M and N");
  for (TmaOperand *op : {&lhs, &rhs})
    if (failed(traceToRoot(*op, why)))
      return failure();
  // Split-K: both operands view buffers whose K the batch-like dimension
  // splits, just outside K. Any other expand_shape is a buffer like others.
  auto splitsK = [&](TmaOperand &op) {
    if (!op.splitExpand || !batched || *op.batchPos + 1 != op.kPos)
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
  splitK = splitsK(lhs) && splitsK(rhs);
  if (splitK) {
    for (TmaOperand *op : {&lhs, &rhs}) {
      Value source = op->splitExpand.getSrc();
      while (auto cast = source.getDefiningOp<memref::CastOp>())
        source = cast.getSource();
      op->root = source;
      int64_t chunk = op->splitExpand.getResultType().getDimSize(op->kPos);
      if (kChunk && chunk != kChunk)
        return fail("both operands must split K into the same chunks");
      kChunk = chunk;
    }
    // A K-tile must not read into the next split's chunk.
    if (kChunk % blockK)
      return fail(llvm::formatv("split-K chunks of {0} are not a multiple of "
                                "the {1}-wide K-tiles",
                                kChunk, blockK));
  } else if (batched && (*lhs.batchPos != 0 || *rhs.batchPos != 0)) {
    return fail(layoutError);
  }
  lhsKMajor = lhs.kMajor;
  rhsKMajor = rhs.kMajor;
  // wgmma reads TF32 from shared memory K-major only (no transpose).
  if (tf32 && (!lhsKMajor || !rhsKMajor))
    return fail("TF32 wgmma reads both operands K-major: A stored [M, K] "
                "and B stored [N, K] (x * W^T); other layouts take "
                "gemm_to_mma_sync {f32_precision = \"tf32\"}");
  // So does FP8, and no other path takes it.
  if (isFloat8(elementType) && (!lhsKMajor || !rhsKMajor))
    return fail("FP8 wgmma reads both operands K-major: A stored [M, K] "
                "and B stored [N, K] (x * W^T, as FP8 weights are kept); "
                "transpose the other layouts before the GEMM");
  unsigned rootRank = tma3d() ? 3 : 2;
  for (TmaOperand *op : {&lhs, &rhs}) {
    if (failed(checkTmaBuffer(op->root, rootRank, elementBytes, launch,
                              "TMA operands must view", "", why)))
      return failure();
    if (batched &&
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
    if (splitK)
      return kTotal == kChunk && fromZero;
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
  kTileCount = llvm::divideCeil(kTotal, blockK);

  FailureOr<int64_t> mBound = upperBound(a, lhs.rowPos);
  FailureOr<int64_t> nBound = upperBound(bv, rhs.rowPos);
  if (failed(mBound) || failed(nBound))
    return fail("cannot bound the block tile's extent statically");
  blockM = llvm::alignTo(*mBound, 64 * slotConsumers());
  blockN = llvm::alignTo(*nBound, kBoxN);
  rowsPerConsumer = blockM / slotConsumers();
  if (blockM > 256 || blockN > 256)
    return fail(llvm::formatv("a {0}x{1} block tile is larger than TMA "
                              "boxes and wgmma allow (256x256)",
                              blockM, blockN));
  // A thread holds rows * N / 128 accumulators.
  if (rowsPerConsumer * blockN / kWarpgroup > 128)
    return fail(llvm::formatv("each consumer warpgroup would hold a {0}x{1} "
                              "accumulator, {2} registers per thread (at most "
                              "128); add consumers",
                              rowsPerConsumer, blockN,
                              rowsPerConsumer * blockN / kWarpgroup));
  lhs.boxRows = lhsKMajor ? blockM : blockK;
  rhs.boxRows = rhsKMajor ? blockN / opt.clusterRows : blockK;
  if (sharedBytes() > target->maxSharedBytesPerBlock)
    return fail(llvm::formatv("the {0}-stage ring needs {1} bytes of shared "
                              "memory (at most {2} on {3})",
                              opt.stages, sharedBytes(),
                              target->maxSharedBytesPerBlock, target->name));

  if (failed(checkLaunchUntouched(launch, why)))
    return failure();
  FailureOr<EpilogueChain> epilogue = collectEpilogue(gemm, why);
  if (failed(epilogue))
    return failure();
  chain = std::move(*epilogue);
  if (persistent() && failed(analysePersistent(why)))
    return failure();
  if (opt.tmaStore && failed(analyseTmaStore(why)))
    return failure();
  if (opt.tmaLoadResidual && failed(analyseTmaLoadResidual(why)))
    return failure();
  if (clustered())
    return analyseCluster(why);
  return success();
}

LogicalResult WgmmaBuilder::analyseCluster(std::string &why) {
  auto fail = [&](const Twine &msg) { return refuse(why, msg); };
  if (launch->hasAttr(kClusterShapeAttr) || launch.hasClusterSize())
    return fail("the launch already has a cluster shape");
  std::optional<int64_t> y =
      getConstantIntValue(launch.getGridSizeOperandValues().y);
  if (!y || *y % opt.clusterRows)
    return fail(llvm::formatv("clusters of {0} rows need a constant grid y "
                              "that is a multiple of {0}",
                              opt.clusterRows));
  if (!rhsKMajor && (blockN / kBoxN) % opt.clusterRows)
    return fail(llvm::formatv("B stored [K, N] is loaded in 64-column boxes: "
                              "a {0}-column tile does not split into {1} "
                              "halves of whole boxes",
                              blockN, opt.clusterRows));
  // The blocks of a cluster differ only in their y id; they share B's
  // K-tiles only if B's tile origin does not depend on it.
  Block &body = launch.getBody().front();
  Value blockY = launch.getBlockIds().y;
  SmallVector<Value> worklist;
  for (ArrayRef<OpFoldResult> offsets : rhs.offsets)
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

LogicalResult WgmmaBuilder::analyseTmaStore(std::string &why) {
  auto fail = [&](const Twine &msg) { return refuse(why, msg); };
  if (!persistent())
    return fail("tma_store needs persistent_blocks");
  if (splitK)
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
  AffineMap accMap = gemm.getIndexingMapsArray()[2];
  unsigned rank = outRank();
  if (tileType.getRank() != rank ||
      resultPosition(accMap, mDim) != rank - 2 ||
      resultPosition(accMap, nDim) != rank - 1 ||
      (batched && (resultPosition(accMap, batchDims[0]) != 0u ||
                   tileType.getDimSize(0) != 1)))
    return fail("tma_store writes an [M, N] output, or [batch, M, N] with "
                "the batch tiled to 1");
  outType = tileType.getElementType();
  if (!outType.isF32() && !outType.isF16() && !outType.isBF16())
    return fail("tma_store writes f32, f16 or bf16 outputs");
  outBytes = outType.getIntOrFloatBitWidth() / 8;
  if (failed(traceToRoot(out, why)))
    return failure();
  if (failed(checkTmaBuffer(out.root, rank, outBytes, launch,
                            "tma_store writes views of", "output ", why)))
    return failure();
  auto rootType = cast<MemRefType>(out.root.getType());
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
    int64_t block = d == rank - 2 ? blockM : blockN;
    if (wholeBuffer ||
        (!tileType.isDynamicDim(d) && tileType.getDimSize(d) == block))
      continue;
    if (!sub || source != out.root ||
        !endsAtBufferEdge(sub.getMixedSizes()[d], sub.getMixedOffsets()[d],
                          block, rootType.getDimSize(d)))
      return fail(llvm::formatv(
          "tma_store stores whole {0}x{1} tiles, or ragged ones ending at "
          "the output's edge (min(block, extent - offset)); this output "
          "tile's {2} are neither",
          blockM, blockN, d == rank - 2 ? "rows" : "columns"));
  }
  // The widest pass of whole boxes whose staging fits beside the ring.
  for (int64_t columns = blockN; columns >= boxColumns();
       columns -= boxColumns()) {
    if (blockN % columns)
      continue;
    tmaPassColumns = columns;
    if (sharedBytes() <= target->maxSharedBytesPerBlock)
      break;
  }
  if (sharedBytes() > target->maxSharedBytesPerBlock)
    return fail(llvm::formatv("the {0}-stage ring and the TMA staging "
                              "tiles need {1} bytes of shared memory (at "
                              "most {2} on {3})",
                              opt.stages, sharedBytes(),
                              target->maxSharedBytesPerBlock, target->name));
  return success();
}

LogicalResult WgmmaBuilder::analyseTmaLoadResidual(std::string &why) {
  auto fail = [&](const Twine &msg) { return refuse(why, msg); };
  // Where the output's element sits in the epilogue's indices: its map in
  // the generic that writes it, or the accumulator's own (identity).
  unsigned rank = outRank();
  AffineMap outMap = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  llvm::SmallPtrSet<Value, 8> registers = {chain.accumulator};
  for (linalg::GenericOp op : chain.ops) {
    OpOperand *init = op.getDpsInitOperand(0);
    registers.insert(init->get());
    if (init->get() == out.tile)
      outMap = op.getMatchingIndexingMap(init);
  }
  llvm::SetVector<Value> residuals;
  for (linalg::GenericOp op : chain.ops)
    for (OpOperand *input : op.getDpsInputOperands()) {
      Value value = input->get();
      auto type = dyn_cast<MemRefType>(value.getType());
      if (registers.contains(value) || isBlockLocalAllocation(value) ||
          !type || type.getElementType() != outType ||
          type.getRank() != rank || op.getMatchingIndexingMap(input) != outMap)
        continue;
      residuals.insert(value);
    }
  if (residuals.empty())
    return fail(llvm::formatv("tma_load_residual found no epilogue input "
                              "indexed and typed as the output ({0})",
                              outType));
  if (residuals.size() > 1)
    return fail(llvm::formatv("tma_load_residual loads one input through the "
                              "staging tile; this epilogue reads {0}",
                              residuals.size()));
  // A second pass would load and wait while the later columns'
  // accumulators are live, and ptxas then serialised every wgmma (C7520).
  if (tmaPassColumns != blockN)
    return fail(llvm::formatv(
        "tma_load_residual stages the whole {0}x{1} tile at once; beside "
        "the {2}-stage ring there is room for {3} columns (use fewer stages)",
        blockM, blockN, opt.stages, tmaPassColumns));
  residual.tile = residuals.front();
  if (batched && cast<MemRefType>(residual.tile.getType()).getDimSize(0) != 1)
    return fail("tma_load_residual needs the batch tiled to 1");
  if (failed(traceToRoot(residual, why)))
    return failure();
  // TMA zero-fills past the buffer's edges; rows read past a ragged tile
  // inside the buffer go unused, as the stores clip there.
  return checkTmaBuffer(residual.root, rank, outBytes, launch,
                        "tma_load_residual reads views of", "residual ", why);
}

LogicalResult WgmmaBuilder::analysePersistent(std::string &why) {
  auto fail = [&](const Twine &msg) { return refuse(why, msg); };
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  std::optional<int64_t> x = getConstantIntValue(grid.x);
  std::optional<int64_t> y = getConstantIntValue(grid.y);
  std::optional<int64_t> z = getConstantIntValue(grid.z);
  if (!x || !y || !z)
    return fail("a persistent kernel needs a launch grid of constant size");
  gridX = *x;
  gridY = *y;
  gridZ = *z;
  tileCount = gridX * gridY * gridZ;
  blocks = std::min(opt.persistentBlocks, tileCount);
  // Clusters take the tiles in pairs (analyseCluster checks they pair up).
  if (clustered())
    blocks = std::max(opt.clusterRows,
                      blocks / opt.clusterRows * opt.clusterRows);
  // The consumers run the launch body once per tile, so it may only
  // compute views and indices besides the GEMM, its epilogue and their
  // block-local buffers.
  llvm::SmallPtrSet<Operation *, 8> kernelOps(chain.ops.begin(),
                                              chain.ops.end());
  kernelOps.insert(gemm);
  if (chain.init)
    kernelOps.insert(chain.init);
  Block &body = launch.getBody().front();
  for (Operation &op : body.without_terminator()) {
    bodyOps.push_back(&op);
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
  for (TmaOperand *op : {&lhs, &rhs})
    for (ArrayRef<OpFoldResult> offsets : op->offsets)
      for (OpFoldResult offset : offsets)
        if (auto value = dyn_cast<Value>(offset))
          if (Operation *def = value.getDefiningOp();
              def && def->getBlock() == &body &&
              failed(getBackwardSlice(def, &producerSlice, options)))
            return fail("cannot trace the operands' tile origins");
  return success();
}

SmallVector<Value> WgmmaBuilder::indicesFor(AffineMap map, Value row,
                                            Value col) {
  SmallVector<Value> dims(numLoops);
  dims[mDim] = row;
  dims[nDim] = col;
  SmallVector<Value> indices;
  for (AffineExpr expr : map.getResults()) {
    if (auto d = dyn_cast<AffineDimExpr>(expr))
      indices.push_back(dims[d.getPosition()] ? dims[d.getPosition()] : c(0));
    else
      indices.push_back(c(cast<AffineConstantExpr>(expr).getValue()));
  }
  return indices;
}

void WgmmaBuilder::createDescriptors() {
  // Host side, before the launch: one tensor map per operand buffer.
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(launch);
  for (TmaOperand *op : {&lhs, &rhs}) {
    auto type = cast<MemRefType>(op->root.getType());
    Value unranked = memref::CastOp::create(
        b, loc, UnrankedMemRefType::get(elementType, type.getMemorySpace()),
        op->root);
    SmallVector<Value> box = {c(op->boxRows), c(blockK)};
    if (tma3d())
      box.insert(box.begin(), c(1));
    op->descriptor = nvgpu::TmaCreateDescriptorOp::create(
        b, loc, tensorMapType(op->boxRows), unranked, box);
  }
  if (!opt.tmaStore)
    return;
  // Output boxes: 64 rows of one 128-byte swizzle row each; the residual's
  // are the same.
  auto type = nvgpu::TensorMapDescriptorType::get(
      b.getContext(),
      MemRefType::get(outBox(), outType, AffineMap(), smemSpace()),
      nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
      nvgpu::TensorMapL2PromoKind::L2PROMO_NONE,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
  SmallVector<Value> box;
  for (int64_t size : outBox())
    box.push_back(c(size));
  for (TmaOperand *op : {&out, &residual}) {
    if (!op->root)
      continue;
    Value unranked = memref::CastOp::create(
        b, loc,
        UnrankedMemRefType::get(
            outType, cast<MemRefType>(op->root.getType()).getMemorySpace()),
        op->root);
    op->descriptor =
        nvgpu::TmaCreateDescriptorOp::create(b, loc, type, unranked, box);
  }
}

void WgmmaBuilder::emitProducer(Value kTiles, Value kStart) {
  Value leader =
      cmp(arith::CmpIPredicate::eq, tid, c(kWarpgroup * opt.consumers));
  auto ifLeader = scf::IfOp::create(b, loc, leader, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifLeader.getThenRegion().front());
  Value mOrigin = origin(lhs, lhs.rowPos);
  Value nOrigin = origin(rhs, rhs.rowPos);
  // Split-K: this block's chunk of K starts at split index * chunk.
  Value kBase = splitK ? mul(origin(lhs, *lhs.batchPos), c(kChunk)) : c(0);
  // Batched operands are 3-D tensor maps with a batch box of 1, addressed
  // by the batch index last (coordinates run innermost first).
  auto coords = [&](TmaOperand &op, Value x, Value y) {
    SmallVector<Value> xy = {x, y};
    if (tma3d())
      xy.push_back(origin(op, *op.batchPos));
    return xy;
  };
  auto box = [&](ArrayRef<int64_t> shape) {
    SmallVector<int64_t> dims(shape);
    if (tma3d())
      dims.insert(dims.begin(), 1);
    return dims;
  };
  auto loop = scf::ForOp::create(b, loc, c(0), kTiles, c(1));
  b.setInsertionPointToStart(loop.getBody());
  Value kt = loop.getInductionVar();
  Value ring = ringIndex(kStart, kt);
  Value slot = rem(ring, opt.stages);
  // From the second round on, wait until the consumers freed the slot.
  Value reuse = cmp(arith::CmpIPredicate::uge, ring, c(opt.stages));
  auto ifReuse = scf::IfOp::create(b, loc, reuse, /*withElse=*/false);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(&ifReuse.getThenRegion().front());
    Value round = arith::SubIOp::create(b, loc, div(ring, opt.stages), c(1));
    nvgpu::MBarrierTryWaitParityOp::create(b, loc, barriers, parity(round),
                                           c(kWaitTicks),
                                           add(slot, c(opt.stages)));
  }
  nvgpu::MBarrierArriveExpectTxOp::create(b, loc, barriers, c(stageBytes()),
                                          slot, Value());
  Value k = add(kBase, mul(kt, c(blockK)));
  Value slotBase = mul(slot, c(stageBytes()));
  // TMA coordinates run innermost first. Operands stored K-major take one
  // box of tile rows x 64; the others boxes of 64 K-rows x 64 columns,
  // 8 KiB apart.
  if (lhsKMajor)
    nvgpu::TmaAsyncLoadOp::create(
        b, loc, sharedView(slotBase, box({blockM, blockK}), elementType),
        barriers, lhs.descriptor, coords(lhs, k, mOrigin), slot, Value(),
        Value());
  else
    for (int64_t j = 0; j < blockM / kBoxN; ++j)
      nvgpu::TmaAsyncLoadOp::create(
          b, loc,
          sharedView(add(slotBase, c(j * blockK * kBoxN * elementBytes)),
                     box({blockK, kBoxN}), elementType),
          barriers, lhs.descriptor,
          coords(lhs, add(mOrigin, c(j * kBoxN)), k), slot, Value(), Value());
  Value bBase = add(slotBase, c(blockM * blockK * elementBytes));
  // In a cluster, this block loads its part of B's K-tile (rows, or
  // 64-column boxes, in rank order) into the same slot of every block.
  Value multicast, firstRow = c(0);
  int64_t rows = blockN / opt.clusterRows;
  if (clustered()) {
    multicast = arith::ConstantIntOp::create(
        b, loc, (1 << opt.clusterRows) - 1, 16);
    firstRow = mul(clusterRank, c(rows));
  }
  if (rhsKMajor) {
    nvgpu::TmaAsyncLoadOp::create(
        b, loc,
        sharedView(add(bBase, mul(firstRow, c(blockK * elementBytes))),
                   box({rows, blockK}), elementType),
        barriers, rhs.descriptor, coords(rhs, k, add(nOrigin, firstRow)), slot,
        multicast, Value());
    return;
  }
  for (int64_t j = 0; j < rows / kBoxN; ++j) {
    Value column = add(firstRow, c(j * kBoxN));
    Value offset = add(bBase, mul(column, c(blockK * elementBytes)));
    nvgpu::TmaAsyncLoadOp::create(
        b, loc, sharedView(offset, box({blockK, kBoxN}), elementType),
        barriers, rhs.descriptor, coords(rhs, add(nOrigin, column), k), slot,
        multicast, Value());
  }
}

Value WgmmaBuilder::matrixDescriptor(Value byteOffset, int64_t leadingBytes) {
  // 14-bit fields in 16-byte units: start address, leading and stride byte
  // offsets (eight 128-byte rows); bits 62-63 = 1 select the 128-byte
  // swizzle. The constant fields are folded into one mask.
  uint64_t fixed = (uint64_t(leadingBytes >> 4) << 16) |
                   (uint64_t(kSwizzleRepeat >> 4) << 32) | (uint64_t(1) << 62);
  Value address = add(smemAddress, byteOffset);
  Value field = rem(div(address, 16), 1 << 14);
  Value i64 = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), field);
  return arith::OrIOp::create(
      b, loc, i64,
      arith::ConstantIntOp::create(b, loc, static_cast<int64_t>(fixed), 64));
}

scf::ForOp WgmmaBuilder::emitConsumer(Value kTiles, Value kStart) {
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  // One m64nBNk16 accumulator (BN / 2 f32 per thread) per 64 rows owned.
  int64_t groups = rowsPerConsumer / 64;
  auto accType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(blockN / 2, f32));
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
  Value zeros = LLVM::PoisonOp::create(b, loc, accType);
  for (int64_t e = 0; e < blockN / 2; ++e)
    zeros = LLVM::InsertValueOp::create(b, loc, zeros, zero, e);
  Value signals = cmp(arith::CmpIPredicate::eq, rem(tid, kWarpgroup), c(0));
  auto loop = scf::ForOp::create(b, loc, c(0), kTiles, c(1),
                                 SmallVector<Value>(groups, zeros));
  auto wgmmaType = elementType.isF32()                ? NVVM::WGMMATypes::tf32
                   : elementType.isF16()              ? NVVM::WGMMATypes::f16
                   : elementType.isBF16()             ? NVVM::WGMMATypes::bf16
                   : isa<Float8E4M3FNType>(elementType) ? NVVM::WGMMATypes::e4m3
                                                      : NVVM::WGMMATypes::e5m2;
  auto typeAttr = NVVM::WGMMATypesAttr::get(ctx, wgmmaType);
  auto layout = [&](NVVM::MMALayout l) {
    return NVVM::MMALayoutAttr::get(ctx, l);
  };
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kt = loop.getInductionVar();
    Value ring = ringIndex(kStart, kt);
    Value slot = rem(ring, opt.stages);
    nvgpu::MBarrierTryWaitParityOp::create(b, loc, barriers,
                                           parity(div(ring, opt.stages)),
                                           c(kWaitTicks), slot);
    Value slotBase = mul(slot, c(stageBytes()));
    Value aBase =
        add(slotBase, mul(consumerFirstRow(), c(blockK * elementBytes)));
    Value bBase = add(slotBase, c(blockM * blockK * elementBytes));
    SmallVector<Value> acc(loop.getRegionIterArgs());
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
    // K-major tiles step 32 bytes along the swizzled row; tiles stored
    // with K outermost step 16 rows, and their 64-column boxes are 8 KiB
    // apart. 64 rows of a K-major A and one box of an MN-major A are both
    // 8 KiB.
    auto operandDescriptor = [&](Value base, bool kMajor, int64_t step) {
      return kMajor ? matrixDescriptor(add(base, c(step * 32)), 16)
                    : matrixDescriptor(add(base, c(step * 16 * 128)),
                                       blockK * kBoxN * elementBytes);
    };
    for (int64_t step = 0; step < blockK / mmaK; ++step) {
      Value bDesc = operandDescriptor(bBase, rhsKMajor, step);
      for (int64_t g = 0; g < groups; ++g) {
        Value aDesc = operandDescriptor(
            add(aBase, c(g * blockK * kBoxN * elementBytes)), lhsKMajor, step);
        acc[g] = NVVM::WgmmaMmaAsyncOp::create(
            b, loc, accType, acc[g], aDesc, bDesc,
            NVVM::MMAShapeAttr::get(ctx, 64, blockN, mmaK), typeAttr, typeAttr,
            NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
            NVVM::WGMMAScaleOutAttr::get(ctx, NVVM::WGMMAScaleOut::one),
            NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
            NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
            // Layouts as BLAS names them: A [M, K] row-major (column-major
            // when stored [K, M]); B [K, N] row-major, or column-major when
            // stored [N, K].
            layout(lhsKMajor ? NVVM::MMALayout::row : NVVM::MMALayout::col),
            layout(rhsKMajor ? NVVM::MMALayout::col : NVVM::MMALayout::row),
            NVVM::MMAIntOverflowAttr());
      }
    }
    // One group stays in flight: once this K-tile's group is issued, the
    // previous one is done and its slot goes back to the producer.
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, b.getI64IntegerAttr(1));
    Value release = both(signals, cmp(arith::CmpIPredicate::ugt, kt, c(0)));
    auto ifRelease = scf::IfOp::create(b, loc, release, /*withElse=*/false);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(&ifRelease.getThenRegion().front());
      releaseSlot(rem(arith::SubIOp::create(b, loc, ring, c(1)), opt.stages));
    }
    scf::YieldOp::create(b, loc, acc);
  }
  loop->setAttr("k_loop", b.getUnitAttr());
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, b.getI64IntegerAttr(0));
  if (kStart) {
    // The producer refills the tile's last slot with the next tile's.
    auto ifRelease = scf::IfOp::create(b, loc, signals, /*withElse=*/false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(&ifRelease.getThenRegion().front());
    releaseSlot(rem(add(kStart, c(kTileCount - 1)), opt.stages));
  }
  return loop;
}

std::pair<Value, Value> WgmmaBuilder::accumulatorOrigin() {
  // Accumulator layout of m64nNk16: warp w of the warpgroup holds rows
  // 16w + lane / 4 (+ 8), values 4j..4j+3 columns 8j + 2 (lane % 4) (+ 1).
  Value lane = rem(tid, 32);
  Value row = add(mul(rem(div(tid, 32), 4), c(16)), div(lane, 4));
  Value colBase = mul(rem(lane, 4), c(2));
  return {row, colBase};
}

void WgmmaBuilder::stageAccumulators(scf::ForOp loop) {
  Type f32 = b.getF32Type();
  // Other consumers may still read the last slots, which the staging tile
  // overlays.
  if (opt.consumers > 1)
    namedBarrier(arith::ConstantIntOp::create(b, loc, kConsumersBarrier, 32),
                 kWarpgroup * opt.consumers);
  Value staging = sharedView(c(0), {blockM, blockN + kStagePad}, f32);
  auto [row, colBase] = accumulatorOrigin();
  Value rowBase = add(mul(warpgroup, c(rowsPerConsumer)), row);
  stagePairs(loop, staging, rowBase, colBase, 0, blockN);
}

void WgmmaBuilder::stagePairs(scf::ForOp loop, Value staging, Value rowBase,
                              Value colBase, int64_t firstColumn,
                              int64_t columns) {
  auto pairType = VectorType::get({2}, b.getF32Type());
  for (int64_t g = 0; g < rowsPerConsumer / 64; ++g)
    for (int64_t j = firstColumn / 8; j < (firstColumn + columns) / 8; ++j)
      for (int64_t half = 0; half < 2; ++half) {
        int64_t index = 4 * j + 2 * half;
        Value first = LLVM::ExtractValueOp::create(b, loc, loop.getResult(g),
                                                   index);
        Value second = LLVM::ExtractValueOp::create(b, loc, loop.getResult(g),
                                                    index + 1);
        Value pair = vector::FromElementsOp::create(
            b, loc, pairType, ValueRange{first, second});
        vector::StoreOp::create(
            b, loc, pair, staging,
            ValueRange{add(rowBase, c(g * 64 + half * 8)),
                       add(colBase, c(8 * j - firstColumn))},
            /*nontemporal=*/false, llvm::Align(8));
      }
}

void WgmmaBuilder::finishStaged(Value staging, int64_t rows, int64_t columns,
                                Value firstThread, int64_t threadCount,
                                Value rowOrigin, int64_t colOrigin) {
  int64_t chunksPerRow = columns / kStoreChunk;
  auto loop = scf::ForOp::create(b, loc, firstThread,
                                 c(rows * chunksPerRow), c(threadCount));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value i = loop.getInductionVar();
  Value row = div(i, chunksPerRow);
  Value col = mul(rem(i, chunksPerRow), c(kStoreChunk));
  Value chunk = vector::LoadOp::create(
      b, loc, VectorType::get({kStoreChunk}, b.getF32Type()), staging,
      ValueRange{row, col});
  if (rowOrigin)
    row = add(rowOrigin, row);
  if (colOrigin)
    col = add(col, c(colOrigin));
  storeColumns(row, col, kStoreChunk, [&](int64_t e) {
    return vector::ExtractOp::create(b, loc, chunk, e).getResult();
  });
}

void WgmmaBuilder::releaseSlot(Value slot) {
  Value empty = add(slot, c(opt.stages));
  if (!clustered()) {
    nvgpu::MBarrierArriveOp::create(b, loc, barriers, empty);
    return;
  }
  // The partner's producer multicasts into this block's slot too, so it
  // waits for both blocks' consumers. The arrive keeps PTX's default
  // release.cta, as CUTLASS's ClusterBarrier::arrive(cta_id): the slot's
  // only readers are this warpgroup's wgmma, complete after its
  // wait_group. release.cluster compiled to MEMBAR.ALL.GPU + ERRBAR before
  // each arrive (SASS of ptxas 13.0), an L2 round trip per K-step that made
  // the clustered kernels 1.4-1.6x slower (h200-2026-12-05-mbarrier-tma).
  MLIRContext *ctx = b.getContext();
  Value address = nvgpu::MBarrierGetOp::create(b, loc, b.getI32Type(),
                                               barriers, empty);
  Value local = LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(ctx, /*shared=*/3), address);
  auto clusterPointer =
      LLVM::LLVMPointerType::get(ctx, /*shared::cluster=*/7);
  for (int64_t rank = 0; rank < opt.clusterRows; ++rank) {
    Value remote = NVVM::MapaOp::create(
        b, loc, clusterPointer, local,
        arith::ConstantIntOp::create(b, loc, rank, 32));
    NVVM::MBarrierArriveOp::create(
        b, loc, Type(), remote, Value(),
        NVVM::MemScopeKindAttr::get(ctx, NVVM::MemScopeKind::CTA));
  }
}

void WgmmaBuilder::clusterBarrier() {
  NVVM::ClusterArriveOp::create(b, loc, UnitAttr());
  NVVM::ClusterWaitOp::create(b, loc, UnitAttr());
}

void WgmmaBuilder::namedBarrier(Value id, int64_t count) {
  NVVM::BarrierOp::create(b, loc, Type(), id,
                          arith::ConstantIntOp::create(b, loc, count, 32),
                          NVVM::BarrierReductionAttr(), Value());
}

void WgmmaBuilder::emitConsumerEpilogue(scf::ForOp loop) {
  Type f32 = b.getF32Type();
  int64_t columns = passColumns();
  int64_t pitch = columns + kStagePad;
  Value staging = sharedView(
      add(c(ringBytes()), mul(warpgroup, c(consumerStagingBytes()))),
      {rowsPerConsumer, pitch}, f32);
  Value localThread = rem(tid, kWarpgroup);
  // Rows relative to this consumer's first.
  auto [rowBase, colBase] = accumulatorOrigin();
  Value firstRow = consumerFirstRow();
  Value barrierId = arith::IndexCastOp::create(
      b, loc, b.getI32Type(), add(warpgroup, c(kFirstConsumerBarrier)));
  auto consumerBarrier = [&]() { namedBarrier(barrierId, kWarpgroup); };
  for (int64_t pass = 0; pass < blockN / columns; ++pass) {
    // The last pass's (or tile's) reads of the staging tile are done.
    consumerBarrier();
    stagePairs(loop, staging, rowBase, colBase, pass * columns, columns);
    consumerBarrier();
    finishStaged(staging, rowsPerConsumer, columns, localThread, kWarpgroup,
                 firstRow, pass * columns);
  }
}

SmallVector<Value> WgmmaBuilder::boxCoordinates(TmaOperand &op, Value row,
                                                Value col) {
  // Innermost first: column, row, then the batch.
  SmallVector<Value> xy = {col, row};
  if (batched)
    xy.push_back(origin(op, 0));
  return xy;
}

bool WgmmaBuilder::hoistResidualView() {
  Block &body = launch.getBody().front();
  if (gemm->getBlock() != &body)
    return false;
  // The subviews and casts inside the launch body that make the view,
  // the tile's own first.
  SmallVector<Operation *> viewOps;
  Value view = residual.tile;
  while (Operation *def = view.getDefiningOp()) {
    if (def->getBlock() != &body)
      break;
    if (!isa<memref::SubViewOp, memref::CastOp>(def))
      return false;
    viewOps.push_back(def);
    view = def->getOperand(0);
  }
  for (Operation *op : viewOps)
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def && def->getBlock() == &body &&
          !llvm::is_contained(viewOps, def) && !def->isBeforeInBlock(gemm))
        return false;
    }
  for (Operation *op : llvm::reverse(viewOps))
    if (!op->isBeforeInBlock(gemm))
      op->moveBefore(gemm);
  // The consumers re-create the body in this order per tile.
  llvm::stable_sort(bodyOps, [](Operation *x, Operation *y) {
    return x->isBeforeInBlock(y);
  });
  return true;
}

void WgmmaBuilder::loadResidual() {
  int64_t boxCols = boxColumns();
  int64_t boxes = rowsPerConsumer / 64 * (blockN / boxCols);
  // The view's origin as the body computes it for this tile.
  std::string why;
  (void)traceToRoot(residual, why);
  unsigned rank = outRank();
  Value rowOrigin = add(origin(residual, rank - 2), consumerFirstRow());
  Value colOrigin = origin(residual, rank - 1);
  Value stagingBase =
      add(c(ringBytes()), mul(warpgroup, c(consumerStagingBytes())));
  Value barrier = add(warpgroup, c(2 * opt.stages));
  auto ifLeader = scf::IfOp::create(b, loc, consumerLeader(),
                                    /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifLeader.getThenRegion().front());
  // The staging tile is free once the last stores have read it.
  NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0),
                                       b.getUnitAttr());
  nvgpu::MBarrierArriveExpectTxOp::create(
      b, loc, barriers, c(boxes * kOutBoxBytes), barrier, Value());
  for (int64_t box = 0; box < boxes; ++box) {
    int64_t g = box / (blockN / boxCols), x = box % (blockN / boxCols);
    nvgpu::TmaAsyncLoadOp::create(
        b, loc,
        sharedView(add(stagingBase, c(box * kOutBoxBytes)), outBox(),
                   outType),
        barriers, residual.descriptor,
        boxCoordinates(residual, add(rowOrigin, c(g * 64)),
                       add(colOrigin, c(x * boxCols))),
        barrier, Value(), Value());
  }
}

void WgmmaBuilder::waitResidual() {
  nvgpu::MBarrierTryWaitParityOp::create(b, loc, barriers,
                                         parity(residualRound), c(kWaitTicks),
                                         add(warpgroup, c(2 * opt.stages)));
}

void WgmmaBuilder::waitStores(bool readOnly) {
  auto ifLeader = scf::IfOp::create(b, loc, consumerLeader(),
                                    /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifLeader.getThenRegion().front());
  NVVM::CpAsyncBulkWaitGroupOp::create(
      b, loc, b.getI32IntegerAttr(0),
      readOnly ? b.getUnitAttr() : UnitAttr());
}

void WgmmaBuilder::emitConsumerTmaEpilogue(scf::ForOp loop) {
  MLIRContext *ctx = b.getContext();
  int64_t columns = tmaPassColumns, boxCols = boxColumns();
  int64_t boxesPerPass = rowsPerConsumer / 64 * (columns / boxCols);
  Value stagingBase =
      add(c(ringBytes()), mul(warpgroup, c(consumerStagingBytes())));
  Value staging = sharedView(stagingBase,
                             {consumerStagingBytes() / outBytes}, outType);
  Value barrierId = arith::IndexCastOp::create(
      b, loc, b.getI32Type(), add(warpgroup, c(kFirstConsumerBarrier)));
  auto consumerBarrier = [&]() { namedBarrier(barrierId, kWarpgroup); };
  // Thread (lane l, warp w) holds rows 16w + l / 4 (+ 8) of each 64-row
  // group: rows r and r + 8 share r % 8 = l / 4, the swizzle's XOR.
  auto [row, colBase] = accumulatorOrigin();
  Value swizzle = rem(row, 8);
  Value firstRow = consumerFirstRow();
  // The output tile's origin, as the launch body computes it for this
  // tile (traced again: the body's uses were remapped per tile).
  std::string why;
  (void)traceToRoot(out, why);
  unsigned rank = outRank();
  Value rowOrigin = add(origin(out, rank - 2), firstRow);
  Value colOrigin = origin(out, rank - 1);
  // Past a ragged tile's edge the epilogue's loads are clamped inside the
  // tile; TMA drops the values there, at the buffer's edge.
  std::optional<int64_t> m = getConstantIntValue(mSize);
  std::optional<int64_t> n = getConstantIntValue(nSize);
  auto clamp = [&](Value index, Value size, bool whole) {
    if (whole)
      return index;
    return arith::MinUIOp::create(
               b, loc, index, arith::SubIOp::create(b, loc, size, c(1)))
        .getResult();
  };
  bool wholeRows = m && *m == blockM, wholeCols = n && *n == blockN;
  // An empty tile (a grid larger than the output) has nothing to clamp to:
  // its consumer skips the epilogue (the condition is the whole
  // warpgroup's, so its barriers stay matched).
  OpBuilder::InsertionGuard nonEmpty(b);
  int64_t passes = blockN / columns;
  if (!wholeRows || !wholeCols) {
    Value rows = cmp(arith::CmpIPredicate::ugt, mSize, c(0));
    Value cols = cmp(arith::CmpIPredicate::ugt, nSize, c(0));
    auto ifAny = scf::IfOp::create(b, loc, both(rows, cols),
                                   /*withElse=*/opt.tmaLoadResidual);
    if (opt.tmaLoadResidual) {
      // An empty tile still takes its residual, so the barrier's phases
      // stay counted per tile; the barrier keeps every thread within a
      // phase of the leader, who loads the next tile's.
      OpBuilder::InsertionGuard empty(b);
      b.setInsertionPointToStart(&ifAny.getElseRegion().front());
      if (!prefetchResidual)
        loadResidual();
      waitResidual();
      consumerBarrier();
    }
    b.setInsertionPointToStart(&ifAny.getThenRegion().front());
  }
  auto pairType = VectorType::get({2}, outType);
  for (int64_t pass = 0; pass < passes; ++pass) {
    // The last pass's stores have read the staging tile.
    waitStores(/*readOnly=*/true);
    consumerBarrier();
    // tma_load_residual has one pass (see analyseTmaLoadResidual).
    if (opt.tmaLoadResidual) {
      if (!prefetchResidual)
        loadResidual();
      waitResidual();
    }
    for (int64_t g = 0; g < rowsPerConsumer / 64; ++g)
      for (int64_t j = 0; j < columns / 8; ++j)
        for (int64_t half = 0; half < 2; ++half) {
          Value tileRow = add(firstRow, add(row, c(g * 64 + half * 8)));
          Value tileCol = add(colBase, c(pass * columns + 8 * j));
          // Byte (r, x) of a 64-row box sits at r * 128 + x with x's
          // 16-byte chunk XORed by r % 8 (TMA's 128-byte swizzle).
          int64_t box = g * (columns / boxCols) + 8 * j / boxCols;
          Value byte = mul(add(colBase, c(8 * j % boxCols)), c(outBytes));
          Value chunk = arith::XOrIOp::create(b, loc, div(byte, 16), swizzle);
          Value offset = add(
              add(c(box * kOutBoxBytes), mul(add(row, c(half * 8)), c(128))),
              add(mul(chunk, c(16)), rem(byte, 16)));
          Value index = div(offset, outBytes);
          // The residual's pair sits where this thread's results go.
          Value residualPair;
          if (opt.tmaLoadResidual)
            residualPair = vector::LoadOp::create(
                b, loc, pairType, staging, ValueRange{index},
                /*nontemporal=*/false, llvm::Align(2 * outBytes));
          SmallVector<Value, 2> values;
          for (int64_t e = 0; e < 2; ++e) {
            Value acc = LLVM::ExtractValueOp::create(
                b, loc, loop.getResult(g),
                4 * (pass * columns / 8 + j) + 2 * half + e);
            DenseMap<Value, Value> preloaded;
            if (residualPair)
              preloaded[residual.tile] =
                  vector::ExtractOp::create(b, loc, residualPair, e);
            Value value;
            for (auto [buffer, result] :
                 finish(clamp(tileRow, mSize, wholeRows),
                        clamp(add(tileCol, c(e)), nSize, wholeCols), acc,
                        &preloaded))
              if (buffer == out.tile)
                value = result;
            values.push_back(value);
          }
          vector::StoreOp::create(
              b, loc,
              vector::FromElementsOp::create(b, loc, pairType, values),
              staging, ValueRange{index},
              /*nontemporal=*/false, llvm::Align(2 * outBytes));
        }
    // The writes reach the async proxy before the leader's stores read.
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
    consumerBarrier();
    auto ifLeader = scf::IfOp::create(b, loc, consumerLeader(),
                                      /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifLeader.getThenRegion().front());
    for (int64_t box = 0; box < boxesPerPass; ++box) {
      int64_t g = box / (columns / boxCols), x = box % (columns / boxCols);
      Value view = sharedView(add(stagingBase, c(box * kOutBoxBytes)), outBox(),
                              outType);
      nvgpu::TmaAsyncStoreOp::create(
          b, loc, view, out.descriptor,
          boxCoordinates(out, add(rowOrigin, c(g * 64)),
                         add(colOrigin, c(pass * columns + x * boxCols))),
          Value());
    }
    NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
  }
}

SmallVector<std::pair<Value, Value>>
WgmmaBuilder::finish(Value row, Value col, Value staged,
                     const DenseMap<Value, Value> *preloaded) {
  AffineMap accMap = gemm.getIndexingMapsArray()[2];
  Value value = staged;
  if (chain.init) {
    Value fill = chain.init.getInputs()[0];
    if (!matchPattern(fill, m_AnyZeroFloat()))
      value = arith::AddFOp::create(b, loc, value, fill);
  } else {
    // No fill: the GEMM accumulates into what the buffer holds.
    Value old = memref::LoadOp::create(b, loc, chain.accumulator,
                                       indicesFor(accMap, row, col));
    value = arith::AddFOp::create(b, loc, value, old);
  }
  return evaluateEpilogue(b, loc, chain, indicesFor(accMap, row, col), value,
                          preloaded);
}

void WgmmaBuilder::emitEpilogue() {
  Value staging =
      sharedView(c(0), {blockM, blockN + kStagePad}, b.getF32Type());
  finishStaged(staging, blockM, blockN, tid, threads, Value(), 0);
}

void WgmmaBuilder::storeColumns(Value row, Value col, int64_t count,
                                function_ref<Value(int64_t)> element) {
  AffineMap accMap = gemm.getIndexingMapsArray()[2];
  unsigned nPos = *resultPosition(accMap, nDim);
  OpBuilder::InsertionGuard guard(b);
  // All columns inside the problem: one vector store per buffer.
  auto storeAll = [&]() {
    SmallVector<SmallVector<std::pair<Value, Value>>> results;
    for (int64_t e = 0; e < count; ++e)
      results.push_back(finish(row, add(col, c(e)), element(e)));
    for (size_t pos = 0; pos < results.front().size(); ++pos) {
      Value buffer = results.front()[pos].first;
      if (isBlockLocalAllocation(buffer))
        continue;
      SmallVector<Value> values;
      for (auto &r : results)
        values.push_back(r[pos].second);
      if (canStoreVectors(buffer, nPos, count)) {
        Type type = values.front().getType();
        Value vec = vector::FromElementsOp::create(
            b, loc, VectorType::get({count}, type), values);
        int64_t bytes = count * type.getIntOrFloatBitWidth() / 8;
        vector::StoreOp::create(b, loc, vec, buffer,
                                indicesFor(accMap, row, col),
                                /*nontemporal=*/false,
                                llvm::Align(std::min<int64_t>(bytes, 16)));
        continue;
      }
      for (auto [e, v] : llvm::enumerate(values))
        memref::StoreOp::create(b, loc, v, buffer,
                                indicesFor(accMap, row, add(col, c(e))));
    }
  };
  std::optional<int64_t> m = getConstantIntValue(mSize);
  std::optional<int64_t> n = getConstantIntValue(nSize);
  if (m && *m == blockM && n && *n == blockN) {
    storeAll();
    return;
  }
  // At a ragged edge: columns wholly inside still go out as vectors, the
  // rest element by element.
  Value rowIn = cmp(arith::CmpIPredicate::ult, row, mSize);
  Value whole = both(rowIn, cmp(arith::CmpIPredicate::ule,
                                add(col, c(count)), nSize));
  auto ifWhole = scf::IfOp::create(b, loc, whole, /*withElse=*/true);
  b.setInsertionPointToStart(&ifWhole.getThenRegion().front());
  storeAll();
  b.setInsertionPointToStart(&ifWhole.getElseRegion().front());
  for (int64_t e = 0; e < count; ++e) {
    Value colE = add(col, c(e));
    Value in = both(rowIn, cmp(arith::CmpIPredicate::ult, colE, nSize));
    auto ifIn = scf::IfOp::create(b, loc, in, /*withElse=*/false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(&ifIn.getThenRegion().front());
    for (auto [buffer, value] : finish(row, colE, element(e)))
      if (!isBlockLocalAllocation(buffer))
        memref::StoreOp::create(b, loc, value, buffer,
                                indicesFor(accMap, row, colE));
  }
}

scf::ForOp WgmmaBuilder::build() {
  OpBuilder::InsertionGuard guard(b);
  MLIRContext *ctx = b.getContext();
  createDescriptors();
  prefetchResidual = opt.tmaLoadResidual && hoistResidualView();

  shapeLaunch(b, launch, threads, sharedBytes());
  if (opt.consumers == 1)
    b.modifyOpInPlace(launch, [&] {
      launch->setAttr(kMaxRegistersAttr,
                      b.getI32IntegerAttr(kOneConsumerEntryRegisters));
    });
  if (clustered())
    b.modifyOpInPlace(launch, [&] {
      launch->setAttr(kClusterShapeAttr,
                      b.getDenseI64ArrayAttr({1, opt.clusterRows, 1}));
    });

  AffineMap accMap = gemm.getIndexingMapsArray()[2];
  auto tileExtents = [&]() {
    mSize = extent(chain.accumulator, *resultPosition(accMap, mDim));
    nSize = extent(chain.accumulator, *resultPosition(accMap, nDim));
  };
  if (persistent()) {
    // One block per SM (or per tile); the set-up below runs once, before
    // the tile loops.
    b.setInsertionPoint(launch);
    // Clusters: grid x counts the clusters, y the blocks in each.
    Value grid = c(blocks / opt.clusterRows), rows = c(opt.clusterRows),
          one = c(1);
    b.modifyOpInPlace(launch, [&] {
      launch.getGridSizeXMutable().assign(grid);
      launch.getGridSizeYMutable().assign(rows);
      launch.getGridSizeZMutable().assign(one);
    });
    b.setInsertionPointToStart(&launch.getBody().front());
  } else {
    b.setInsertionPoint(gemm);
  }
  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  warpgroup = div(tid, kWarpgroup);
  if (!persistent())
    tileExtents();
  dynamicSmem = gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
                      smemSpace()));
  // Swizzled slots must start on a 1024-byte boundary; the dynamic region
  // is only known to be 16-byte aligned, so the first boundary is found at
  // run time (the size has 1024 bytes of slack for it).
  Value address = memref::ExtractAlignedPointerAsIndexOp::create(
      b, loc, dynamicSmem);
  alignedBase =
      rem(arith::SubIOp::create(b, loc, c(kSwizzleRepeat),
                                rem(address, kSwizzleRepeat)),
          kSwizzleRepeat);
  smemAddress = add(address, alignedBase);
  // Barriers 0..stages-1 say a slot is full, stages..2*stages-1 that it is
  // free again; with tma_load_residual, 2*stages + w that consumer w's
  // residual boxes arrived.
  int64_t residualBarriers = opt.tmaLoadResidual ? opt.consumers : 0;
  barriers = nvgpu::MBarrierCreateOp::create(
      b, loc,
      nvgpu::MBarrierGroupType::get(ctx, smemSpace(),
                                    2 * opt.stages + residualBarriers));
  {
    Value leader = cmp(arith::CmpIPredicate::eq, tid, c(0));
    auto ifLeader = scf::IfOp::create(b, loc, leader, /*withElse=*/false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(&ifLeader.getThenRegion().front());
    for (int64_t s = 0; s < opt.stages; ++s) {
      nvgpu::MBarrierInitOp::create(b, loc, barriers, c(1), c(s), Value());
      nvgpu::MBarrierInitOp::create(b, loc, barriers,
                                    c(slotConsumers() * opt.clusterRows),
                                    c(opt.stages + s), Value());
    }
    for (int64_t w = 0; w < residualBarriers; ++w)
      nvgpu::MBarrierInitOp::create(b, loc, barriers, c(1),
                                    c(2 * opt.stages + w), Value());
    // The partner block arrives on these barriers and multicasts into
    // this block's slots.
    if (clustered())
      NVVM::FenceMbarrierInitOp::create(b, loc);
    nvgpu::TmaPrefetchOp::create(b, loc, lhs.descriptor, Value());
    nvgpu::TmaPrefetchOp::create(b, loc, rhs.descriptor, Value());
    if (opt.tmaLoadResidual)
      nvgpu::TmaPrefetchOp::create(b, loc, residual.descriptor, Value());
    // TMA completes transactions on the barriers through the async proxy:
    // the initialised barriers are made visible to it before anyone waits
    // (the CUDA programming guide's fence_proxy_async_shared_cta).
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
  }
  if (clustered()) {
    clusterRank = gpu::ClusterBlockIdOp::create(b, loc, gpu::Dimension::y);
    clusterBarrier();
  } else {
    gpu::BarrierOp::create(b, loc);
  }

  Value kTiles = c(kTileCount);
  // Consumers are warpgroups 0..consumers-1 (see the staging store).
  Value isProducer =
      cmp(arith::CmpIPredicate::eq, warpgroup, c(opt.consumers));
  auto roles = scf::IfOp::create(b, loc, isProducer, /*withElse=*/true);
  scf::ForOp loop;
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(&roles.getThenRegion().front());
    // The producer gives registers back, the consumers take them
    // (CUTLASS's split). With one consumer the registers are not tight,
    // but without setmaxnreg ptxas serialised its wgmmas (C7520).
    NVVM::SetMaxRegisterOp::create(
        b, loc, b.getI32IntegerAttr(kProducerRegisters),
        NVVM::SetMaxRegisterActionAttr::get(
            ctx, NVVM::SetMaxRegisterAction::decrease));
    if (persistent()) {
      // The producer recomputes each tile's origins from a copy of what
      // the launch body derives them from.
      auto [tiles, kStart] = emitTileLoop();
      for (Operation *op : bodyOps)
        if (producerSlice.contains(op) &&
            !isa<gpu::BlockIdOp, gpu::GridDimOp>(op))
          b.clone(*op, tileValues);
      emitProducer(kTiles, kStart);
      tileValues.clear();
    } else {
      emitProducer(kTiles, Value());
    }
    b.setInsertionPointToStart(&roles.getElseRegion().front());
    NVVM::SetMaxRegisterOp::create(
        b, loc, b.getI32IntegerAttr(consumerRegisters()),
        NVVM::SetMaxRegisterActionAttr::get(
            ctx, NVVM::SetMaxRegisterAction::increase));
    if (!persistent()) {
      loop = emitConsumer(kTiles, Value());
      stageAccumulators(loop);
    } else {
      // The consumers run the launch body itself once per tile.
      auto [tiles, kStart] = emitTileLoop(/*alternate=*/opt.pingPong);
      Operation *end = tiles.getBody()->getTerminator();
      for (Operation *op : bodyOps) {
        op->walk([&](Operation *nested) {
          for (OpOperand &operand : nested->getOpOperands())
            if (Value value = tileValues.lookupOrNull(operand.get()))
              b.modifyOpInPlace(nested, [&] { operand.set(value); });
        });
        b.moveOpBefore(op, end);
      }
      tileValues.clear();
      b.setInsertionPoint(gemm);
      tileExtents();
      if (opt.tmaLoadResidual) {
        // Each of this consumer's tiles completes its residual barrier
        // once; ping-pong consumers take every other tile.
        Value sequence = div(kStart, kTileCount);
        residualRound = opt.pingPong ? div(sequence, 2) : sequence;
        if (prefetchResidual)
          loadResidual();
      }
      if (opt.pingPong)
        waitForTurn(tiles.getInductionVar());
      loop = emitConsumer(kTiles, kStart);
      if (opt.pingPong)
        passTurn(tiles.getInductionVar());
      setEpilogueInsertionPoint(b, chain);
      if (opt.tmaStore) {
        emitConsumerTmaEpilogue(loop);
        // The last tile's stores complete before the block exits.
        b.setInsertionPointAfter(tiles);
        waitStores(/*readOnly=*/false);
      } else {
        emitConsumerEpilogue(loop);
      }
    }
  }
  if (!persistent()) {
    gpu::BarrierOp::create(b, loc);
    setEpilogueInsertionPoint(b, chain);
    emitEpilogue();
  }
  if (clustered()) {
    // The partner's consumers may still arrive on this block's barriers.
    b.setInsertionPoint(launch.getBody().front().getTerminator());
    clusterBarrier();
  }
  markF32Precision(b, gemm, opt.precision);
  eraseGemmAndEpilogue(b, gemm, chain);
  if (persistent())
    approximateBranchingErf();
  return loop;
}

void WgmmaBuilder::approximateBranchingErf() {
  // libdevice's erff branches on |x|. In a persistent kernel the epilogue
  // sits between one tile's wgmmas and the next's, and ptxas then
  // serialises every wgmma of the kernel (C7520: "compiler-inserted WG.AR
  // in divergent path"); MLIR's polynomial form (error ~2.5e-7) selects
  // instead. (libdevice's tanhf does not branch.)
  SmallVector<Operation *> ops;
  launch.walk([&](math::ErfOp op) { ops.push_back(op); });
  if (ops.empty())
    return;
  RewritePatternSet patterns(b.getContext());
  populatePolynomialApproximateErfPattern(patterns);
  (void)applyOpPatternsGreedily(ops, std::move(patterns));
}

void WgmmaBuilder::waitForTurn(Value t) {
  // The first consumer's first tile waits for no one.
  Value first = cmp(arith::CmpIPredicate::eq, t, launch.getBlockIds().x);
  Value waits = arith::OrIOp::create(
      b, loc, cmp(arith::CmpIPredicate::ne, warpgroup, c(0)),
      arith::XOrIOp::create(b, loc, first,
                            arith::ConstantIntOp::create(b, loc, 1, 1)));
  auto ifWaits = scf::IfOp::create(b, loc, waits, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifWaits.getThenRegion().front());
  namedBarrier(arith::IndexCastOp::create(
                   b, loc, b.getI32Type(),
                   add(warpgroup, c(kFirstTurnBarrier))),
               2 * kWarpgroup);
}

void WgmmaBuilder::passTurn(Value t) {
  // Only to a consumer that has a next tile, so no arrival is left over.
  Value next = add(t, c(blocks));
  auto ifNext = scf::IfOp::create(
      b, loc, cmp(arith::CmpIPredicate::ult, next, c(tileCount)),
      /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifNext.getThenRegion().front());
  Value other = arith::SubIOp::create(b, loc, c(1), warpgroup);
  NVVM::BarrierArriveOp::create(
      b, loc,
      arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                 add(other, c(kFirstTurnBarrier))),
      arith::ConstantIntOp::create(b, loc, 2 * kWarpgroup, 32));
}

std::pair<scf::ForOp, Value> WgmmaBuilder::emitTileLoop(bool alternate) {
  gpu::KernelDim3 ids = launch.getBlockIds();
  // In clusters, cluster ids.x takes pairs of vertically adjacent tiles
  // (units of clusterRows rows), and its block ids.y the row in the pair.
  int64_t rows = opt.clusterRows, steps = blocks / rows;
  Value first = alternate ? add(ids.x, mul(warpgroup, c(steps))) : ids.x;
  auto loop = scf::ForOp::create(b, loc, first, c(tileCount / rows),
                                 c(alternate ? 2 * steps : steps));
  b.setInsertionPointToStart(loop.getBody());
  Value t = loop.getInductionVar();
  Value kStart = mul(div(arith::SubIOp::create(b, loc, t, ids.x), steps),
                     c(kTileCount));
  Value plane = c(gridX * gridY / rows);
  Value z = arith::DivUIOp::create(b, loc, t, plane);
  Value r = arith::RemUIOp::create(b, loc, t, plane);
  Value x, y;
  if (opt.groupRows > 1) {
    std::tie(x, y) =
        groupedOrder(b, loc, r, gridX, gridY / rows,
                     std::max<int64_t>(1, opt.groupRows / rows));
  } else {
    x = rem(r, gridX);
    y = div(r, gridX);
  }
  if (clustered())
    y = add(mul(y, c(rows)), ids.y);
  tileValues.clear();
  tileValues.map(ids.x, x);
  tileValues.map(ids.y, y);
  tileValues.map(ids.z, z);
  gpu::KernelDim3 sizes = launch.getGridSize();
  Value gridSizes[] = {c(gridX), c(gridY), c(gridZ)};
  tileValues.map(sizes.x, gridSizes[0]);
  tileValues.map(sizes.y, gridSizes[1]);
  tileValues.map(sizes.z, gridSizes[2]);
  // Block mapping leaves `gpu.block_id` ops in the body rather than uses
  // of the launch's arguments.
  Value tileIds[] = {x, y, z};
  for (Operation *op : bodyOps)
    op->walk([&](Operation *nested) {
      if (auto id = dyn_cast<gpu::BlockIdOp>(nested))
        tileValues.map(id.getResult(),
                       tileIds[static_cast<unsigned>(id.getDimension())]);
      else if (auto dim = dyn_cast<gpu::GridDimOp>(nested))
        tileValues.map(dim.getResult(),
                       gridSizes[static_cast<unsigned>(dim.getDimension())]);
    });
  return {loop, kStart};
}

} // namespace

FailureOr<scf::ForOp> vibegemm::rewriteGemmAsWgmma(RewriterBase &rewriter,
                                                  Operation *target,
                                                  const WgmmaOptions &options,
                                                  std::string &why) {
  return rewriteWithBuilder<WgmmaBuilder>(rewriter, target, options, why);
}

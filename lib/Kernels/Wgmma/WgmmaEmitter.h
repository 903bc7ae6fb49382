//===- WgmmaEmitter.h - Builds the wgmma kernel from its plan ---*- C++ -*-===//
//
// The emitter of one wgmma kernel: it reads a `WgmmaPlan` and holds the SSA
// values of the emission (thread ids, shared memory, barriers, the tile's
// extents). Its methods are spread over MainLoop.cpp, Epilogue.cpp,
// TmaEpilogue.cpp, Persistent.cpp and WgmmaGemm.cpp. Private to
// lib/Kernels.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_LIB_KERNELS_WGMMA_WGMMAEMITTER_H
#define VIBEGEMM_LIB_KERNELS_WGMMA_WGMMAEMITTER_H

#include "WgmmaPlan.h"

#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"

#include <utility>

namespace mlir::vibegemm::wgmma {

class WgmmaEmitter : IndexBuilder {
public:
  WgmmaEmitter(RewriterBase &rewriter, WgmmaPlan plan)
      : IndexBuilder(rewriter, plan.gemm.getLoc()), plan(std::move(plan)),
        opt(this->plan.opt), bodyOps(this->plan.bodyOps) {}

  /// Replaces the GEMM and its epilogue with the kernel; returns a
  /// consumer's K loop.
  scf::ForOp build();

private:
  //===--- WgmmaGemm.cpp: the kernel's frame --------------------------===//

  /// Threads, shared memory, registers and cluster shape of the launch.
  void shapeKernel();
  /// Thread ids, the aligned shared-memory base, the tile's extents (when
  /// not persistent) and the barriers, where `b` stands.
  void emitSetUp();
  /// The producer and consumer warpgroups; returns a consumer's K loop.
  scf::ForOp emitRoles();
  /// Cluster exit barrier, the GEMM and its epilogue erased.
  void finishKernel();
  /// The extents of the accumulator tile along M and N.
  void tileExtents();

  //===--- MainLoop.cpp: descriptors, ring, producer, consumer --------===//

  /// Host side: a tensor map per operand (and for the output and residual
  /// with tma_store).
  void createDescriptors();
  /// The ring's mbarriers, initialised by thread 0, and the block's (or
  /// cluster's) barrier after them.
  void initBarriers();
  void emitProducer(Value kTiles, Value kStart);
  scf::ForOp emitConsumer(Value kTiles, Value kStart);
  /// A wgmma shared-memory matrix descriptor (128-byte swizzle) for the
  /// tile at `byteOffset` past the aligned base.
  Value matrixDescriptor(Value byteOffset, int64_t leadingBytes);
  /// The consumers' release of ring slot `slot`: an arrive on its "empty"
  /// mbarrier, in every block of the cluster.
  void releaseSlot(Value slot);
  /// All threads of the cluster's blocks meet (release, then acquire).
  void clusterBarrier();
  /// bar.sync on named barrier `id` (i32) of `count` threads.
  void namedBarrier(Value id, int64_t count);

  //===--- Epilogue.cpp: staged epilogues ------------------------------===//

  /// Row (within its consumer's rows) and column of a consumer thread's
  /// first accumulator value.
  std::pair<Value, Value> accumulatorOrigin();
  void stageAccumulators(scf::ForOp loop);
  void emitEpilogue();
  /// Persistent: each consumer stages its accumulators in passes of
  /// columns through its own staging tile and finishes them.
  void emitConsumerEpilogue(scf::ForOp loop);
  /// Stores accumulator columns [firstColumn, firstColumn + columns) of a
  /// consumer thread's pairs to `staging` (its column 0 is firstColumn),
  /// rows from `rowBase`.
  void stagePairs(scf::ForOp loop, Value staging, Value rowBase, Value colBase,
                  int64_t firstColumn, int64_t columns);
  /// Threads firstThread, + threadCount, ... finish `rows` x `columns` of
  /// `staging` in 4-column chunks: staged (r, c) is output (rowOrigin + r,
  /// colOrigin + c) (a null rowOrigin: 0).
  void finishStaged(Value staging, int64_t rows, int64_t columns,
                    Value firstThread, int64_t threadCount, Value rowOrigin,
                    int64_t colOrigin);
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

  //===--- TmaEpilogue.cpp: tma_store and tma_load_residual ------------===//

  /// Persistent with tma_store: each consumer finishes its accumulators in
  /// registers, writes them to its swizzled staging tile in the output
  /// type, and its first thread stores the boxes with TMA.
  void emitConsumerTmaEpilogue(scf::ForOp loop);
  /// Coordinates of a 64-row output box (innermost first), in the view
  /// `op` (the output or the residual) of its buffer.
  SmallVector<Value> boxCoordinates(const TmaOperand &op, Value row, Value col);
  /// tma_load_residual: moves the residual's view ahead of the GEMM when
  /// what it is computed from is, so its first boxes can load before the
  /// main loop; returns whether it could.
  bool hoistResidualView();
  /// tma_load_residual: the consumer leader loads the residual's tile into
  /// the staging tile once the last stores have read it.
  void loadResidual();
  /// tma_load_residual: waits for this tile's residual.
  void waitResidual();
  /// Waits (in the consumer leader) until its TMA stores have read their
  /// staging tile (`readOnly`) or completed.
  void waitStores(bool readOnly);

  //===--- Persistent.cpp: the tile loops ------------------------------===//

  /// One block per SM (or per tile): the launch's grid becomes the
  /// persistent blocks' (in clusters, x counts the clusters).
  void shapePersistentGrid();
  /// The producer's tile loop, recomputing each tile's origins.
  void emitPersistentProducer(Value kTiles);
  /// The consumers' tile loop around the launch body; returns the K loop.
  scf::ForOp emitPersistentConsumer(Value kTiles);
  /// The loop over this block's tiles, from its block id in steps of the
  /// grid (`alternate`: a ping-pong consumer's, every other one from its
  /// own first). Maps the launch's block ids and grid sizes to the tile's
  /// in `tileValues`, and returns the tile's first ring index.
  std::pair<scf::ForOp, Value> emitTileLoop(bool alternate = false);
  /// The tiles of a persistent kernel: constant, or from the host's count
  /// of tile rows over a run-time M.
  Value tileCount();
  /// Ping-pong: waits for this consumer's turn at the main loop of tile
  /// `t`, and hands the turn on once its K-tiles are issued.
  void waitForTurn(Value t);
  void passTurn(Value t);
  /// Persistent kernels: erf as a branch-free polynomial.
  void approximateBranchingErf();

  //===--- Small helpers -----------------------------------------------===//

  /// This consumer's first row in the block tile.
  Value consumerFirstRow() {
    return opt.pingPong ? c(0) : mul(warpgroup, c(plan.rowsPerConsumer));
  }
  /// The first thread of each consumer warpgroup.
  Value consumerLeader() {
    return cmp(arith::CmpIPredicate::eq, rem(tid, kWarpgroup), c(0));
  }
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
    SmallVector<int64_t> shape = {rows, plan.blockK};
    if (plan.tma3d())
      shape.insert(shape.begin(), 1);
    return nvgpu::TensorMapDescriptorType::get(
        b.getContext(),
        MemRefType::get(shape, plan.elementType, AffineMap(), smemSpace()),
        nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
        nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
        nvgpu::TensorMapOOBKind::OOB_ZERO,
        nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
  }
  /// Sum of the subview offsets along `dim`: the tile's origin there (as
  /// this tile's values, in a persistent producer).
  Value origin(const TmaOperand &op, unsigned dim) {
    Value sum = c(0);
    for (OpFoldResult offset : op.offsets[dim])
      sum = add(sum, tileValues.lookupOrDefault(
                         getValueOrCreateConstantIndexOp(b, loc, offset)));
    return sum;
  }
  /// `op` traced again from its tile: its origin as the launch body
  /// computes it for this tile, once the body's uses are remapped per tile.
  TmaOperand retraced(const TmaOperand &op) {
    TmaOperand traced = op;
    std::string why;
    (void)traceToRoot(traced, why);
    return traced;
  }
  /// Ring index of K-tile `kt`: slots and phases run on across a
  /// persistent block's tiles from `kStart` (null: the first tile).
  Value ringIndex(Value kStart, Value kt) {
    return kStart ? add(kStart, kt) : kt;
  }

  /// What the analysis found; the emitter does not change it (op handles
  /// are not const in MLIR, so neither is the member).
  WgmmaPlan plan;
  const WgmmaOptions &opt;
  /// The launch body's ops in block order (hoistResidualView may move
  /// some); the persistent consumers run them once per tile.
  SmallVector<Operation *> bodyOps;
  /// tma_load_residual: the residual's first pass loads before the main
  /// loop (its view could be hoisted above the GEMM).
  bool prefetchResidual = false;
  /// Persistent: the launch's block ids and grid sizes as the current
  /// tile's.
  IRMapping tileValues;
  /// Tensor maps, created on the host.
  Value lhsDescriptor, rhsDescriptor, outDescriptor, residualDescriptor;
  // Per-thread values.
  Value tid, warpgroup, dynamicSmem, alignedBase, smemAddress, barriers;
  /// tma_load_residual: the residual mbarrier's completions before this
  /// consumer's tile.
  Value residualRound;
  /// This block's rank in its cluster (clusters only).
  Value clusterRank;
  /// The accumulator tile's extents along M and N.
  Value mSize, nSize;
};

} // namespace mlir::vibegemm::wgmma

#endif // VIBEGEMM_LIB_KERNELS_WGMMA_WGMMAEMITTER_H

//===- WgmmaPlan.h - What the wgmma analysis establishes --------*- C++ -*-===//
//
// The hardware constants of the wgmma kernel, the operands as TMA reads
// them, and `WgmmaPlan`: the facts the analysis finds about a block GEMM,
// from which the emitter builds the kernel. Private to lib/Kernels.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_LIB_KERNELS_WGMMA_WGMMAPLAN_H
#define VIBEGEMM_LIB_KERNELS_WGMMA_WGMMAPLAN_H

#include "../GemmTile.h"
#include "vibegemm/Kernels/Kernels.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/SetVector.h"

#include <optional>
#include <string>

namespace mlir::vibegemm::wgmma {

/// A K-tile is one 128-byte swizzle row: 128 FP8, 64 16-bit or 32 f32
/// elements (WgmmaPlan::blockK); an MN-major B comes in boxes of 64
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
/// Registers a consumer needs beyond its accumulators (addresses, barriers,
/// loop state): ptxas 13.0 asked for 154 around 128 accumulators.
constexpr int64_t kAccumulatorOverhead = 26;
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

/// Follows unit-stride subviews (no rank change) and casts from `op.tile`
/// to the buffer it views, filling `op`'s root, offsets and splitExpand.
LogicalResult traceToRoot(TmaOperand &op, std::string &why);

/// What the analysis establishes about a block GEMM for the wgmma kernel,
/// under the options it was given. It holds no IR of the kernel: the
/// emitter builds that from it.
struct WgmmaPlan : BlockGemm {
  linalg::LinalgOp gemm;
  WgmmaOptions opt;
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
  /// Where output element (row, col) lives: the accumulator's map.
  OutputMap output;
  EpilogueChain chain;
  /// tma_store: the one buffer the epilogue writes, as TMA stores it, its
  /// element type and size, and the columns staged per pass.
  TmaOperand out;
  Type outType;
  int64_t outBytes = 4, tmaPassColumns = 0;
  /// tma_load_residual: the epilogue input loaded into the staging tile
  /// (same boxes as `out`).
  TmaOperand residual;
  // Persistent kernels: the launch's grid, its body (run once per tile by
  // the consumers) and the part of it the producer clones for its origins.
  int64_t gridX = 1, gridY = 1, gridZ = 1, tileCount = 1, blocks = 1;
  /// Over a run-time M: the host's count of tile rows (grid y before the
  /// grid became `blocks`); gridY and tileCount are then unknown (0).
  Value runtimeGridY;
  SmallVector<Operation *> bodyOps;
  llvm::SetVector<Operation *> producerSlice;

  bool persistent() const { return opt.persistentBlocks > 0; }
  bool clustered() const { return opt.clusterRows > 1; }
  int64_t threads() const { return kWarpgroup * (1 + opt.consumers); }
  /// A consumer thread's registers after `setmaxnreg`: what the register
  /// file leaves beside the producer's, at most 232, in steps of 8.
  int64_t consumerRegisters() const {
    int64_t free = target->registersPerSm - kWarpgroup * kProducerRegisters;
    return std::min<int64_t>(kMaxConsumerRegisters,
                             free / (kWarpgroup * opt.consumers) / 8 * 8);
  }
  /// Consumers that read each ring slot (ping-pong: the tile's owner).
  int64_t slotConsumers() const { return opt.pingPong ? 1 : opt.consumers; }
  /// Operands are 3-D tensor maps (a batch dimension, not split-K's).
  bool tma3d() const { return batched && !splitK; }
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
};

/// Checks that `gemm` can become a wgmma kernel under `options` and returns
/// what the kernel is built from; otherwise says why in `why`. Builds no
/// IR.
FailureOr<WgmmaPlan> analyseWgmma(linalg::LinalgOp gemm,
                                  const WgmmaOptions &options,
                                  std::string &why);

} // namespace mlir::vibegemm::wgmma

#endif // VIBEGEMM_LIB_KERNELS_WGMMA_WGMMAPLAN_H

//===- TilingRules.h - Rules the choosers and variants share ----*- C++ -*-===//
//
// Small pieces of tiling arithmetic used both by the choosers
// (TilingPolicy.cpp) and by the variants that race them (TilingVariants.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_LIB_SCHEDULER_TILINGRULES_H
#define VIBEGEMM_LIB_SCHEDULER_TILINGRULES_H

#include "vibegemm/Scheduler/Tiling.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::vibegemm::tiling {

/// How many bm x bn output tiles `p` has, over all batches.
inline int64_t tileCount(const GemmProblem &p, int64_t bm, int64_t bn) {
  return p.batch * llvm::divideCeil(p.m, bm) * llvm::divideCeil(p.n, bn);
}

/// Whether TMA can store `p`'s output rows: a multiple of 16 bytes each.
inline bool tmaStoresRows(const GemmProblem &p) {
  Type result = p.resultType;
  return result && result.isIntOrFloat() &&
         p.n * result.getIntOrFloatBitWidth() % 128 == 0;
}

/// Rows of a matrix-vector product's matrix: M for A·b, N for a·Bᵀ.
inline int64_t matrixRows(const GemmProblem &p) { return p.n == 1 ? p.m : p.n; }

/// The block-tile extent along those rows: block_m for A·b, block_n for
/// a·Bᵀ.
inline int64_t &matrixRowTile(const GemmProblem &p, KernelTiling &t) {
  return p.n == 1 ? t.blockM : t.blockN;
}

/// Output tiles of `t` over the whole problem.
inline int64_t blockCount(const GemmProblem &p, const KernelTiling &t) {
  return tileCount(p, t.blockM, t.blockN);
}

/// Whether split-K can serve `p` with `t`'s tiles: too few of them to half
/// fill the chip, no batch or softmax, and M and N multiples of the
/// combining kernel's 16x16 tiles (a ragged one would give its threads'
/// private tiles a dynamic size). A bucket of M is judged at its
/// representative M; its combine takes one row per block.
inline bool wantsSplitK(const GemmProblem &p, const KernelTiling &t,
                        const TargetInfo &target) {
  return !p.batched && !p.hasSoftmax && 2 * blockCount(p, t) < target.smCount &&
         p.m % kCombineTile == 0 && p.n % kCombineTile == 0;
}

/// Doubles `t.splitK` while the grid stays within `maxBlocks`, K splits
/// into whole K-tiles and each split keeps at least 1024 of K.
inline void growSplitK(const GemmProblem &p, KernelTiling &t,
                       int64_t maxBlocks) {
  int64_t blocks = blockCount(p, t);
  while (blocks * t.splitK * 2 <= maxBlocks &&
         p.k % (t.splitK * 2 * t.blockK) == 0 && p.k / (t.splitK * 2) >= 1024)
    t.splitK *= 2;
}

/// K-tiles of 32 in two stages instead of 16 in three on the 128x128 tile
/// (8x8 per thread) where an operand is staged with 16-byte copies (rows
/// along M or N, aligned or padded): half the barriers per K, for 66 KB of
/// shared memory against 50 (still two blocks per SM). On the H200: 4096^3
/// 3.18 -> 2.96 ms, 2048x4096x8192 NN 3.22 -> 2.97, A stored [K, M] with
/// B [N, K] 3.19 -> 2.96, batched 6.70 -> 5.81, A [K, M] with B [K, N]
/// unchanged (2.89 -> 2.88). With both operands K-contiguous (4-byte
/// copies) it lost (3.14 -> 3.17), so those keep 16 in three
/// (docs/benchmarks/h200-2026-12-04-ffma-ktiles). K under two such tiles
/// keeps 16: a tile of 32 would be mostly zero fill.
inline std::optional<KernelTiling>
withFfmaKTiles(const GemmProblem &p, std::optional<KernelTiling> t) {
  if (!t || t->blockM != 128 || t->blockN != 128 || t->threadM != 8 ||
      t->threadN != 8 || t->splitK > 1 || p.k < 64)
    return t;
  auto padded = [&](int64_t operand) {
    return llvm::is_contained(t->alignOperands, operand);
  };
  bool wideA = p.transposeA && (p.m % 4 == 0 || padded(0));
  bool wideB = !p.transposeB && (p.n % 4 == 0 || padded(1));
  if (wideA || wideB) {
    t->blockK = 32;
    t->stages = 2;
  }
  return t;
}

} // namespace mlir::vibegemm::tiling

#endif // VIBEGEMM_LIB_SCHEDULER_TILINGRULES_H

//===- GenericSchedule.cpp - Schedules for dispatches without a GEMM ------===//
//
// The sound path for what no GEMM fuses: elementwise ops, broadcasts,
// transposes and reductions, one kernel each, tiled to blocks and threads.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Scheduler/GenericSchedule.h"
#include "vibegemm/Analysis/DispatchInfo.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::vibegemm;

namespace {

/// The dispatch's op tagged `vibegemm.role = "generic"`.
linalg::LinalgOp findGenericOp(func::FuncOp dispatch) {
  return getOpWithRole(dispatch, "generic");
}

constexpr int64_t kMaxThreads = 256;
constexpr int64_t kMaxGridYZ = 65535;
/// Rows of a run-time size per block along grid y or z: enough that the
/// largest size served (kMaxDynamicM) stays within the grid's limit.
constexpr int64_t kRuntimeRowsPerBlock =
    (kMaxDynamicM + kMaxGridYZ - 1) / kMaxGridYZ;
/// Threads of a split reduction's partial kernel enough to keep the loads
/// of an H100/H200's 132 SMs in flight: more lengthen the combining
/// kernel's serial sum (one thread a row). BERT's 512 row sums of 768 on an
/// H100: split 32 ways 10.6 + 8.8 us, 64 ways 7.9 + 13.8 us.
constexpr int64_t kFillThreads = 132 * 64;

/// `values` comma-separated, a run-time size as `?`.
std::string joinInts(ArrayRef<int64_t> values) {
  return llvm::join(llvm::map_range(values,
                                    [](int64_t v) {
                                      return ShapedType::isDynamic(v)
                                                 ? std::string("?")
                                                 : std::to_string(v);
                                    }),
                    ", ");
}

/// Tiles loops `ranges` (iterators `iters`) of an op writing through
/// `out`: see chooseGenericTiling.
GenericTiling tileOutputLoops(ArrayRef<int64_t> ranges,
                              ArrayRef<utils::IteratorType> iters,
                              AffineMap out) {
  // Output dimensions from innermost out: x, y, z.
  SmallVector<unsigned> outer;
  for (AffineExpr expr : llvm::reverse(out.getResults()))
    if (auto dim = dyn_cast<AffineDimExpr>(expr);
        dim && iters[dim.getPosition()] == utils::IteratorType::parallel)
      outer.push_back(dim.getPosition());
  GenericTiling t;
  t.runtimeGrid = llvm::any_of(ranges, ShapedType::isDynamic);
  t.blockTiles.assign(ranges.size(), 0);
  t.threadTiles.assign(ranges.size(), 0);
  SmallVector<int> dimOfLoop(ranges.size(), -1);
  for (auto [i, loop] : llvm::enumerate(outer)) {
    // A run-time size takes whole blocks of threads (the last ragged) along
    // x, and rows enough to stay within the grid along y and z.
    bool runtime = ShapedType::isDynamic(ranges[loop]);
    if (i == 0) {
      t.threads = runtime ? kMaxThreads : std::min(ranges[loop], kMaxThreads);
      t.blockTiles[loop] = t.threads;
      t.threadTiles[loop] = 1;
      t.raggedThreads = runtime;
    } else if (i < 3) {
      t.blockTiles[loop] =
          runtime ? kRuntimeRowsPerBlock
                  : std::max<int64_t>(
                        1, llvm::divideCeil(ranges[loop], kMaxGridYZ));
    } else {
      break;
    }
    dimOfLoop[loop] = static_cast<int>(i);
  }
  for (int dim : dimOfLoop)
    if (dim >= 0)
      t.blockDims.push_back(dim);
  return t;
}

/// The split factor of `op`'s reduction when it can run as partial sums
/// over consecutive elements (`structured.split_reduction` with the split
/// dimension parallel and innermost) and a combining op; 0 when not.
int64_t chooseSplitFactor(linalg::LinalgOp op) {
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  // The split's partial buffer would take a run-time size too.
  if (llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic))
    return 0;
  if (reductions.size() != 1 || op.getNumDpsInits() != 1 ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isProjectedPermutation(); }))
    return 0;
  unsigned r = reductions.front();
  // The reduced dimension must be contiguous in every input that reads it.
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (map.isFunctionOfDim(r) &&
        map.getDimPosition(map.getNumResults() - 1) != r)
      return 0;
  }
  SmallVector<Operation *> combiners;
  if (!matchReduction(op.getRegionOutputArgs(), 0, combiners) ||
      combiners.size() != 1 || !arith::getNeutralElement(combiners.front()))
    return 0;
  // A warp's lanes read 32 consecutive elements, each lane at least 4 of
  // its row; few rows take more lanes, so the GPU fills up.
  int64_t size = op.getStaticLoopRanges()[r];
  int64_t rows = op.getStaticLoopRanges().size() == 1
                     ? 1
                     : llvm::product_of(op.getStaticLoopRanges()) / size;
  if (size % 32 || size < 128)
    return 0;
  int64_t factor = 32;
  while (factor < 1024 && rows * factor < kFillThreads &&
         size % (factor * 2) == 0 && size / (factor * 2) >= 4)
    factor *= 2;
  return factor;
}

} // namespace

FailureOr<GenericTiling> vibegemm::chooseGenericTiling(func::FuncOp dispatch) {
  linalg::LinalgOp op = findGenericOp(dispatch);
  if (!op)
    return emitError(dispatch.getLoc(),
                     "generic dispatch has no op marked vibegemm.role = "
                     "\"generic\"");
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  if (!llvm::any_of(out.getResults(), [&](AffineExpr e) {
        auto dim = dyn_cast<AffineDimExpr>(e);
        return dim && iters[dim.getPosition()] == utils::IteratorType::parallel;
      }))
    return emitError(op->getLoc(), "generic dispatch op has no parallel "
                                   "output dimension to spread over blocks");
  int64_t factor = chooseSplitFactor(op);
  if (!factor)
    return tileOutputLoops(ranges, iters, out);
  // Partial op: the reduction loop r becomes [r / factor (reduction),
  // factor (parallel)], the latter the innermost output dimension.
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  unsigned r = reductions.front();
  SmallVector<int64_t> partialRanges(ranges);
  SmallVector<utils::IteratorType> partialIters(iters);
  partialRanges[r] = ranges[r] / factor;
  partialRanges.insert(partialRanges.begin() + r + 1, factor);
  partialIters.insert(partialIters.begin() + r + 1,
                      utils::IteratorType::parallel);
  SmallVector<AffineExpr> partialOut;
  for (AffineExpr e : out.getResults()) {
    unsigned d = cast<AffineDimExpr>(e).getPosition();
    partialOut.push_back(getAffineDimExpr(d > r ? d + 1 : d, op.getContext()));
  }
  partialOut.push_back(getAffineDimExpr(r + 1, op.getContext()));
  GenericTiling t = tileOutputLoops(
      partialRanges, partialIters,
      AffineMap::get(partialRanges.size(), 0, partialOut, op.getContext()));
  // Combining op: the output's dimensions, then the partials' reduction.
  SmallVector<int64_t> combineRanges(
      cast<ShapedType>(op.getDpsInits()[0].getType()).getShape());
  SmallVector<utils::IteratorType> combineIters(combineRanges.size(),
                                                utils::IteratorType::parallel);
  combineRanges.push_back(factor);
  combineIters.push_back(utils::IteratorType::reduction);
  t.combine = std::make_shared<const GenericTiling>(tileOutputLoops(
      combineRanges, combineIters,
      AffineMap::getMultiDimIdentityMap(combineRanges.size(), op.getContext())
          .getMajorSubMap(combineRanges.size() - 1)));
  t.splitFactor = factor;
  return t;
}

namespace {

/// Tiles `%<name>` to blocks and threads as `t` says and fuses the fill
/// `%<fill>` (if any) into both tiles.
void writeTiling(llvm::raw_ostream &os, StringRef name, const GenericTiling &t,
                 StringRef fill) {
  static const char *kBlockNames[] = {"x", "y", "z"};
  // A ragged block of a run-time size is split among a fixed count of
  // threads, so the thread forall keeps a static trip count.
  SmallVector<int64_t> threadSizes(t.threadTiles);
  if (t.raggedThreads)
    for (int64_t &size : threadSizes)
      size = size ? t.threads : 0;
  std::string blockMapping = llvm::join(
      llvm::map_range(t.blockDims,
                      [](int d) {
                        return ("#gpu.block<" + Twine(kBlockNames[d]) + ">")
                            .str();
                      }),
      ", ");
  os << llvm::formatv(
      R"mlir(  // Output dimensions to blocks (innermost x, then y, z), the innermost
  // also to threads, one element each; the rest of the block tile and every
  // reduction loop run inside each thread.
  %{0}_block, %{0}_blocks = transform.structured.tile_using_forall %{0} tile_sizes [{1}] (mapping = [{2}]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
  %{0}_thread, %{0}_threads = transform.structured.tile_using_forall %{0}_block {3} [{4}] (mapping = [#gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
)mlir",
      name, joinInts(t.blockTiles), blockMapping,
      t.raggedThreads ? "num_threads" : "tile_sizes", joinInts(threadSizes));
  if (!fill.empty())
    os << llvm::formatv(
        R"mlir(  // The fill that starts the reduction, into the same tiles.
  %{0}_block_fill, %{0}_blocks2 = transform.structured.fuse_into_containing_op %{1} into %{0}_blocks : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
  %{0}_thread_fill, %{0}_threads2 = transform.structured.fuse_into_containing_op %{0}_block_fill into %{0}_threads : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
)mlir",
        name, fill);
}

/// Maps the block and thread loops around the op marked `attr` to a
/// `gpu.launch` of `threads` threads a block, its grid computed on the host
/// where `runtimeGrid`.
void writeLaunch(llvm::raw_ostream &os, StringRef name, StringRef attr,
                 int64_t threads, bool runtimeGrid) {
  os << llvm::formatv(
      R"mlir(  %{0}_op = transform.structured.match attributes{{{1}} in %bf : (!transform.any_op) -> !transform.any_op
  %{0}_threads_bf = transform.get_parent_op %{0}_op {{op_name = "scf.forall"} : (!transform.any_op) -> !transform.any_op
  %{0}_blocks_bf = transform.get_parent_op %{0}_threads_bf {{op_name = "scf.forall"} : (!transform.any_op) -> !transform.any_op
  %{0}_launch = {3} : (!transform.any_op) -> !transform.any_op
  %{0}_mapped = transform.gpu.map_nested_forall_to_threads %{0}_launch block_dims = [{2}, 1, 1] : (!transform.any_op) -> !transform.any_op
)mlir",
      name, attr, threads,
      runtimeGrid ? llvm::formatv("transform.vibegemm.map_forall_to_grid "
                                  "%{0}_blocks_bf",
                                  name)
                        .str()
                  : llvm::formatv("transform.gpu.map_forall_to_blocks "
                                  "%{0}_blocks_bf generate_gpu_launch",
                                  name)
                        .str());
}

} // namespace

FailureOr<std::string> vibegemm::writeGenericSchedule(func::FuncOp dispatch,
                                                      StringRef sequenceName,
                                                      bool cpuCheck) {
  FailureOr<GenericTiling> tiling = chooseGenericTiling(dispatch);
  if (failed(tiling))
    return failure();
  const GenericTiling &t = *tiling;
  linalg::LinalgOp op = findGenericOp(dispatch);
  // A reduction's fill runs in its tiles, before them.
  bool hasInit = static_cast<bool>(getOpWithRole(dispatch, "init"));
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv(
      R"mlir(// {0}: {1} over loops [{2}], {3} threads a block{4}
transform.named_sequence @{0}(%func: !transform.any_op {{transform.consumed}) {
  %op = transform.structured.match attributes{{vibegemm.role = "generic"} in %func : (!transform.any_op) -> !transform.any_op
)mlir",
      sequenceName, op->getName().getStringRef(),
      joinInts(op.getStaticLoopRanges()), t.threads,
      t.splitFactor ? llvm::formatv(", the reduction split {0} ways",
                                    t.splitFactor)
                          .str()
                    : std::string());
  if (hasInit)
    os << "  %init = transform.structured.match attributes{vibegemm.role = "
          "\"init\"} in %func : (!transform.any_op) -> !transform.any_op\n";
  if (t.splitFactor) {
    int64_t rank =
        cast<ShapedType>(op.getDpsInits()[0].getType()).getRank();
    os << llvm::formatv(
        R"mlir(  // 1. Partial results over {0} consecutive elements (a parallel, innermost
  //    dimension, so neighbouring threads read neighbours), then their
  //    combination: two kernels.
  %split_init, %split_fill, %partial, %combine = transform.structured.split_reduction %op {{split_factor = {0}, insert_split_dimension = {1}, inner_parallel} : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
  transform.annotate %partial "vibegemm.partial" : !transform.any_op
  transform.annotate %combine "vibegemm.combine" : !transform.any_op
)mlir",
        t.splitFactor, rank);
    writeTiling(os, "partial", t, "split_fill");
    writeTiling(os, "combine", *t.combine, hasInit ? "init" : "");
  } else {
    os << "  // 1. One kernel.\n";
    writeTiling(os, "op", t, hasInit ? "init" : "");
  }
  os << R"mlir(  transform.apply_patterns to %func {
    transform.apply_patterns.canonicalization
    transform.apply_patterns.linalg.tiling_canonicalization
  } {apply_cse} : !transform.any_op
  // 2. Bufferize the dispatch (its boundary is bufferized with the module).
  transform.bufferization.eliminate_empty_tensors %func : !transform.any_op
  %bf = transform.bufferization.one_shot_bufferize %func {memcpy_op = "linalg.copy"} : (!transform.any_op) -> !transform.any_op
  %ret = transform.structured.match ops{["func.return"]} in %bf : (!transform.any_op) -> !transform.any_op
)mlir";
  if (cpuCheck) {
    os << R"mlir(  // CPU check: blocks and threads run as sequential loops.
  %foralls = transform.structured.match ops{["scf.forall"]} in %bf : (!transform.any_op) -> !transform.any_op
  transform.foreach %foralls : !transform.any_op {
  ^bb0(%forall: !transform.any_op):
    %as_loops = transform.loop.forall_to_parallel %forall : (!transform.any_op) -> !transform.any_op
  }
)mlir";
  } else {
    os << "  // 3. Map each kernel's loops to blocks and threads.\n";
    if (t.splitFactor) {
      writeLaunch(os, "partial", "vibegemm.partial", t.threads, t.runtimeGrid);
      writeLaunch(os, "combine", "vibegemm.combine", t.combine->threads,
                  t.combine->runtimeGrid);
    } else {
      writeLaunch(os, "op", "vibegemm.role = \"generic\"", t.threads,
                  t.runtimeGrid);
    }
  }
  os << R"mlir(  %f2 = transform.get_parent_op %ret {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
  transform.apply_patterns to %f2 {
    transform.apply_patterns.canonicalization
    transform.apply_patterns.memref.fold_memref_alias_ops
  } {apply_cse} : !transform.any_op
  transform.yield
}
)mlir";
  return text;
}

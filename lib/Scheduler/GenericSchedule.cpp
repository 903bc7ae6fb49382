//===- GenericSchedule.cpp - Schedules for dispatches without a GEMM ------===//
//
// The sound path for what no GEMM fuses: elementwise ops, broadcasts,
// transposes and reductions, one kernel each, tiled to blocks and threads.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Scheduler/GenericSchedule.h"
#include "vibegemm/Analysis/DispatchInfo.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
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

std::string joinInts(ArrayRef<int64_t> values) {
  return llvm::join(llvm::map_range(values,
                                    [](int64_t v) { return std::to_string(v); }),
                    ", ");
}

} // namespace

FailureOr<GenericTiling> vibegemm::chooseGenericTiling(func::FuncOp dispatch) {
  linalg::LinalgOp op = findGenericOp(dispatch);
  if (!op)
    return emitError(dispatch.getLoc(),
                     "generic dispatch has no op marked vibegemm.role = "
                     "\"generic\"");
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return emitError(op->getLoc(), "generic dispatches need static shapes");
  // Output dimensions from innermost out: x, y, z.
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  SmallVector<unsigned> outer;
  for (AffineExpr expr : llvm::reverse(out.getResults()))
    if (auto dim = dyn_cast<AffineDimExpr>(expr);
        dim && op.getIteratorTypesArray()[dim.getPosition()] ==
                   utils::IteratorType::parallel)
      outer.push_back(dim.getPosition());
  if (outer.empty())
    return emitError(op->getLoc(), "generic dispatch op has no parallel "
                                   "output dimension to spread over blocks");
  GenericTiling t;
  t.blockTiles.assign(ranges.size(), 0);
  t.threadTiles.assign(ranges.size(), 0);
  SmallVector<int> dimOfLoop(ranges.size(), -1);
  for (auto [i, loop] : llvm::enumerate(outer)) {
    if (i == 0) {
      t.threads = std::min(ranges[loop], kMaxThreads);
      t.blockTiles[loop] = t.threads;
      t.threadTiles[loop] = 1;
    } else if (i < 3) {
      t.blockTiles[loop] =
          std::max<int64_t>(1, llvm::divideCeil(ranges[loop], kMaxGridYZ));
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

FailureOr<std::string> vibegemm::writeGenericSchedule(func::FuncOp dispatch,
                                                      StringRef sequenceName,
                                                      bool cpuCheck) {
  FailureOr<GenericTiling> tiling = chooseGenericTiling(dispatch);
  if (failed(tiling))
    return failure();
  const GenericTiling &t = *tiling;
  static const char *kBlockNames[] = {"x", "y", "z"};
  std::string blockMapping = llvm::join(
      llvm::map_range(t.blockDims,
                      [](int d) {
                        return ("#gpu.block<" + Twine(kBlockNames[d]) + ">")
                            .str();
                      }),
      ", ");
  linalg::LinalgOp op = findGenericOp(dispatch);
  // A reduction's fill runs in its tiles, before them.
  bool hasInit = static_cast<bool>(getOpWithRole(dispatch, "init"));
  std::string fuseInit =
      hasInit
          ? R"mlir(  // The fill that starts the reduction, into the same tiles.
  %init = transform.structured.match attributes{vibegemm.role = "init"} in %func : (!transform.any_op) -> !transform.any_op
  %block_init, %blocks2 = transform.structured.fuse_into_containing_op %init into %blocks : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
  %thread_init, %threads2 = transform.structured.fuse_into_containing_op %block_init into %threads : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
)mlir"
          : "";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv(
      R"mlir(// {0}: {1} over loops [{2}], {3} threads a block
transform.named_sequence @{0}(%func: !transform.any_op {{transform.consumed}) {
  %op = transform.structured.match attributes{{vibegemm.role = "generic"} in %func : (!transform.any_op) -> !transform.any_op
  // 1. Output dimensions to blocks (innermost x, then y, z).
  %block_op, %blocks = transform.structured.tile_using_forall %op tile_sizes [{4}] (mapping = [{5}]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
  // 2. The innermost one to threads, one element each; the rest of the
  //    block tile and every reduction loop run inside each thread.
  %thread_op, %threads = transform.structured.tile_using_forall %block_op tile_sizes [{6}] (mapping = [#gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
{7}  transform.apply_patterns to %func {{
    transform.apply_patterns.canonicalization
    transform.apply_patterns.linalg.tiling_canonicalization
  } {{apply_cse} : !transform.any_op
  // 3. Bufferize the dispatch (its boundary is bufferized with the module).
  transform.bufferization.eliminate_empty_tensors %func : !transform.any_op
  %bf = transform.bufferization.one_shot_bufferize %func {{memcpy_op = "linalg.copy"} : (!transform.any_op) -> !transform.any_op
  %ret = transform.structured.match ops{{["func.return"]} in %bf : (!transform.any_op) -> !transform.any_op
)mlir",
      sequenceName, op->getName().getStringRef(),
      joinInts(op.getStaticLoopRanges()), t.threads, joinInts(t.blockTiles),
      blockMapping, joinInts(t.threadTiles), fuseInit);
  if (cpuCheck)
    os << R"mlir(  // CPU check: blocks and threads run as sequential loops.
  %foralls = transform.structured.match ops{["scf.forall"]} in %bf : (!transform.any_op) -> !transform.any_op
  transform.foreach %foralls : !transform.any_op {
  ^bb0(%forall: !transform.any_op):
    %as_loops = transform.loop.forall_to_parallel %forall : (!transform.any_op) -> !transform.any_op
  }
)mlir";
  else
    os << llvm::formatv(
        R"mlir(  // 4. Map to blocks and threads.
  %launch_parent = transform.gpu.map_forall_to_blocks %bf generate_gpu_launch : (!transform.any_op) -> !transform.any_op
  %launch = transform.structured.match ops{{["gpu.launch"]} in %launch_parent : (!transform.any_op) -> !transform.any_op
  %mapped = transform.gpu.map_nested_forall_to_threads %launch block_dims = [{0}, 1, 1] : (!transform.any_op) -> !transform.any_op
)mlir",
        t.threads);
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

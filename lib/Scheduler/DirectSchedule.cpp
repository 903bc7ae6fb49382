//===- DirectSchedule.cpp - The direct SIMT schedule ----------------------===//
//
// Writes the direct SIMT schedule, which takes any shape: block tiles, a
// fixed thread grid, operands read from global memory. Also the reference
// and CPU-check schedules.
//
//===----------------------------------------------------------------------===//

#include "ScheduleWriters.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::vibegemm;
using namespace mlir::vibegemm::schedule;

std::string schedule::writeDirectSchedule(const GemmProblem &problem,
                                          const SimtTiling &t,
                                          const DispatchOps &ops,
                                          StringRef sequenceName,
                                          StringRef comment, bool cpuCheck) {
  bool batched = problem.batched;
  std::string text;
  llvm::raw_string_ostream os(text);
  auto knob = [&](StringRef name, int64_t value, ArrayRef<int64_t> options) {
    os << llvm::formatv(
        "  %{0} = transform.tune.knob<\"{0}\"> = {1} : i64 "
        "from options = [{2}] -> !transform.param<i64>\n",
        name, value,
        llvm::join(llvm::map_range(options,
                                   [](int64_t v) { return std::to_string(v); }),
                   ", "));
  };
  const char *anyOp = "(!transform.any_op) -> !transform.any_op";
  int64_t bdx = t.blockN / t.threadN, bdy = t.blockM / t.threadM;
  // Softmax blocks of up to 32 rows, one per thread; the count divides M,
  // since a ragged last block would give the decomposed softmax's row
  // buffers a dynamic size.
  int64_t softmaxRows = 32;
  while (problem.m % softmaxRows)
    softmaxRows /= 2;

  os << "transform.named_sequence @" << sequenceName
     << "(%func: !transform.any_op {transform.consumed}) {\n";
  os << "  // " << comment << "\n";
  os << "  // Direct SIMT schedule (" << t.fallbackReason
     << "): block tiles, a fixed thread grid, operands from global memory.\n";
  knob("block_m", t.blockM, {1, 2, 4, 8, 16, 32, 64, 128, 256});
  knob("block_n", t.blockN, {1, 2, 4, 8, 16, 32, 64, 128, 256});
  writeRoleMatches(os, ops, /*softmax=*/true);
  FusionPlan plan = planFusion(problem, ops);
  bool fused = plan.fused;
  const std::string &anchor = plan.anchor, &lead = plan.lead,
                    &blockMap = plan.blockMap;
  const SmallVector<std::string> &producers = plan.producers;

  os << llvm::formatv(
      "  %b_tiled, %b_forall = transform.structured.tile_using_forall %{0} "
      "tile_sizes [{1}%block_m, %block_n] (mapping = [{2}]) : "
      "(!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> "
      "(!transform.any_op, !transform.any_op)\n",
      anchor, lead, blockMap);
  writeFusions(os, producers, "", "_b", "b_forall", "b_loop");
  // A fixed thread grid: per-thread tiles shrink at ragged block edges, so
  // the forall keeps a static trip count.
  os << llvm::formatv(
      "  %t_tiled, %t_forall = transform.structured.tile_using_forall "
      "%b_tiled num_threads [{0}{1}, {2}] (mapping = [#gpu.thread<y>, "
      "#gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, "
      "!transform.any_op)\n",
      batched ? "0, " : "", bdy, bdx);
  writeFusions(os, producers, "_b", "_t", "t_forall", "t_loop");
  if (!fused)
    for (StringRef e : ops.epilogues)
      os << llvm::formatv(
          "  %{0}_b, %{0}_blk = transform.structured.tile_using_forall %{0} "
          "tile_sizes [{1}%block_m, %block_n] (mapping = [{2}]) : "
          "(!transform.any_op, !transform.param<i64>, !transform.param<i64>) "
          "-> (!transform.any_op, !transform.any_op)\n"
          "  %{0}_t, %{0}_thr = transform.structured.tile_using_forall %{0}_b "
          "num_threads [{3}{4}, {5}] (mapping = [#gpu.thread<y>, "
          "#gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, "
          "!transform.any_op)\n",
          e, lead, blockMap, batched ? "0, " : "", bdy, bdx);
  StringRef softmaxMap = softmaxBlockMap(problem);
  // On the GPU the softmax gets the block-reduce kernel (f32 math, a block
  // per row); the reference and the CPU check decompose it, a thread per
  // row, independent of that kernel.
  bool rowKernel = ops.hasSoftmax && !cpuCheck && !t.reference;
  if (rowKernel) {
    writeSoftmaxRowTiling(os, problem);
  } else if (ops.hasSoftmax) {
    os << llvm::formatv(
        "  %s_tiled, %s_forall = transform.structured.tile_using_forall "
        "%softmax tile_sizes [{0}{1}] (mapping = [{2}]) : "
        "(!transform.any_op) -> (!transform.any_op, !transform.any_op)\n",
        batched ? "1, " : "", softmaxRows, softmaxMap);
    os << llvm::formatv(
        "  %s_thread, %s_tforall = transform.structured.tile_using_forall "
        "%s_tiled num_threads [{0}{1}] (mapping = [#gpu.thread<x>]) : "
        "(!transform.any_op) -> (!transform.any_op, !transform.any_op)\n",
        batched ? "0, " : "", softmaxRows);
    os << "  %s_parts = transform.structured.decompose_interface %s_thread : "
       << anyOp << "\n";
  }
  os << "  transform.apply_patterns to %func {\n"
        "    transform.apply_patterns.canonicalization\n"
        "  } : !transform.any_op\n";
  os << "  %buffers = transform.bufferization.one_shot_bufferize %func "
        "{memcpy_op = \"linalg.copy\"} : "
     << anyOp << "\n";
  // Each thread accumulates its C tile in a private buffer (registers or
  // local memory) instead of reading and writing global memory every K step.
  // Under a fused epilogue the accumulator is already a private temporary.
  // A single thread over the whole output has no C tile to promote (the
  // tiles folded away), and nothing to gain from it.
  bool wholeOutputInOneThread = !batched && bdx == 1 && bdy == 1 &&
                                problem.m <= t.blockM && problem.n <= t.blockN;
  bool promote = !fused && !wholeOutputInOneThread;
  if (promote)
    os << "  %thread_gemm = transform.structured.match attributes"
          "{vibegemm.role = \"root\"} in %buffers : "
       << anyOp << "\n";
  if (promote)
    os << "  %promoted = transform.structured.promote %thread_gemm "
          "{operands_to_promote = [2], use_alloca, use_full_tiles_by_default} "
          ": "
       << anyOp << "\n";
  if (cpuCheck) {
    os << "  %foralls = transform.structured.match ops{[\"scf.forall\"]} "
          "in %buffers : "
       << anyOp << "\n";
    os << "  transform.foreach %foralls : !transform.any_op {\n"
          "  ^bb0(%forall: !transform.any_op):\n"
          "    %as_loops = transform.loop.forall_to_parallel %forall : "
       << anyOp << "\n  }\n";
    os << "  transform.yield\n}\n";
    return text;
  }
  // One kernel per block-mapped loop (the GEMM, unfused epilogues), then
  // the softmax kernel, whose blocks are one-dimensional.
  auto mapEach = [&](StringRef mapping, StringRef blockDims) {
    os << llvm::formatv(
        "  %loops_{0} = transform.structured.match ops{{[\"scf.forall\"]} "
        "attributes{{mapping = [{1}]} in %buffers : {2}\n"
        "  transform.foreach %loops_{0} : !transform.any_op {{\n"
        "  ^bb0(%block_loop: !transform.any_op):\n"
        "    %launch = transform.gpu.map_forall_to_blocks %block_loop "
        "generate_gpu_launch : {2}\n"
        "    %mapped = transform.gpu.map_nested_forall_to_threads %launch "
        "block_dims = [{3}] : {2}\n"
        "  }\n",
        mapping == softmaxMap ? "rows" : "tiles", mapping, anyOp, blockDims);
  };
  mapEach(blockMap, llvm::formatv("{0}, {1}, 1", bdx, bdy).str());
  if (rowKernel)
    writeSoftmaxRowKernel(os, problem, "buffers");
  else if (ops.hasSoftmax)
    mapEach(softmaxMap, llvm::formatv("{0}, 1, 1", softmaxRows).str());
  os << "  transform.yield\n}\n";
  return text;
}

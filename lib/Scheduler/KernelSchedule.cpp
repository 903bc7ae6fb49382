//===- KernelSchedule.cpp - The kernel-path schedules ---------------------===//
//
// Writes the schedule of a kernel path (mma.sync, wgmma, FFMA,
// block-reduce): block tiles with the fused chain in one loop, bufferized,
// mapped to blocks, then the GEMM rewritten into the path's kernel body;
// split-K adds a combining kernel.
//
//===----------------------------------------------------------------------===//

#include "ScheduleWriters.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::vibegemm;
using namespace mlir::vibegemm::schedule;

namespace {

/// `, f32_precision = "..."` where `t` runs f32 operands on tensor cores.
std::string f32PrecisionAttr(const KernelTiling &t) {
  return t.f32Precision.empty()
             ? std::string()
             : ", f32_precision = \"" + t.f32Precision + "\"";
}

/// Canonicalizes `%func`, then bufferizes it into `%buffers`.
void writeBufferizeFunction(llvm::raw_ostream &os) {
  os << "  transform.apply_patterns to %func {\n"
        "    transform.apply_patterns.canonicalization\n"
        "  } : !transform.any_op\n"
        "  transform.bufferization.eliminate_empty_tensors %func : "
        "!transform.any_op\n"
        "  %buffers = transform.bufferization.one_shot_bufferize %func "
        "{memcpy_op = \"linalg.copy\"} : "
        "(!transform.any_op) -> !transform.any_op\n";
}

/// The kernel rewrite of a block-tiled GEMM (`%gemm_mapped`) on the
/// mma.sync or FFMA path, whose K loop becomes `%k_loop`.
void writeBlockGemmRewrite(llvm::raw_ostream &os, const KernelTiling &t) {
  auto groupBlocks = [&]() {
    if (t.groupRows > 1)
      os << llvm::formatv("  transform.vibegemm.group_blocks %gemm_launch "
                          "{{group = {0}} : !transform.any_op\n",
                          t.groupRows);
  };
  // Clusters pair blocks by their y id, before grouping renumbers them; a
  // persistent kernel in clusters orders its tiles itself (group_rows).
  bool ownOrder = t.clusterRows > 1 && t.persistentBlocks;
  if (t.clusterRows == 1)
    groupBlocks();
  const char *anyOp = "(!transform.any_op) -> !transform.any_op";
  if (!t.alignOperands.empty()) {
    os << "  transform.vibegemm.align_operand_rows %gemm_mapped ";
    llvm::SmallVector<std::string, 2> attrs;
    if (t.alignOperands.size() == 1)
      attrs.push_back(
          llvm::formatv("operands = array<i64: {0}>", t.alignOperands[0]));
    if (t.alignRowBytes != 16)
      attrs.push_back(llvm::formatv("row_bytes = {0} : i64", t.alignRowBytes));
    if (!attrs.empty())
      os << "{" << llvm::join(attrs, ", ") << "} ";
    os << ": !transform.any_op\n";
  }
  if (t.path == KernelPath::Wgmma)
    os << llvm::formatv(
        "  %k_loop = transform.vibegemm.gemm_to_wgmma %gemm_mapped "
        "{{stages = {0}, consumers = {1}{2}{3}} : {4}\n",
        t.stages, t.consumers, f32PrecisionAttr(t),
        (t.persistentBlocks
             ? llvm::formatv(", persistent_blocks = {0}", t.persistentBlocks)
                   .str()
             : std::string()) +
            (t.clusterRows > 1
                 ? llvm::formatv(", cluster_rows = {0}", t.clusterRows).str()
                 : std::string()) +
            (ownOrder && t.groupRows > 1
                 ? llvm::formatv(", group_rows = {0}", t.groupRows).str()
                 : std::string()) +
            (t.tmaStore ? ", tma_store" : "") +
            (t.tmaLoadResidual ? ", tma_load_residual" : ""),
        anyOp);
  else if (t.path == KernelPath::Ffma)
    os << llvm::formatv(
        "  %k_loop = transform.vibegemm.gemm_to_ffma %gemm_mapped "
        "{{block_k = {0}, thread_tile = array<i64: {1}, {2}>, stages = {3}} : "
        "{4}\n",
        t.blockK, t.threadM, t.threadN, t.stages, anyOp);
  else
    os << llvm::formatv(
        "  %k_loop = transform.vibegemm.gemm_to_mma_sync %gemm_mapped "
        "{{block_k = {0}, warps = array<i64: {1}, {2}>, stages = {3}{4}} : "
        "{5}\n",
        t.blockK, t.warpsM, t.warpsN, t.stages, f32PrecisionAttr(t), anyOp);
  if (t.clusterRows > 1 && !ownOrder)
    groupBlocks();
}
} // namespace

std::string schedule::writeKernelSchedule(const GemmProblem &problem,
                                          const KernelTiling &t,
                                          const DispatchOps &ops,
                                          StringRef sequenceName,
                                          StringRef comment) {
  bool batched = problem.batched;
  std::string text;
  llvm::raw_string_ostream os(text);
  const char *anyOp = "(!transform.any_op) -> !transform.any_op";
  auto knob = [&](StringRef name, int64_t value, StringRef options) {
    os << llvm::formatv("  %{0} = transform.tune.knob<\"{0}\"> = {1} : i64 "
                        "from options = [{2}] -> !transform.param<i64>\n",
                        name, value, options);
  };
  os << "transform.named_sequence @" << sequenceName
     << "(%func: !transform.any_op {transform.consumed}) {\n";
  os << "  // " << comment << "\n";
  if (t.path == KernelPath::BlockReduce)
    os << llvm::formatv(
        "  // Matrix-vector schedule: {1} output(s) per block, {0} threads "
        "splitting K,\n  // warp shuffles and shared memory reducing.\n",
        t.threads, t.blockM * t.blockN);
  else if (t.path == KernelPath::Wgmma)
    os << llvm::formatv(
        "  // Hopper schedule: {0}x{1} block tiles, a TMA producer warpgroup "
        "and {2} wgmma\n  // consumer warpgroup(s), K steps of {5} through a "
        "{3}-stage mbarrier ring{4}{6}{7}.\n",
        t.blockM, t.blockN, t.consumers, t.stages,
        t.alignOperands.empty() ? ""
                                : ",\n  // operands with misaligned rows "
                                  "copied into padded buffers first",
        t.f32Precision.empty() ? std::string("64")
                               : "32 (f32 operands as " + t.f32Precision +
                                     ", which the user allowed)",
        t.persistentBlocks
            ? llvm::formatv(",\n  // persistent: {0} blocks loop over the "
                            "tiles",
                            t.persistentBlocks)
                  .str()
            : std::string(),
        t.clusterRows > 1
            ? llvm::formatv(",\n  // clusters of {0} blocks along M "
                            "multicast their parts of B",
                            t.clusterRows)
                  .str()
            : std::string());
  else if (t.path == KernelPath::Ffma)
    os << llvm::formatv(
        "  // CUDA-core f32 schedule (no TF32): {0}x{1} block tiles, {2}x{3} "
        "FFMA outputs per\n  // thread, K steps of {4} through a {5}-stage "
        "cp.async ring, epilogue on registers.\n",
        t.blockM, t.blockN, t.threadM, t.threadN, t.blockK, t.stages);
  else
    os << llvm::formatv(
        "  // Tensor-core schedule: {0}x{1} block tiles, {2}x{3} warps of "
        "{6} mma.sync,\n  // K steps of {4} through a {5}-stage "
        "cp.async ring, epilogue on registers.\n",
        t.blockM, t.blockN, t.warpsM, t.warpsN, t.blockK, t.stages,
        t.f32Precision.empty() ? std::string("m16n8k16")
                               : "m16n8k8 " + t.f32Precision +
                                     " (f32 operands; the user "
                                     "allowed " +
                                     t.f32Precision + ")");
  StringRef tileOptions =
      t.path == KernelPath::BlockReduce ? "1, 2" : "16, 32, 64, 128, 256";
  knob("block_m", t.blockM, tileOptions);
  knob("block_n", t.blockN, tileOptions);
  writeRoleMatches(os, ops, /*softmax=*/true);
  FusionPlan plan = planFusion(problem, ops);
  bool fused = plan.fused;
  const std::string &anchor = plan.anchor, &lead = plan.lead,
                    &blockMap = plan.blockMap;
  SmallVector<std::string> &producers = plan.producers;
  auto tileToBlocks = [&](StringRef op, StringRef tiled, StringRef loop) {
    os << llvm::formatv(
        "  %{0}, %{1} = transform.structured.tile_using_forall %{2} "
        "tile_sizes [{3}%block_m, %block_n] (mapping = [{4}]) : "
        "(!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> "
        "(!transform.any_op, !transform.any_op)\n",
        tiled, loop, op, lead, blockMap);
  };
  if (t.splitK > 1) {
    // Split-K: the partial GEMM is a batch-like op over [split, M, N]
    // (tensor cores), the combining sum and the epilogue chain a SIMT
    // kernel with one output per thread: 16x16 threads over 16x16 tiles.
    // The sum is latency-bound, so it wants many blocks with coalesced
    // loads, and LLVM unrolls a one-output loop 8 deep (8 partials in
    // flight; unrolling it whole gained nothing on the H200, A/B in one
    // run: a_huge_k 20.0 / 19.9 us); 4x4 outputs per thread over 64x64
    // tiles ran 4 blocks for a 128x128 output.
    os << llvm::formatv(
        "  %split_init, %split_fill, %split_gemm, %split_combine = "
        "transform.structured.split_reduction %root {{split_factor = {0}, "
        "insert_split_dimension = 0} : (!transform.any_op) -> "
        "(!transform.any_op, !transform.any_op, !transform.any_op, "
        "!transform.any_op)\n"
        "  transform.annotate %split_gemm \"vibegemm.split_k\" : "
        "!transform.any_op\n"
        "  %sg_tiled, %sg_forall = transform.structured.tile_using_forall "
        "%split_gemm tile_sizes [1, %block_m, %block_n] (mapping = "
        "[#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]) : (!transform.any_op, "
        "!transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, "
        "!transform.any_op)\n"
        "  %sf_fused, %sg_loop = transform.structured.fuse_into_containing_op "
        "%split_fill into %sg_forall : (!transform.any_op, !transform.any_op) "
        "-> (!transform.any_op, !transform.any_op)\n",
        t.splitK);
    // Producers of the combine kernel: epilogues (last first), the
    // combining sum, the output's fill.
    SmallVector<std::string> chainOps;
    std::string chainAnchor = fused ? anchor : "split_combine";
    for (const std::string &p : producers)
      chainOps.push_back(p == "root" ? "split_combine" : p);
    if (!fused && ops.hasInit)
      chainOps.assign({"init"});
    std::string sizes = llvm::formatv(
        chainAnchor == "split_combine" ? "0, {0}, {0}" : "{0}, {0}",
        kCombineTile);
    std::string threadsSpec =
        chainAnchor == "split_combine" ? "0, 16, 16" : "16, 16";
    const char *twoResults =
        "(!transform.any_op) -> (!transform.any_op, !transform.any_op)";
    os << llvm::formatv(
        "  %c_tiled, %c_forall = transform.structured.tile_using_forall %{0} "
        "tile_sizes [{1}] (mapping = [#gpu.block<y>, #gpu.block<x>]) : {2}\n",
        chainAnchor, sizes, twoResults);
    writeFusions(os, chainOps, "", "_c", "c_forall", "c_loop");
    os << llvm::formatv(
        "  %t_tiled, %t_forall = transform.structured.tile_using_forall "
        "%c_tiled num_threads [{0}] (mapping = [#gpu.thread<y>, "
        "#gpu.thread<x>]) : {1}\n",
        threadsSpec, twoResults);
    writeFusions(os, chainOps, "_c", "_t", "t_forall", "t_loop");
    writeBufferizeFunction(os);
    os << "  transform.apply_patterns to %buffers {\n"
          "    transform.apply_patterns.canonicalization\n"
          "  } {apply_cse} : !transform.any_op\n"
          "  %gemm = transform.structured.match attributes{vibegemm.split_k} "
          "in %buffers : "
       << anyOp << "\n"
       << "  %gemm_blocks = transform.get_parent_op %gemm {op_name = "
          "\"scf.forall\"} : "
       << anyOp << "\n"
       << "  %gemm_launch = transform.gpu.map_forall_to_blocks %gemm_blocks "
          "generate_gpu_launch : "
       << anyOp << "\n"
       << "  %gemm_mapped = transform.structured.match attributes"
          "{vibegemm.split_k} in %gemm_launch : "
       << anyOp << "\n";
    writeBlockGemmRewrite(os, t);
    os << llvm::formatv(
        "  %combine_loops = transform.structured.match ops{{[\"scf.forall\"]} "
        "attributes{{mapping = [#gpu.block<y>, #gpu.block<x>]} in %buffers : "
        "{0}\n"
        "  transform.foreach %combine_loops : !transform.any_op {{\n"
        "  ^bb0(%block_loop: !transform.any_op):\n"
        "    %launch = transform.gpu.map_forall_to_blocks %block_loop "
        "generate_gpu_launch : {0}\n"
        "    %mapped = transform.gpu.map_nested_forall_to_threads %launch "
        "block_dims = [16, 16, 1] : {0}\n"
        "  }\n"
        "  transform.apply_patterns to %buffers {{\n"
        "    transform.apply_patterns.canonicalization\n"
        "  } {{apply_cse} : !transform.any_op\n"
        "  transform.yield\n}\n",
        anyOp);
    return text;
  }
  tileToBlocks(anchor, "b_tiled", "b_forall");
  writeFusions(os, producers, "", "_b", "b_forall", "b_loop");
  // A softmax consumer: its own kernel, one row per block (a grid of
  // batches by rows when batched).
  if (ops.hasSoftmax)
    writeSoftmaxRowTiling(os, problem);
  // Unfused epilogues: SIMT kernels, 16x16 threads over 64x64 tiles.
  if (!fused)
    for (StringRef e : ops.epilogues)
      os << llvm::formatv(
          "  %{0}_b, %{0}_blk = transform.structured.tile_using_forall %{0} "
          "tile_sizes [{1}64, 64] (mapping = [{2}]) : {3}\n"
          "  %{0}_t, %{0}_thr = transform.structured.tile_using_forall %{0}_b "
          "num_threads [{4}16, 16] (mapping = [#gpu.thread<y>, "
          "#gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, "
          "!transform.any_op)\n",
          e, lead, blockMap,
          "(!transform.any_op) -> (!transform.any_op, !transform.any_op)",
          batched ? "0, " : "");
  writeBufferizeFunction(os);
  // Folds the self-copies bufferization leaves behind the epilogue.
  os << "  transform.apply_patterns to %buffers {\n"
        "    transform.apply_patterns.canonicalization\n"
        "  } {apply_cse} : !transform.any_op\n";
  os << "  %gemm = transform.structured.match attributes{vibegemm.role = "
        "\"root\"} in %buffers : "
     << anyOp << "\n";
  os << "  %gemm_blocks = transform.get_parent_op %gemm {op_name = "
        "\"scf.forall\"} : "
     << anyOp << "\n";
  os << "  %gemm_launch = transform.gpu.map_forall_to_blocks %gemm_blocks "
        "generate_gpu_launch : "
     << anyOp << "\n";
  os << "  %gemm_mapped = transform.structured.match attributes{vibegemm.role "
        "= \"root\"} in %gemm_launch : "
     << anyOp << "\n";
  if (t.path == KernelPath::BlockReduce)
    os << llvm::formatv(
        "  %k_loop = transform.vibegemm.gemm_to_block_reduce %gemm_mapped "
        "{{threads = {0}} : {1}\n",
        t.threads, anyOp);
  else
    writeBlockGemmRewrite(os, t);
  if (!fused && !ops.epilogues.empty())
    os << llvm::formatv(
        "  %epilogue_loops = transform.structured.match ops{{[\"scf.forall\"]} "
        "attributes{{mapping = [{0}]} in %buffers : {1}\n"
        "  transform.foreach %epilogue_loops : !transform.any_op {{\n"
        "  ^bb0(%block_loop: !transform.any_op):\n"
        "    %launch = transform.gpu.map_forall_to_blocks %block_loop "
        "generate_gpu_launch : {1}\n"
        "    %mapped = transform.gpu.map_nested_forall_to_threads %launch "
        "block_dims = [16, 16, 1] : {1}\n"
        "  }\n",
        blockMap, anyOp);
  if (ops.hasSoftmax)
    writeSoftmaxRowKernel(os, problem, "buffers");
  os << "  transform.apply_patterns to %buffers {\n"
        "    transform.apply_patterns.canonicalization\n"
        "  } {apply_cse} : !transform.any_op\n";
  os << "  transform.yield\n}\n";
  return text;
}

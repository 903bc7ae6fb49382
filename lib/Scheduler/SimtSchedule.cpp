//===- SimtSchedule.cpp - The SIMT schedules ------------------------------===//
//
// Writes the staged SIMT schedule (A and B K-tiles through shared memory, a
// register tile per thread), and dispatches the other kinds to their
// writers; also the helpers the writers share: role matches, fusion, the
// softmax's row kernel.
//
//===----------------------------------------------------------------------===//

#include "ScheduleWriters.h"
#include "vibegemm/Scheduler/BuiltinScheduler.h"
#include "vibegemm/Scheduler/ScriptCheck.h"

#include "mlir/IR/Verifier.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::vibegemm;
using namespace mlir::vibegemm::schedule;

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
  bool batched = problem.batched;
  plan.lead = batched ? "1, " : "";
  plan.blockMap = batched ? "#gpu.block<z>, #gpu.block<y>, #gpu.block<x>"
                          : "#gpu.block<y>, #gpu.block<x>";
  return plan;
}

void schedule::writeFusions(llvm::raw_ostream &os,
                            ArrayRef<std::string> producers, StringRef from,
                            StringRef to, std::string loop, StringRef prefix) {
  for (auto [i, p] : llvm::enumerate(producers)) {
    std::string next = (prefix + Twine(i)).str();
    os << llvm::formatv(
        "  %{0}{1}, %{2} = transform.structured.fuse_into_containing_op "
        "%{0}{3} into %{4} : (!transform.any_op, !transform.any_op) -> "
        "(!transform.any_op, !transform.any_op)\n",
        p, to, next, from, loop);
    loop = next;
  }
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

void schedule::writeRoleMatches(llvm::raw_ostream &os, const DispatchOps &ops,
                                bool softmax) {
  for (const std::string &role : ops.roles(softmax))
    os << llvm::formatv("  %{0} = transform.structured.match attributes"
                        "{{vibegemm.role = \"{0}\"} in %func : "
                        "(!transform.any_op) -> !transform.any_op\n",
                        role);
}

StringRef schedule::softmaxBlockMap(const GemmProblem &p) {
  return p.batched ? "#gpu.block<y>, #gpu.block<x>" : "#gpu.block<x>";
}

void schedule::writeSoftmaxRowTiling(llvm::raw_ostream &os,
                                     const GemmProblem &p) {
  os << llvm::formatv(
      "  %softmax_b, %softmax_blk = transform.structured.tile_using_forall "
      "%softmax tile_sizes [{0}] (mapping = [{1}]) : "
      "(!transform.any_op) -> (!transform.any_op, !transform.any_op)\n",
      p.batched ? "1, 1" : "1", softmaxBlockMap(p));
}

void schedule::writeSoftmaxRowKernel(llvm::raw_ostream &os,
                                     const GemmProblem &p, StringRef buffers) {
  os << llvm::formatv(
      "  %softmax_buf = transform.structured.match ops{{[\"linalg.softmax\"]} "
      "in %{0} : {1}\n"
      "  %softmax_blocks = transform.get_parent_op %softmax_buf {{op_name = "
      "\"scf.forall\"} : {1}\n"
      "  %softmax_launch = transform.gpu.map_forall_to_blocks "
      "%softmax_blocks generate_gpu_launch : {1}\n"
      "  %softmax_mapped = transform.structured.match "
      "ops{{[\"linalg.softmax\"]} in %softmax_launch : {1}\n"
      "  %row_loop = transform.vibegemm.softmax_to_block_reduce "
      "%softmax_mapped {{threads = {2}} : {1}\n",
      buffers, "(!transform.any_op) -> !transform.any_op",
      softmaxThreadsFor(p));
}

namespace {

/// The staged SIMT schedule. `{KEY}` placeholders are filled by
/// writeSimtSchedule; lines starting with `E|` are kept only when the
/// dispatch has an epilogue, `N|` only when it has none, `G|` only for the
/// GPU and `C|` only for the CPU check. A softmax consumer comes in through
/// `{SOFTMAX_TILING}` and `{SOFTMAX_KERNEL}`.
constexpr llvm::StringLiteral kStagedTemplate =
    R"mlir(transform.named_sequence @{NAME}(%func: !transform.any_op {transform.consumed}) {
  // {COMMENT}
  // Staged SIMT schedule: block tiles over M and N, a K loop whose A and B
  // tiles are copied cooperatively into shared memory, a {TM}x{TN} register
  // tile per thread, and an accumulator that stays in registers.
  %block_m = transform.tune.knob<"block_m"> = {BM} : i64 from options = [4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
  %block_n = transform.tune.knob<"block_n"> = {BN} : i64 from options = [4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
  %block_k = transform.tune.knob<"block_k"> = {BK} : i64 from options = [8, 16, 32] -> !transform.param<i64>
  %thread_m = transform.tune.knob<"thread_m"> = {TM} : i64 from options = [2, 4, 8] -> !transform.param<i64>
  %thread_n = transform.tune.knob<"thread_n"> = {TN} : i64 from options = [2, 4, 8] -> !transform.param<i64>
  %root = transform.structured.match attributes{vibegemm.role = "root"} in %func : (!transform.any_op) -> !transform.any_op
  %init = transform.structured.match attributes{vibegemm.role = "init"} in %func : (!transform.any_op) -> !transform.any_op
E|  %epi = transform.structured.match attributes{vibegemm.role = "epilogue0"} in %func : (!transform.any_op) -> !transform.any_op
  // 1. Block tiles; the fill (and the GEMM under an epilogue) are fused in.
X|  // Ragged M or N: the fill runs as its own kernel, and the GEMM is split
X|  // into an interior the block tile divides and edges the direct schedule
X|  // covers, each accumulating onto the filled output.
X|  %fill_b, %fill_blk = transform.structured.tile_using_forall %init tile_sizes [%block_m, %block_n] (mapping = [#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
X|  %fill_t, %fill_thr = transform.structured.tile_using_forall %fill_b num_threads [{BDY}, {BDX}] (mapping = [#gpu.thread<y>, #gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
{SPLIT}
N|  %tmm, %blk = transform.structured.tile_using_forall {GEMM} tile_sizes [%block_m, %block_n] (mapping = [#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
NF|  %bfill, %blk2 = transform.structured.fuse_into_containing_op %init into %blk : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
E|  %tepi, %blk = transform.structured.tile_using_forall %epi tile_sizes [%block_m, %block_n] (mapping = [#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
E|  %tmm, %blk1 = transform.structured.fuse_into_containing_op %root into %blk : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
E|  %bfill, %blk2 = transform.structured.fuse_into_containing_op %init into %blk1 : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
{SOFTMAX_TILING}
{EDGES}
  // 2. The K loop.
  %kmm, %kloop = transform.structured.tile_using_for %tmm tile_sizes [0, 0, %block_k] : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
  // 3. A and B K-tiles become explicit copies, split over all threads.
  %padded, %pad, %copy_back = transform.structured.pad %kmm {padding_values = [0.0 : {TA}, 0.0 : {TB}, 0.0 : {TACC}], padding_dimensions = [0, 1, 2], nofold_flags = [1, 1, 0], copy_back_op = "none"} : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
  %pad_forall, %pad_tiles = transform.structured.gpu.map_copy_to_threads %pad total_num_threads = {NT} desired_bit_alignment = {COPYBITS} : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
  transform.foreach %pad_forall : !transform.any_op {
  ^bb0(%copy: !transform.any_op):
    %if = transform.structured.match ops{["scf.if"]} in %copy : (!transform.any_op) -> !transform.any_op
    transform.scf.take_assumed_branch %if take_else_branch : (!transform.any_op) -> ()
  }
  // 4. Register tiles per thread.
  %thmm, %thr = transform.structured.tile_using_forall %padded tile_sizes [%thread_m, %thread_n] (mapping = [#gpu.thread<y>, #gpu.thread<x>]) : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
F|  %thfill, %thr2 = transform.structured.tile_using_forall %bfill tile_sizes [%thread_m, %thread_n] (mapping = [#gpu.thread<y>, #gpu.thread<x>]) : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
E|  %thepi, %thr3 = transform.structured.tile_using_forall %tepi tile_sizes [%thread_m, %thread_n] (mapping = [#gpu.thread<y>, #gpu.thread<x>]) : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
  transform.apply_patterns to %func {
    transform.apply_patterns.canonicalization
    transform.apply_patterns.linalg.tiling_canonicalization
  } {apply_cse} : !transform.any_op
  // Vector sizes of the copies are each thread's share of the A and B tiles.
  %copy_a, %copy_b = transform.split_handle %pad_tiles : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
  transform.structured.vectorize %copy_a vector_sizes [{COPYA}] : !transform.any_op
  transform.structured.vectorize %copy_b vector_sizes [{COPYB}] : !transform.any_op
  transform.structured.vectorize %thmm : !transform.any_op
F|  transform.structured.vectorize %thfill : !transform.any_op
E|  transform.structured.vectorize %thepi : !transform.any_op
  // 5. The staged tiles live in shared memory (address space 3).
  %smem, %smem_ops = transform.structured.bufferize_to_allocation %pad_forall {memory_space = {SMEM_SPACE}, bufferize_destination_only, alloc_op = "memref.alloca"} : !transform.any_op
  transform.apply_patterns to %func {
    transform.apply_patterns.canonicalization
    transform.apply_patterns.vector.lower_masked_transfers
  } {apply_cse} : !transform.any_op
  // 6. Bufferize the dispatch (its boundary is bufferized with the module).
  transform.bufferization.eliminate_empty_tensors %func : !transform.any_op
  transform.apply_dce to %func : !transform.any_op
  transform.apply_cse to %func : !transform.any_op
  %bf = transform.bufferization.one_shot_bufferize %func {memcpy_op = "linalg.copy"} : (!transform.any_op) -> !transform.any_op
  transform.apply_patterns to %bf {
    transform.apply_patterns.canonicalization
  } {apply_cse} : !transform.any_op
  %copies = transform.structured.match ops{["linalg.copy"]} in %bf : (!transform.any_op) -> !transform.any_op
  transform.structured.vectorize %copies : !transform.any_op
  %allocas = transform.structured.match ops{["memref.alloca"]} in %bf : (!transform.any_op) -> !transform.op<"memref.alloca">
  %smem_get, %smem_global = transform.memref.alloca_to_global %allocas : (!transform.op<"memref.alloca">) -> (!transform.any_op, !transform.any_op)
{EDGE_PROMOTE}
  // The return op outlives the mapping and leads back to the function.
  %ret = transform.structured.match ops{["func.return"]} in %bf : (!transform.any_op) -> !transform.any_op
  // 7. Map to blocks and threads.
GF|  %launch_parent = transform.gpu.map_forall_to_blocks %bf generate_gpu_launch : (!transform.any_op) -> !transform.any_op
GF|  %launch = transform.structured.match ops{["gpu.launch"]} in %launch_parent : (!transform.any_op) -> !transform.any_op
GF|  %mapped = transform.gpu.map_nested_forall_to_threads %launch block_dims = [{BDX}, {BDY}, 1] : (!transform.any_op) -> !transform.any_op
GF|  %f2 = transform.get_parent_op %mapped {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
GX|  // One kernel per block-mapped loop: fill, interior, edges (or the GEMM).
GX|  %block_loops = transform.structured.match ops{["scf.forall"]} attributes{mapping = [#gpu.block<y>, #gpu.block<x>]} in %bf : (!transform.any_op) -> !transform.any_op
GX|  transform.foreach %block_loops : !transform.any_op {
GX|  ^bb0(%block_loop: !transform.any_op):
GX|    %launch = transform.gpu.map_forall_to_blocks %block_loop generate_gpu_launch : (!transform.any_op) -> !transform.any_op
GX|    %mapped = transform.gpu.map_nested_forall_to_threads %launch block_dims = [{BDX}, {BDY}, 1] : (!transform.any_op) -> !transform.any_op
GX|  }
{SOFTMAX_KERNEL}
GX|  %f2 = transform.get_parent_op %ret {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
C|  // CPU check: blocks and threads run as sequential loops, which keeps the
C|  // order the barriers enforce on the GPU.
C|  %foralls = transform.structured.match ops{["scf.forall"]} in %bf : (!transform.any_op) -> !transform.any_op
C|  transform.foreach %foralls : !transform.any_op {
C|  ^bb0(%forall: !transform.any_op):
C|    %as_loops = transform.loop.forall_to_parallel %forall : (!transform.any_op) -> !transform.any_op
C|  }
C|  %f2 = transform.get_parent_op %ret {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
  transform.apply_patterns to %f2 {
    transform.apply_patterns.canonicalization
    transform.apply_patterns.memref.fold_memref_alias_ops
  } {apply_cse} : !transform.any_op
  %loops = transform.structured.match ops{["scf.for"]} in %f2 : (!transform.any_op) -> !transform.any_op
  transform.apply_licm to %loops : !transform.any_op
  // 8. Keep the accumulator in registers across the K loop.
  %h = transform.structured.hoist_redundant_vector_transfers %f2 : (!transform.any_op) -> !transform.any_op
E|  transform.memref.erase_dead_alloc_and_stores %h : (!transform.any_op) -> ()
  // 9. Contractions become outer products, then FMAs.
  transform.apply_patterns to %h {
    transform.apply_patterns.vector.reduction_to_contract
    transform.apply_patterns.vector.transfer_permutation_patterns
    transform.apply_patterns.vector.sink_ops
    transform.apply_patterns.canonicalization
  } {apply_cse} : !transform.any_op
  transform.apply_patterns to %h {
    transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
    transform.apply_patterns.vector.lower_outerproduct
    transform.apply_patterns.vector.lower_transpose
    transform.apply_patterns.vector.lower_broadcast
    transform.apply_patterns.vector.lower_shape_cast
    transform.apply_patterns.canonicalization
  } {apply_cse} : !transform.any_op
  transform.yield
}
)mlir";

/// Replaces every `{KEY}` in `text` and keeps or drops `E|`/`N|` lines.
std::string instantiate(StringRef text,
                        ArrayRef<std::pair<StringRef, std::string>> values,
                        bool hasEpilogue, bool cpuCheck, bool split,
                        bool softmax) {
  // A softmax kernel besides the GEMM's: each block loop is mapped apart.
  bool perLoop = split || softmax;
  std::string out;
  SmallVector<StringRef> lines;
  text.split(lines, '\n');
  for (StringRef line : lines) {
    // Tags, in this order: E (epilogue) / N (none), then F (fill fused) / X
    // (split), G (GPU mapping) / C (CPU check); GF and GX combine two, GX
    // standing for any per-loop mapping.
    if (line.consume_front("E|") && !hasEpilogue)
      continue;
    if (line.consume_front("NF|") && (hasEpilogue || split))
      continue;
    if (line.consume_front("N|") && hasEpilogue)
      continue;
    if (line.consume_front("F|") && split)
      continue;
    if (line.consume_front("X|") && !split)
      continue;
    if (line.consume_front("GF|") && (cpuCheck || perLoop))
      continue;
    if (line.consume_front("GX|") && (cpuCheck || !perLoop))
      continue;
    if (line.consume_front("G|") && cpuCheck)
      continue;
    if (line.consume_front("C|") && !cpuCheck)
      continue;
    std::string l = line.str();
    for (const auto &[key, value] : values) {
      std::string pattern = ("{" + key + "}").str();
      for (size_t pos = l.find(pattern); pos != std::string::npos;
           pos = l.find(pattern, pos + value.size()))
        l.replace(pos, pattern.size(), value);
    }
    if (!l.empty() || !line.empty())
      out += l + "\n";
  }
  return out;
}

/// The split section: cuts the GEMM at the largest multiples of the block
/// tile, leaving the interior handle in `%interior`.
std::string writeSplit(const SimtTiling &t) {
  std::string text;
  llvm::raw_string_ostream os(text);
  const char *split = "  %{0} = transform.structured.split %{1} after {2} "
                      "{{dimension = {3}} : !transform.any_op\n"
                      "  %{4}, %{5} = transform.split_handle %{0} : "
                      "(!transform.any_op) -> (!transform.any_op, "
                      "!transform.any_op)\n";
  std::string current = "root";
  if (t.splitM) {
    os << llvm::formatv(split, "parts_m", current, t.splitM, 0, "interior_m",
                        "edge_m");
    current = "interior_m";
  }
  if (t.splitN) {
    os << llvm::formatv(split, "parts_n", current, t.splitN, 1, "interior",
                        "edge_n");
    current = "interior";
  }
  os << "  %interior_gemm = transform.merge_handles %" << current
     << " : !transform.any_op";
  return text;
}

/// Direct tiling of each ragged edge. Edges are thin strips with long K, so
/// they get small block tiles with one output per thread: many blocks, and
/// one dot product per thread instead of a dozen in sequence.
std::string writeEdges(const SimtTiling &t) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (StringRef edge : {"edge_m", "edge_n"}) {
    if ((edge == "edge_m" && !t.splitM) || (edge == "edge_n" && !t.splitN))
      continue;
    os << llvm::formatv(
        "  %{0}_b, %{0}_blk = transform.structured.tile_using_forall %{0} "
        "tile_sizes [{1}, {2}] (mapping = [#gpu.block<y>, "
        "#gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, "
        "!transform.any_op)\n"
        "  %{0}_t, %{0}_thr = transform.structured.tile_using_forall %{0}_b "
        "num_threads [{1}, {2}] (mapping = [#gpu.thread<y>, "
        "#gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, "
        "!transform.any_op)\n",
        edge, t.blockM / t.threadM, t.blockN / t.threadN);
  }
  return text;
}

} // namespace

namespace {

/// The script of the schedules still written as text (the kernel paths and
/// the staged SIMT schedule), or none where the schedule is built as IR.
std::optional<std::string> writeScheduleText(const GemmProblem &problem,
                                             const SimtTiling &t,
                                             const DispatchOps &ops,
                                             StringRef sequenceName,
                                             bool cpuCheck) {
  if (t.reference)
    return std::nullopt;
  auto comment = llvm::formatv("{0}: {1}x{2}x{3} (batch {4}), {5}",
                               sequenceName, problem.m, problem.n, problem.k,
                               problem.batch, problem.dtypeString())
                     .str();
  if (t.kernel && !cpuCheck)
    return writeKernelSchedule(problem, *t.kernel, ops, sequenceName, comment);
  if (t.staged) {
    bool split = t.splitM || t.splitN;
    // A softmax consumer: a kernel of its own, one row per block
    // (decomposed for the CPU check).
    std::string softmaxTiling, softmaxKernel;
    if (ops.hasSoftmax) {
      llvm::raw_string_ostream tiling(softmaxTiling), kernel(softmaxKernel);
      tiling << "  %softmax = transform.structured.match attributes"
                "{vibegemm.role = \"softmax\"} in %func : (!transform.any_op) "
                "-> !transform.any_op\n";
      writeSoftmaxRowTiling(tiling, problem);
      if (cpuCheck)
        tiling << "  %softmax_parts = transform.structured.decompose_interface "
                  "%softmax_b : (!transform.any_op) -> !transform.any_op\n";
      else
        writeSoftmaxRowKernel(kernel, problem, "bf");
    }
    auto str = [](int64_t v) { return std::to_string(v); };
    return instantiate(
        kStagedTemplate,
        {{"NAME", sequenceName.str()},
         {"COMMENT", comment},
         {"BM", str(t.blockM)},
         {"BN", str(t.blockN)},
         {"BK", str(t.blockK)},
         {"TM", str(t.threadM)},
         {"TN", str(t.threadN)},
         {"NT", str(t.threadsPerBlock())},
         {"BDX", str(t.blockN / t.threadN)},
         {"BDY", str(t.blockM / t.threadM)},
         {"COPYBITS", str(t.copyBits)},
         {"COPYA", str(t.copyA[0]) + ", " + str(t.copyA[1])},
         {"COPYB", str(t.copyB[0]) + ", " + str(t.copyB[1])},
         {"TA", typeName(problem.lhsType)},
         {"TB", typeName(problem.rhsType)},
         {"TACC", typeName(problem.accType)},
         {"SMEM_SPACE", cpuCheck ? "0" : "3"},
         {"SOFTMAX_TILING", StringRef(softmaxTiling).rtrim('\n').str()},
         {"SOFTMAX_KERNEL", StringRef(softmaxKernel).rtrim('\n').str()},
         {"GEMM", split ? "%interior_gemm" : "%root"},
         {"SPLIT", split ? writeSplit(t) : ""},
         {"EDGES", split ? writeEdges(t) : ""},
         // Edge threads accumulate in a private copy of their C tile; the
         // interior's GEMMs were vectorized away, so only edges match.
         {"EDGE_PROMOTE",
          split ? "  %edge_gemms = transform.structured.match attributes"
                  "{vibegemm.role = \"root\"} in %bf : (!transform.any_op) "
                  "-> !transform.any_op\n"
                  "  %edge_promoted = transform.structured.promote "
                  "%edge_gemms {operands_to_promote = [2], use_alloca, "
                  "use_full_tiles_by_default} : (!transform.any_op) -> "
                  "!transform.any_op"
                : ""}},
        !ops.epilogues.empty(), cpuCheck, split, ops.hasSoftmax);
  }
  return std::nullopt;
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

FailureOr<transform::NamedSequenceOp>
vibegemm::buildSimtSchedule(OpBuilder &builder, func::FuncOp dispatch,
                            const GemmProblem &problem, const SimtTiling &t,
                            StringRef sequenceName, bool cpuCheck) {
  if (failed(checkTiling(dispatch, t)))
    return failure();
  MLIRContext *ctx = dispatch.getContext();
  DispatchOps ops = collectRoles(dispatch);
  if (std::optional<std::string> text =
          writeScheduleText(problem, t, ops, sequenceName, cpuCheck)) {
    OwningOpRef<ModuleOp> parsed = parseScript(ctx, *text);
    if (!parsed)
      return failure();
    auto sequence = *parsed->getOps<transform::NamedSequenceOp>().begin();
    sequence->moveBefore(builder.getInsertionBlock(),
                         builder.getInsertionPoint());
    return sequence;
  }
  ImplicitLocOpBuilder b(
      NameLoc::get(builder.getStringAttr("builtin-schedule")), builder);
  // The reference runs every op in a kernel of its own. Elsewhere thread
  // tiles shrink at ragged block edges, which would give a fused epilogue's
  // private accumulator a dynamic size: such epilogues run as kernels of
  // their own too.
  GemmProblem direct = problem;
  if (t.reference || problem.m % t.blockM || problem.n % t.blockN)
    direct.fuseEpilogues = false;
  transform::NamedSequenceOp sequence =
      buildDirectSchedule(b, direct, t, ops, sequenceName, cpuCheck);
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
  if (failed(checkTiling(dispatch, t)))
    return failure();
  if (std::optional<std::string> text = writeScheduleText(
          problem, t, collectRoles(dispatch), sequenceName, cpuCheck))
    return *text;
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(dispatch.getLoc());
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

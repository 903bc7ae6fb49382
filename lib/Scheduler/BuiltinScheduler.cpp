//===- BuiltinScheduler.cpp - The scheduler that needs no LLM -------------===//
//
// Chooses a SIMT tiling from the problem shape and writes it as a transform
// script: block tiles over M and N (and batch), the fill, GEMM and fused
// epilogue pulled into one kernel, a register tile per thread, then
// bufferization and the mapping to blocks and threads.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Scheduler/BuiltinScheduler.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::vibegemm;


SimtTiling vibegemm::chooseSimtTiling(const GemmProblem &problem,
                                      const TargetInfo &target) {
  SimtTiling t;
  // Large problems get 128x128 block tiles with 8x8 register tiles (256
  // threads); smaller ones shrink the tile until the grid fills the chip.
  int64_t blocks128 = problem.batch * llvm::divideCeil(problem.m, 128) *
                      llvm::divideCeil(problem.n, 128);
  if (blocks128 >= target.smCount) {
    t.blockM = t.blockN = 128;
    t.threadM = t.threadN = 8;
    t.blockK = 8;
  } else {
    t.blockM = t.blockN = 64;
    t.threadM = t.threadN = 4;
    t.blockK = 16;
  }
  // Skinny M (decode-like) shapes waste a 64-row tile.
  while (t.blockM > t.threadM && t.blockM / 2 >= problem.m)
    t.blockM /= 2;
  while (t.blockN > t.threadN && t.blockN / 2 >= problem.n)
    t.blockN /= 2;
  return t;
}

namespace {

/// Roles of the ops in a dispatch, in program order.
struct DispatchOps {
  bool hasInit = false;
  SmallVector<std::string> epilogues;
  bool hasSoftmax = false;
};

DispatchOps collectRoles(func::FuncOp dispatch) {
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

} // namespace

FailureOr<std::string>
vibegemm::writeSimtSchedule(func::FuncOp dispatch, const GemmProblem &problem,
                            const SimtTiling &t, StringRef sequenceName) {
  if (t.blockM % t.threadM || t.blockN % t.threadN)
    return dispatch.emitError("block tile must be a multiple of the thread "
                              "tile");
  DispatchOps ops = collectRoles(dispatch);
  bool batched = problem.batch > 1;

  std::string text;
  llvm::raw_string_ostream os(text);
  auto match = [&](StringRef var, StringRef role) {
    os << llvm::formatv("  %{0} = transform.structured.match attributes"
                        "{{vibegemm.role = \"{1}\"} in %func : "
                        "(!transform.any_op) -> !transform.any_op\n",
                        var, role);
  };
  auto knob = [&](StringRef name, int64_t value,
                  ArrayRef<int64_t> options) {
    os << llvm::formatv("  %{0} = transform.tune.knob<\"{0}\"> = {1} : i64 "
                        "from options = [{2}] -> !transform.param<i64>\n",
                        name, value,
                        llvm::join(llvm::map_range(options,
                                                   [](int64_t v) {
                                                     return std::to_string(v);
                                                   }),
                                   ", "));
  };

  os << "transform.named_sequence @" << sequenceName
     << "(%func: !transform.any_op {transform.consumed}) {\n";
  os << llvm::formatv("  // {0}: {1}x{2}x{3} (batch {4}), {5}\n",
                      sequenceName, problem.m, problem.n, problem.k,
                      problem.batch, problem.dtypeString());
  knob("block_m", t.blockM, {16, 32, 64, 128, 256});
  knob("block_n", t.blockN, {16, 32, 64, 128, 256});
  knob("thread_m", t.threadM, {1, 2, 4, 8});
  knob("thread_n", t.threadN, {1, 2, 4, 8});

  match("root", "root");
  if (ops.hasInit)
    match("init", "init");
  for (StringRef e : ops.epilogues)
    match(e, e);

  // The last fused op anchors the tiling; producers are fused into it.
  std::string anchor = ops.epilogues.empty() ? "root" : ops.epilogues.back();
  std::string lead = batched ? "1, " : "";
  std::string blockMap = batched ? "#gpu.block<z>, #gpu.block<y>, "
                                   "#gpu.block<x>"
                                 : "#gpu.block<y>, #gpu.block<x>";
  std::string threadMap = batched ? "#gpu.thread<z>, #gpu.thread<y>, "
                                    "#gpu.thread<x>"
                                  : "#gpu.thread<y>, #gpu.thread<x>";
  os << llvm::formatv(
      "  %b_tiled, %b_forall = transform.structured.tile_using_forall "
      "%{0} tile_sizes [{1}%block_m, %block_n] (mapping = [{2}]) : "
      "(!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> "
      "(!transform.any_op, !transform.any_op)\n",
      anchor, lead, blockMap);
  // Fuse producers from the last to the first so each finds its consumer
  // already inside the loop.
  SmallVector<std::string> producers;
  for (int i = static_cast<int>(ops.epilogues.size()) - 2; i >= 0; --i)
    producers.push_back(ops.epilogues[i]);
  if (!ops.epilogues.empty())
    producers.push_back("root");
  if (ops.hasInit)
    producers.push_back("init");
  std::string loop = "b_forall";
  int step = 0;
  for (const std::string &p : producers) {
    os << llvm::formatv(
        "  %{0}_b, %loop{1} = transform.structured.fuse_into_containing_op "
        "%{0} into %{2} : (!transform.any_op, !transform.any_op) -> "
        "(!transform.any_op, !transform.any_op)\n",
        p, step, loop);
    loop = "loop" + std::to_string(step++);
  }
  // Thread tiling of the anchor, with the same producer fusion.
  os << llvm::formatv(
      "  %t_tiled, %t_forall = transform.structured.tile_using_forall "
      "%b_tiled tile_sizes [{0}%thread_m, %thread_n] (mapping = [{1}]) : "
      "(!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> "
      "(!transform.any_op, !transform.any_op)\n",
      lead, threadMap);
  loop = "t_forall";
  for (const std::string &p : producers) {
    os << llvm::formatv(
        "  %{0}_t, %loop{1} = transform.structured.fuse_into_containing_op "
        "%{0}_b into %{2} : (!transform.any_op, !transform.any_op) -> "
        "(!transform.any_op, !transform.any_op)\n",
        p, step, loop);
    loop = "loop" + std::to_string(step++);
  }
  os << "  transform.apply_patterns to %func {\n"
        "    transform.apply_patterns.canonicalization\n"
        "  } : !transform.any_op\n";
  os << "  %buffers = transform.bufferization.one_shot_bufferize %func {memcpy_op = \"linalg.copy\"} : "
        "(!transform.any_op) -> !transform.any_op\n";
  os << "  %launch = transform.gpu.map_forall_to_blocks %buffers "
        "generate_gpu_launch : (!transform.any_op) -> !transform.any_op\n";
  os << llvm::formatv("  %mapped = transform.gpu.map_nested_forall_to_threads "
                      "%launch block_dims = [{0}, {1}, 1] : "
                      "(!transform.any_op) -> !transform.any_op\n",
                      t.blockN / t.threadN, t.blockM / t.threadM);
  os << "  transform.yield\n}\n";
  return text;
}

std::string vibegemm::wrapForReplay(StringRef sequenceText,
                                    StringRef sequenceName,
                                    StringRef dispatchName) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "// Schedule for dispatch @" << dispatchName
     << ". Replay on a module holding the dispatch function with\n"
        "//   vibegemm-opt dispatches.mlir "
        "--transform-preload-library=transform-library-paths=THIS_FILE \\\n"
        "//     --transform-interpreter --vibegemm-lower-to-ptx\n"
        "module attributes {transform.with_named_sequence} {\n";
  os << sequenceText;
  os << llvm::formatv(
      "transform.named_sequence @__transform_main(%module: !transform.any_op "
      "{{transform.consumed}) {{\n"
      "  %func = transform.structured.match ops{{[\"func.func\"]} "
      "attributes{{sym_name = \"{0}\"} in %module : (!transform.any_op) -> "
      "!transform.any_op\n"
      "  transform.include @{1} failures(propagate) (%func) : "
      "(!transform.any_op) -> ()\n"
      "  transform.yield\n}\n}\n",
      dispatchName, sequenceName);
  return text;
}

//===- Timing.cpp - How the runtime times a plan or cuBLAS ----------------===//
//
// The protocol of Timing.h: warm-up, then either CUDA-graph replays over
// rotating buffer sets or sustained untimed runs followed by event-timed
// runs, each after an L2 flush by a small read kernel written in PTX.
//
//===----------------------------------------------------------------------===//

#include "Timing.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace mlir::vibegemm::cuda;

namespace mlir::vibegemm::runtime::detail {

double median(std::vector<double> v) {
  if (v.empty())
    return NAN;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

namespace {

/// A kernel that reads `n16` 16-byte chunks at `src` and stores nothing
/// unless their xor is a value a zeroed buffer cannot give (so the loads
/// stay). Reading twice L2's size leaves L2 holding clean lines of that
/// buffer: the next timed run starts cold without first writing back the
/// dirty lines a memset flush leaves (on the H200 that write-back added
/// 7 us of 34 to cuBLAS on 16x11008x4096;
/// docs/benchmarks/h200-2026-12-04-flush/flush-effect.py).
constexpr const char *kL2ReadPtx = R"(.version 7.0
.target sm_70
.address_size 64
.visible .entry vibegemm_l2_read(.param .u64 src, .param .u64 n16,
                                 .param .u64 sink) {
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [src];
  ld.param.u64 %rd2, [n16];
  ld.param.u64 %rd3, [sink];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %nctaid.x;
  cvt.u64.u32 %rd4, %r3;
  mul.wide.u32 %rd5, %r1, %r2;
  add.u64 %rd4, %rd4, %rd5;
  mul.wide.u32 %rd6, %r4, %r2;
  mov.u32 %r5, 0;
LOOP:
  setp.ge.u64 %p1, %rd4, %rd2;
  @%p1 bra DONE;
  shl.b64 %rd7, %rd4, 4;
  add.u64 %rd7, %rd1, %rd7;
  ld.global.v4.u32 {%r6, %r7, %r8, %r9}, [%rd7];
  xor.b32 %r5, %r5, %r6;
  xor.b32 %r5, %r5, %r7;
  xor.b32 %r5, %r5, %r8;
  xor.b32 %r5, %r5, %r9;
  add.u64 %rd4, %rd4, %rd6;
  bra LOOP;
DONE:
  setp.ne.u32 %p1, %r5, 1234567;
  @%p1 bra END;
  st.global.u32 [%rd3], %r5;
END:
  ret;
}
)";

} // namespace

CUfunction Session::l2ReadKernel() {
  if (!l2ReadTried) {
    l2ReadTried = true;
    CUmodule module = nullptr;
    if (!d->cuModuleLoadDataEx(&module, kL2ReadPtx, 0, nullptr, nullptr))
      d->cuModuleGetFunction(&l2Read, module, "vibegemm_l2_read");
  }
  return l2Read;
}

namespace {

/// Evicts L2 before each timed run: a read of a zeroed buffer twice L2's
/// size (clean), or, where the read kernel does not load, a memset of it
/// (dirty lines, written back during the next run).
class L2Flush {
public:
  L2Flush(Session &s, DeviceMemory &mem) : s(s), mem(mem) {}
  Outcome init(size_t bytes) {
    this->bytes = bytes;
    if (Outcome o = mem.allocate(bytes + 16, buffer, "the L2 flush buffer"); !o)
      return o;
    s.d->cuMemsetD8Async(buffer, 0, bytes + 16, s.stream);
    read = s.l2ReadKernel();
    return Outcome::ok();
  }
  CUresult enqueue(int run) {
    if (!read)
      return s.d->cuMemsetD8Async(buffer, static_cast<unsigned char>(run),
                                  bytes, s.stream);
    unsigned long long n16 = bytes / 16;
    CUdeviceptr sink = buffer + bytes;
    void *args[] = {&buffer, &n16, &sink};
    return s.d->cuLaunchKernel(read, 8 * std::max(s.smCount, 1), 1, 1, 256, 1,
                               1, 0, s.stream, args, nullptr);
  }
  const char *describe() const {
    return read ? "flushed before each run (a read of 2x L2: clean)"
                : "flushed before each run (a memset of 2x L2: dirty)";
  }

private:
  Session &s;
  DeviceMemory &mem;
  size_t bytes = 0;
  CUdeviceptr buffer = 0;
  CUfunction read = nullptr;
};

} // namespace

Outcome timeRuns(Session &s, DeviceMemory &mem, const RunOptions &opts,
                 size_t numLaunches, size_t workingSet,
                 const std::function<CUresult(int, CUevent *)> &enqueue,
                 const std::function<int(int)> &addSets, Timing &out) {
  const Driver &d = *s.d;
  auto check = [&](CUresult r, const char *what) -> Outcome {
    if (r)
      return fail(kStatusFault, std::string(what) + ": " + d.describe(r));
    return Outcome::ok();
  };
  std::vector<CUevent> events(numLaunches + 1);
  for (CUevent &e : events)
    if (Outcome o = check(d.cuEventCreate(&e, 0), "cuEventCreate"); !o)
      return o;
  // Warm-up, and a first estimate of one run: the fastest of three, each
  // waited for, since events around a lone short run add microseconds.
  float firstMs = 0;
  for (int i = 0; i < 3; ++i) {
    if (Outcome o = check(enqueue(0, events.data()), "launch"); !o)
      return o;
    if (Outcome o = s.wait("warm-up"); !o)
      return o;
    float ms = 0;
    d.cuEventElapsedTime(&ms, events.front(), events.back());
    firstMs = i == 0 ? ms : std::min(firstMs, ms);
  }

  size_t l2 = static_cast<size_t>(std::max(s.l2Bytes, 1 << 20));
  // Short runs (measured under 15 us this way, i.e. kernels of about 10 us
  // or less): launch overhead would dominate, so replay a CUDA graph of many
  // runs, rotating buffer sets so L2 cannot hold them all.
  if (firstMs < 0.015) {
    int wanted = workingSet >= 2 * l2
                     ? 1
                     : static_cast<int>(std::min<size_t>(
                           32, (3 * l2 + workingSet - 1) / workingSet));
    int sets = addSets(wanted);
    int perGraph = std::clamp(static_cast<int>(0.2 / std::max(firstMs, 1e-4f)),
                              sets, 2000);
    CUgraph graph = nullptr;
    CUgraphExec exec = nullptr;
    if (Outcome o = check(d.cuStreamBeginCapture(
                              s.stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                          "cuStreamBeginCapture");
        !o)
      return o;
    for (int i = 0; i < perGraph; ++i)
      if (Outcome o = check(enqueue(i % sets, nullptr), "capture"); !o)
        return o;
    if (Outcome o =
            check(d.cuStreamEndCapture(s.stream, &graph), "cuStreamEndCapture");
        !o)
      return o;
    if (Outcome o = check(d.cuGraphInstantiateWithFlags(&exec, graph, 0),
                          "cuGraphInstantiate");
        !o)
      return o;
    d.cuGraphLaunch(exec, s.stream);
    if (Outcome o = s.wait("graph warm-up"); !o)
      return o;
    int replays = std::max(opts.minRuns, 20);
    std::vector<CUevent> marks(replays + 1);
    for (CUevent &e : marks)
      d.cuEventCreate(&e, 0);
    d.cuEventRecord(marks[0], s.stream);
    for (int i = 0; i < replays; ++i) {
      d.cuGraphLaunch(exec, s.stream);
      d.cuEventRecord(marks[i + 1], s.stream);
    }
    if (Outcome o = s.wait("graph replays"); !o)
      return o;
    std::vector<double> perRun;
    for (int i = 0; i < replays; ++i) {
      float ms = 0;
      d.cuEventElapsedTime(&ms, marks[i], marks[i + 1]);
      perRun.push_back(ms / perGraph);
    }
    d.cuGraphExecDestroy(exec);
    d.cuGraphDestroy(graph);
    out.method =
        llvm::formatv("cuda-graph replay ({0} runs per graph)", perGraph);
    out.l2 =
        sets > 1
            ? llvm::formatv("rotated over {0} buffer sets", sets).str()
            : std::string(workingSet >= 2 * l2 ? "working set exceeds 2x L2"
                                               : "warm (no rotation possible)");
    out.runs = replays;
    out.medianMs = median(perRun);
    out.minMs = *std::min_element(perRun.begin(), perRun.end());
    out.maxMs = *std::max_element(perRun.begin(), perRun.end());
    return Outcome::ok();
  }

  // Longer runs: events around each run, L2 flushed before it.
  L2Flush flush(s, mem);
  if (Outcome o = flush.init(2 * l2); !o)
    return o;
  int runs = std::clamp(
      static_cast<int>(opts.timingBudgetMs / std::max(firstMs, 1e-3f)),
      opts.minRuns, opts.maxRuns);
  // Untimed runs first, as timed (flush, run), until the clock has settled
  // where sustained load holds it.
  int sustainRuns = static_cast<int>(
      std::min(opts.sustainMs / std::max(firstMs, 1e-3f), 20000.0));
  for (int i = 0; i < sustainRuns; ++i) {
    if (Outcome o = check(flush.enqueue(i), "the L2 flush"); !o)
      return o;
    if (Outcome o = check(enqueue(0, nullptr), "launch"); !o)
      return o;
  }
  if (Outcome o = s.wait("sustained runs"); !o)
    return o;
  std::vector<std::vector<CUevent>> perRunEvents(runs);
  for (auto &ev : perRunEvents) {
    ev.resize(numLaunches + 1);
    for (CUevent &e : ev)
      if (Outcome o = check(d.cuEventCreate(&e, 0), "cuEventCreate"); !o)
        return o;
  }
  for (int i = 0; i < runs; ++i) {
    if (Outcome o = check(flush.enqueue(i), "the L2 flush"); !o)
      return o;
    if (Outcome o = check(enqueue(0, perRunEvents[i].data()), "launch"); !o)
      return o;
  }
  if (Outcome o = s.wait("timed runs"); !o)
    return o;
  std::vector<double> totals;
  std::vector<std::vector<double>> perLaunch(numLaunches);
  for (auto &ev : perRunEvents) {
    float ms = 0;
    d.cuEventElapsedTime(&ms, ev.front(), ev.back());
    totals.push_back(ms);
    for (size_t l = 0; l < numLaunches; ++l) {
      d.cuEventElapsedTime(&ms, ev[l], ev[l + 1]);
      perLaunch[l].push_back(ms);
    }
  }
  out.method = "cuda events per run";
  out.l2 = flush.describe();
  out.sustained = llvm::formatv("after {0} untimed runs ({1} ms)", sustainRuns,
                                opts.sustainMs);
  out.runs = runs;
  out.medianMs = median(totals);
  out.minMs = *std::min_element(totals.begin(), totals.end());
  out.maxMs = *std::max_element(totals.begin(), totals.end());
  for (auto &l : perLaunch)
    out.launchMedianMs.push_back(median(l));
  return Outcome::ok();
}

} // namespace mlir::vibegemm::runtime::detail

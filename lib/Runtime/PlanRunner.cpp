//===- PlanRunner.cpp - Verify and time a launch plan on the GPU ----------===//
//
// The order of checks is the order of trust: guards (did a kernel write
// outside its buffers), inputs (did it write into them), finiteness and
// tolerance against the reference, determinism (same inputs, same bits),
// and after timing a second verification on fresh inputs, so a kernel that
// memorised its first answer is caught.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Runtime/PlanRunner.h"
#include "vibegemm/Runtime/CudaDriver.h"
#include "vibegemm/Runtime/Cublas.h"
#include "vibegemm/Runtime/HostCheck.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <thread>

using namespace mlir::vibegemm;
using namespace mlir::vibegemm::runtime;
using namespace mlir::vibegemm::cuda;
namespace json = llvm::json;

int mlir::vibegemm::runtime::exitCodeForStatus(llvm::StringRef status) {
  if (status == kStatusOk || status == kStatusUnchecked)
    return 0;
  if (status == kStatusWrongResult || status == kStatusFault ||
      status == kStatusTimeout)
    return 1;
  if (status == kStatusNoGpu)
    return 3;
  return 2;
}

namespace {

/// A status and its message; an empty status means success.
struct Outcome {
  std::string status, diagnostic;
  explicit operator bool() const { return status.empty(); }
  static Outcome ok() { return {}; }
};

Outcome fail(const char *status, std::string diagnostic) {
  return Outcome{status, std::move(diagnostic)};
}

/// The device, its primary context and one stream.
struct Session {
  const Driver *d = nullptr;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  int l2Bytes = 0, smCount = 0, ccMajor = 0, ccMinor = 0, driverVersion = 0;
  std::string name;
  double timeoutSeconds = 60;

  /// The L2 flush's read kernel, loaded on first use; null where the
  /// driver rejects it.
  CUfunction l2ReadKernel();

  Outcome init() {
    std::string why;
    d = loadDriver(why);
    if (!d)
      return fail(kStatusNoGpu, why);
    if (CUresult r = d->cuInit(0))
      return fail(kStatusNoGpu, "cuInit failed: " + d->describe(r) +
                                    " (no usable GPU on this machine)");
    int count = 0;
    if (d->cuDeviceGetCount(&count) || count == 0)
      return fail(kStatusNoGpu, "the CUDA driver sees no GPU");
    char buf[256] = {0};
    if (CUresult r = d->cuDeviceGet(&device, 0))
      return fail(kStatusNoGpu, "cuDeviceGet: " + d->describe(r));
    d->cuDeviceGetName(buf, sizeof(buf) - 1, device);
    name = buf;
    d->cuDeviceGetAttribute(&l2Bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE,
                            device);
    d->cuDeviceGetAttribute(&smCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                            device);
    d->cuDeviceGetAttribute(
        &ccMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
    d->cuDeviceGetAttribute(
        &ccMinor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
    d->cuDriverGetVersion(&driverVersion);
    if (CUresult r = d->cuDevicePrimaryCtxRetain(&context, device))
      return fail(kStatusNoGpu, "cannot create a context: " + d->describe(r));
    d->cuCtxSetCurrent(context);
    // A blocking stream: it waits for the synchronous copies and memsets,
    // which the driver may still be running on the legacy stream when they
    // return (device memsets, pageable host-to-device copies).
    if (CUresult r = d->cuStreamCreate(&stream, 0))
      return fail(kStatusNoGpu, "cuStreamCreate: " + d->describe(r));
    return Outcome::ok();
  }

  /// Waits for the stream, polling so a kernel that never ends is reported
  /// as a timeout instead of hanging the runner.
  Outcome wait(const std::string &what) {
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::duration<double>(timeoutSeconds);
    while (true) {
      CUresult r = d->cuStreamQuery(stream);
      if (r == CUDA_SUCCESS)
        return Outcome::ok();
      if (r != CUDA_ERROR_NOT_READY)
        return fail(kStatusFault, what + ": " + d->describe(r));
      if (std::chrono::steady_clock::now() > deadline)
        return fail(kStatusTimeout,
                    llvm::formatv("{0} did not finish within {1} s", what,
                                  timeoutSeconds));
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }

private:
  CUfunction l2Read = nullptr;
  bool l2ReadTried = false;
};

/// Device memory freed when the run ends (best effort after a fault).
class DeviceMemory {
public:
  explicit DeviceMemory(Session &s) : s(s) {}
  ~DeviceMemory() {
    if (!abandoned)
      for (CUdeviceptr p : owned)
        s.d->cuMemFree(p);
  }
  /// After a fault or a kernel that never ends, freeing could block on the
  /// stuck kernel; the process exit reclaims the memory instead.
  void abandon() { abandoned = true; }
  Outcome allocate(size_t bytes, CUdeviceptr &out, const std::string &what) {
    if (CUresult r = s.d->cuMemAlloc(&out, std::max<size_t>(bytes, 1)))
      return fail(kStatusLoadError,
                  llvm::formatv("cannot allocate {0} bytes for {1}: {2}", bytes,
                                what, s.d->describe(r)));
    owned.push_back(out);
    return Outcome::ok();
  }

private:
  Session &s;
  std::vector<CUdeviceptr> owned;
  bool abandoned = false;
};

/// A buffer with `guard` bytes of kGuardByte on both sides of its data.
struct GuardedBuffer {
  const PlanBuffer *spec = nullptr;
  CUdeviceptr base = 0, data = 0;
  size_t guard = 0;
  size_t total() const { return guard + spec->bytes + guard; }
};

using BufferSet = std::map<std::string, CUdeviceptr>;

/// PTX modules by path, loaded once with the JIT's logs captured.
class ModuleCache {
public:
  explicit ModuleCache(Session &s) : s(s) {}
  Outcome function(const PlanLaunch &launch, CUfunction &out) {
    CUmodule module = nullptr;
    auto it = modules.find(launch.ptxPath);
    if (it != modules.end()) {
      module = it->second;
    } else {
      auto file = llvm::MemoryBuffer::getFile(launch.ptxPath);
      if (!file)
        return fail(kStatusLoadError, "cannot read " + launch.ptxPath);
      std::string ptx = (*file)->getBuffer().str();
      std::vector<char> errorLog(16384, 0), infoLog(16384, 0);
      int options[] = {CU_JIT_ERROR_LOG_BUFFER,
                       CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                       CU_JIT_INFO_LOG_BUFFER,
                       CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
      void *values[] = {errorLog.data(),
                        reinterpret_cast<void *>(errorLog.size() - 1),
                        infoLog.data(),
                        reinterpret_cast<void *>(infoLog.size() - 1)};
      if (CUresult r = s.d->cuModuleLoadDataEx(&module, ptx.c_str(), 4,
                                               options, values))
        return fail(kStatusLoadError,
                    "the driver's JIT rejected " + launch.ptxPath + ": " +
                        s.d->describe(r) + "\n" + errorLog.data());
      modules[launch.ptxPath] = module;
      if (infoLog[0])
        jitInfo += infoLog.data();
    }
    if (CUresult r =
            s.d->cuModuleGetFunction(&out, module, launch.kernel.c_str()))
      return fail(kStatusLoadError, "kernel '" + launch.kernel + "' not in " +
                                        launch.ptxPath + ": " +
                                        s.d->describe(r));
    if (launch.clustered() && !s.d->cuLaunchKernelEx)
      return fail(kStatusLoadError,
                  "kernel '" + launch.kernel +
                      "' runs in clusters, and the CUDA driver has no "
                      "cuLaunchKernelEx (CUDA 12 or later)");
    if (launch.sharedBytes > 48 * 1024)
      if (CUresult r = s.d->cuFuncSetAttribute(
              out, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
              launch.sharedBytes))
        return fail(kStatusLoadError, "kernel '" + launch.kernel +
                                          "' cannot get " +
                                          std::to_string(launch.sharedBytes) +
                                          " bytes of shared memory: " +
                                          s.d->describe(r));
    return Outcome::ok();
  }
  std::string jitInfo;

private:
  Session &s;
  std::map<std::string, CUmodule> modules;
};

/// A plan ready to launch: kernels resolved, buffers allocated.
struct LoadedPlan {
  const Plan *plan = nullptr;
  std::vector<CUfunction> functions;
  std::map<std::string, GuardedBuffer> buffers;

  BufferSet set() const {
    BufferSet s;
    for (auto &[name, b] : buffers)
      s[name] = b.data;
    return s;
  }

  /// Device copies of the plan's TMA descriptors, by launch, argument and
  /// the address of the buffer they describe (one per buffer set).
  std::map<std::tuple<size_t, size_t, CUdeviceptr>, CUdeviceptr> tensorMaps;

  /// Encodes the tensor maps of `set`'s buffers into device memory; done
  /// before anything is timed or captured.
  Outcome encodeTensorMaps(Session &s, DeviceMemory &mem,
                           const BufferSet &set) {
    for (auto [i, launch] : llvm::enumerate(plan->launches))
      for (auto [j, arg] : llvm::enumerate(launch.args)) {
        if (arg.kind != PlanArg::Kind::TensorMap)
          continue;
        CUdeviceptr base = set.at(arg.buffer);
        auto key = std::make_tuple(i, j, base);
        if (tensorMaps.count(key))
          continue;
        if (!s.d->cuTensorMapEncodeTiled)
          return fail(kStatusLoadError,
                      "the CUDA driver has no cuTensorMapEncodeTiled (CUDA "
                      "12 or newer is needed for TMA kernels)");
        const PlanBuffer &buffer = *plan->find(arg.buffer);
        static const std::map<DType, int> kDataType = {
            {DType::I8, 0},  {DType::I32, 3},  {DType::I64, 5},
            {DType::F16, 6}, {DType::F32, 7},  {DType::F64, 8},
            {DType::BF16, 9}, {DType::F8E4M3FN, 0}, {DType::F8E5M2, 0}};
        // The driver takes dimensions innermost first, and the byte
        // strides of all but the innermost.
        size_t rank = buffer.shape.size();
        std::vector<unsigned long long> dims, strides;
        std::vector<unsigned> box, elementStrides(rank, 1);
        unsigned long long stride = dtypeBytes(buffer.dtype);
        for (size_t d = 0; d < rank; ++d) {
          size_t dim = rank - 1 - d;
          dims.push_back(buffer.shape[dim]);
          box.push_back(static_cast<unsigned>(arg.tensorMap.box[dim]));
          if (d > 0)
            strides.push_back(stride);
          stride *= buffer.shape[dim];
        }
        cuda::CUtensorMap map;
        const PlanTensorMap &t = arg.tensorMap;
        if (CUresult r = s.d->cuTensorMapEncodeTiled(
                &map, kDataType.at(buffer.dtype), rank,
                reinterpret_cast<void *>(base), dims.data(), strides.data(),
                box.data(), elementStrides.data(), t.interleave, t.swizzle,
                t.l2Promotion, t.oobFill))
          return fail(kStatusLoadError,
                      llvm::formatv("cuTensorMapEncodeTiled refused the "
                                    "descriptor of {0} for kernel '{1}': {2}",
                                    arg.buffer, launch.kernel,
                                    s.d->describe(r)));
        CUdeviceptr device = 0;
        if (Outcome o = mem.allocate(sizeof(map), device, "a TMA descriptor");
            !o)
          return o;
        if (CUresult r = s.d->cuMemcpyHtoD(device, &map, sizeof(map)))
          return fail(kStatusLoadError,
                      "copying a TMA descriptor: " + s.d->describe(r));
        tensorMaps[key] = device;
      }
    return Outcome::ok();
  }

  /// A clustered launch's configuration; `cluster` is its one attribute.
  static CUlaunchConfig clusterConfig(Session &s, const PlanLaunch &launch,
                                      CUlaunchAttribute &cluster) {
    cluster = CUlaunchAttribute{};
    cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    cluster.value.clusterDim = {launch.cluster[0], launch.cluster[1],
                                launch.cluster[2]};
    return CUlaunchConfig{launch.grid[0],    launch.grid[1],
                          launch.grid[2],    launch.block[0],
                          launch.block[1],   launch.block[2],
                          launch.sharedBytes, s.stream,
                          &cluster,          1};
  }

  /// One kernel launch, in clusters where the plan says so (its PTX asks
  /// for the same shape with .reqnctapercluster, as Triton's num_ctas
  /// kernels do, which Triton launches the same way).
  static CUresult launchOne(Session &s, CUfunction function,
                            const PlanLaunch &launch, void **params) {
    if (!launch.clustered())
      return s.d->cuLaunchKernel(function, launch.grid[0], launch.grid[1],
                                 launch.grid[2], launch.block[0],
                                 launch.block[1], launch.block[2],
                                 launch.sharedBytes, s.stream, params, nullptr);
    CUlaunchAttribute cluster;
    CUlaunchConfig config = clusterConfig(s, launch, cluster);
    return s.d->cuLaunchKernelEx(&config, function, params, nullptr);
  }

  /// How many of launch `i`'s clusters the GPU holds at once (null where
  /// it does not run in clusters or the driver cannot say): a cluster's
  /// blocks share a GPC, so fewer blocks than SMs may be resident.
  json::Value maxActiveClusters(Session &s, size_t i) const {
    const PlanLaunch &launch = plan->launches[i];
    if (!launch.clustered() || !s.d->cuOccupancyMaxActiveClusters)
      return nullptr;
    CUlaunchAttribute cluster;
    CUlaunchConfig config = clusterConfig(s, launch, cluster);
    int count = 0;
    if (s.d->cuOccupancyMaxActiveClusters(&count, functions[i], &config))
      return nullptr;
    return count;
  }

  /// Queues the plan's launches; `events` (launches + 1, or null) brackets
  /// each launch for per-kernel times.
  CUresult enqueue(Session &s, const BufferSet &set, CUevent *events) const {
    for (const PlanBuffer &b : plan->buffers)
      if (b.kind == PlanBuffer::Kind::Scratch && b.zeroInit)
        if (CUresult r = s.d->cuMemsetD8Async(set.at(b.name), 0, b.bytes,
                                              s.stream))
          return r;
    for (auto [i, launch] : llvm::enumerate(plan->launches)) {
      std::vector<uint64_t> slots(launch.args.size());
      std::vector<void *> params(launch.args.size());
      for (auto [j, arg] : llvm::enumerate(launch.args)) {
        switch (arg.kind) {
        case PlanArg::Kind::Buffer:
          slots[j] = set.at(arg.buffer);
          break;
        case PlanArg::Kind::I64:
          slots[j] = static_cast<uint64_t>(arg.intValue);
          break;
        case PlanArg::Kind::I32: {
          int32_t v = static_cast<int32_t>(arg.intValue);
          std::memcpy(&slots[j], &v, 4);
          break;
        }
        case PlanArg::Kind::F32: {
          float v = static_cast<float>(arg.floatValue);
          std::memcpy(&slots[j], &v, 4);
          break;
        }
        case PlanArg::Kind::TensorMap: {
          auto it = tensorMaps.find(std::make_tuple(i, j, set.at(arg.buffer)));
          if (it == tensorMaps.end())
            return CUDA_ERROR_INVALID_VALUE;
          slots[j] = it->second;
          break;
        }
        }
        params[j] = &slots[j];
      }
      if (events)
        s.d->cuEventRecord(events[i], s.stream);
      if (CUresult r = launchOne(s, functions[i], launch, params.data()))
        return r;
    }
    if (events)
      s.d->cuEventRecord(events[plan->launches.size()], s.stream);
    return CUDA_SUCCESS;
  }
};

double median(std::vector<double> v) {
  if (v.empty())
    return NAN;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// Timing of one enqueue function, by the protocol docs/runtime.md states
/// under "Timing".
struct Timing {
  std::string method, l2, sustained;
  int runs = 0;
  double medianMs = NAN, minMs = NAN, maxMs = NAN;
  std::vector<double> launchMedianMs;
};

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

CUfunction Session::l2ReadKernel() {
  if (!l2ReadTried) {
    l2ReadTried = true;
    CUmodule module = nullptr;
    if (!d->cuModuleLoadDataEx(&module, kL2ReadPtx, 0, nullptr, nullptr))
      d->cuModuleGetFunction(&l2Read, module, "vibegemm_l2_read");
  }
  return l2Read;
}

/// Evicts L2 before each timed run: a read of a zeroed buffer twice L2's
/// size (clean), or, where the read kernel does not load, a memset of it
/// (dirty lines, written back during the next run).
class L2Flush {
public:
  L2Flush(Session &s, DeviceMemory &mem) : s(s), mem(mem) {}
  Outcome init(size_t bytes) {
    this->bytes = bytes;
    if (Outcome o = mem.allocate(bytes + 16, buffer, "the L2 flush buffer");
        !o)
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

/// `enqueue(set, events)` queues one run on buffer set `set`; `addSets(n)`
/// makes n rotation sets available and returns how many exist.
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
    if (Outcome o = check(d.cuStreamEndCapture(s.stream, &graph),
                          "cuStreamEndCapture");
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
    out.method = llvm::formatv("cuda-graph replay ({0} runs per graph)",
                               perGraph);
    out.l2 = sets > 1 ? llvm::formatv("rotated over {0} buffer sets", sets)
                            .str()
                      : std::string(workingSet >= 2 * l2
                                        ? "working set exceeds 2x L2"
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
  int runs = std::clamp(static_cast<int>(opts.timingBudgetMs /
                                         std::max(firstMs, 1e-3f)),
                        opts.minRuns, opts.maxRuns);
  // Untimed runs first, as timed (flush, run), until the clock has settled
  // where sustained load holds it.
  int sustainRuns = static_cast<int>(std::min(
      opts.sustainMs / std::max(firstMs, 1e-3f), 20000.0));
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
  out.sustained = llvm::formatv("after {0} untimed runs ({1} ms)",
                                sustainRuns, opts.sustainMs);
  out.runs = runs;
  out.medianMs = median(totals);
  out.minMs = *std::min_element(totals.begin(), totals.end());
  out.maxMs = *std::max_element(totals.begin(), totals.end());
  for (auto &l : perLaunch)
    out.launchMedianMs.push_back(median(l));
  return Outcome::ok();
}

std::string indexString(const PlanBuffer &b, size_t flat) {
  std::vector<int64_t> idx(b.shape.size());
  for (size_t i = b.shape.size(); i-- > 0;) {
    idx[i] = static_cast<int64_t>(flat % b.shape[i]);
    flat /= b.shape[i];
  }
  std::string s = "[";
  for (size_t i = 0; i < idx.size(); ++i)
    s += (i ? ", " : "") + std::to_string(idx[i]);
  return s + "]";
}

/// A buffer copied back to the host, with its element type.
struct HostElements {
  DType type = DType::F32;
  std::vector<uint8_t> bytes;

  ElementSpan span() const { return ElementSpan::of(type, bytes); }
};

/// One verification and timing of a plan.
class Run {
public:
  Run(const Plan &plan, const RunOptions &opts)
      : plan(plan), opts(opts), mem(session), modules(session) {}

  json::Object execute() {
    json::Object result{{"tool", "vibegemm-run"},
                        {"version", 1},
                        {"plan", plan.path},
                        {"function", plan.function},
                        {"dispatch", plan.dispatch.empty()
                                         ? json::Value(nullptr)
                                         : json::Value(plan.dispatch)},
                        {"seed", static_cast<int64_t>(opts.seed)},
                        {"flops", plan.flops},
                        {"bytes", static_cast<int64_t>(plan.ioBytes())}};
    Outcome o = go(result);
    // Where the wall time went (host checks of large outputs take seconds).
    lap("");
    result["seconds"] = std::move(phaseSeconds);
    if (o.status == kStatusFault || o.status == kStatusTimeout ||
        o.status == kStatusReferenceError)
      mem.abandon();
    result["status"] = o ? (referenceMode == ReferenceMode::None
                                ? kStatusUnchecked
                                : kStatusOk)
                         : o.status;
    result["diagnostic"] = o ? (referenceMode == ReferenceMode::None
                                    ? "no reference: outputs were only "
                                      "checked to be finite"
                                    : "")
                             : o.diagnostic;
    if (!modules.jitInfo.empty())
      result["jit_info"] = modules.jitInfo;
    return result;
  }

private:
  /// Charges the time since the previous lap to the phase that began there
  /// and starts `next`.
  void lap(llvm::StringRef next) {
    auto now = std::chrono::steady_clock::now();
    if (!phase.empty())
      phaseSeconds[phase] =
          std::chrono::duration<double>(now - phaseStart).count();
    phase = next.str();
    phaseStart = now;
  }

  Outcome go(json::Object &result) {
    lap("setup");
    session.timeoutSeconds = opts.timeoutSeconds;
    if (Outcome o = session.init(); !o)
      return o;
    result["device"] = json::Object{
        {"name", session.name},
        {"compute_capability",
         llvm::formatv("{0}.{1}", session.ccMajor, session.ccMinor).str()},
        {"sms", session.smCount},
        {"l2_bytes", session.l2Bytes},
        {"driver_version", session.driverVersion}};
    if (Outcome o = chooseReference(result); !o)
      return o;
    if (Outcome o = load(mainPlan, plan); !o)
      return o;
    if (refPlan)
      if (Outcome o = load(referencePlan, *refPlan); !o)
        return fail(kStatusReferenceError, "reference plan: " + o.diagnostic);
    if (Outcome o = allocate(); !o)
      return o;

    json::Array outputs;
    if (Outcome o = verify(opts.seed, /*firstPass=*/true, outputs); !o) {
      result["outputs"] = std::move(outputs);
      return o;
    }
    result["outputs"] = std::move(outputs);
    if (!referenceCpuCheck.empty())
      result["reference_cpu_check"] = referenceCpuCheck;

    if (opts.time) {
      lap("timing");
      Timing t;
      size_t launches = plan.launches.size();
      Outcome o = timeRuns(
          session, mem, opts, launches, plan.workingSetBytes(),
          [&](int set, CUevent *ev) {
            return mainPlan.enqueue(session, sets[set], ev);
          },
          [&](int n) { return addRotationSets(n); }, t);
      if (!o)
        return o;
      result["time_ms"] = t.medianMs;
      result["timing"] = timingJson(t);
      json::Array perLaunch;
      for (auto [i, launch] : llvm::enumerate(plan.launches))
        perLaunch.push_back(json::Object{
            {"kernel", launch.kernel},
            {"median_ms", i < t.launchMedianMs.size()
                              ? json::Value(t.launchMedianMs[i])
                              : json::Value(nullptr)},
            {"max_active_clusters", mainPlan.maxActiveClusters(session, i)}});
      result["launches"] = std::move(perLaunch);
      if (plan.flops > 0)
        result["tflops"] = plan.flops / (t.medianMs * 1e-3) / 1e12;
      result["gbps"] = plan.ioBytes() / (t.medianMs * 1e-3) / 1e9;

      // Verify again, on inputs the kernels have never seen.
      lap("recheck");
      json::Array recheck;
      uint64_t freshSeed = opts.seed + 0x9e3779b97f4a7c15ull;
      if (Outcome o2 = verify(freshSeed, /*firstPass=*/false, recheck); !o2) {
        result["recheck"] = std::move(recheck);
        return fail(o2.status.c_str(),
                    "passed on the first inputs, failed the re-check on fresh "
                    "inputs after timing: " +
                        o2.diagnostic);
      }
      result["recheck"] = "ok";
    }
    if (opts.compareCublas) {
      lap("cublas");
      result["cublas"] = compareCublas();
    }
    return Outcome::ok();
  }

  static json::Object timingJson(const Timing &t) {
    json::Object o{{"method", t.method}, {"l2", t.l2},
                   {"runs", t.runs},     {"median_ms", t.medianMs},
                   {"min_ms", t.minMs},  {"max_ms", t.maxMs}};
    if (!t.sustained.empty())
      o["sustained"] = t.sustained;
    return o;
  }

  Outcome chooseReference(json::Object &result) {
    if (!plan.referencePlan.empty() &&
        opts.reference != ReferenceMode::Cublas &&
        opts.reference != ReferenceMode::None) {
      llvm::Expected<Plan> ref = loadPlan(plan.referencePlan);
      if (!ref)
        return fail(kStatusPlanError,
                    "reference plan: " + llvm::toString(ref.takeError()));
      refPlan = std::move(*ref);
      for (const PlanBuffer &b : refPlan->buffers) {
        const PlanBuffer *mine = plan.find(b.name);
        bool io = b.kind == PlanBuffer::Kind::Input ||
                  b.kind == PlanBuffer::Kind::Output;
        if (io && (!mine || mine->kind != b.kind || mine->bytes != b.bytes ||
                   mine->dtype != b.dtype))
          return fail(kStatusPlanError,
                      "reference plan buffer '" + b.name +
                          "' does not match the plan's buffer of that name");
      }
    }
    std::string cublasWhy;
    if (opts.reference == ReferenceMode::Auto ||
        opts.reference == ReferenceMode::Cublas) {
      if (plan.reference && !plan.reference->c.empty())
        cublas = Cublas::load(cublasWhy);
      else
        cublasWhy = "the plan is not a plain GEMM";
    }
    switch (opts.reference) {
    case ReferenceMode::Cublas:
      if (!cublas)
        return fail(kStatusReferenceError, "cuBLAS reference: " + cublasWhy);
      referenceMode = ReferenceMode::Cublas;
      break;
    case ReferenceMode::Kernel:
      if (!refPlan)
        return fail(kStatusReferenceError,
                    "the plan names no reference_plan of trivially-scheduled "
                    "kernels");
      referenceMode = ReferenceMode::Kernel;
      break;
    case ReferenceMode::None:
      referenceMode = ReferenceMode::None;
      break;
    case ReferenceMode::Auto:
      if (cublas)
        referenceMode = ReferenceMode::Cublas;
      else if (refPlan)
        referenceMode = ReferenceMode::Kernel;
      else
        return fail(kStatusReferenceError,
                    "no reference to check against (" + cublasWhy +
                        ", and no reference_plan); pass --reference=none to "
                        "only time it");
      break;
    }
    if (plan.f32Precision != F32Precision::Ieee)
      result["f32_precision"] =
          plan.f32Precision == F32Precision::Tf32 ? "tf32" : "3xtf32";
    result["reference"] = referenceMode == ReferenceMode::Cublas
                              ? "cublas (" + cublas->library() + ")"
                          : referenceMode == ReferenceMode::Kernel
                              ? std::string("kernel")
                              : std::string("none");
    return Outcome::ok();
  }

  Outcome load(LoadedPlan &loaded, const Plan &p) {
    loaded.plan = &p;
    for (const PlanLaunch &launch : p.launches) {
      CUfunction f = nullptr;
      if (Outcome o = modules.function(launch, f); !o)
        return o;
      loaded.functions.push_back(f);
    }
    return Outcome::ok();
  }

  Outcome allocateGuarded(LoadedPlan &loaded, const PlanBuffer &b) {
    GuardedBuffer g;
    g.spec = &b;
    g.guard = opts.guardBytes;
    if (Outcome o = mem.allocate(g.total(), g.base, "buffer " + b.name); !o)
      return o;
    g.data = g.base + g.guard;
    loaded.buffers[b.name] = g;
    return Outcome::ok();
  }

  Outcome allocate() {
    for (const PlanBuffer &b : plan.buffers)
      if (Outcome o = allocateGuarded(mainPlan, b); !o)
        return o;
    if (refPlan)
      for (const PlanBuffer &b : refPlan->buffers) {
        // The reference reads the very same input buffers.
        if (b.kind == PlanBuffer::Kind::Input) {
          referencePlan.buffers[b.name] = mainPlan.buffers.at(b.name);
          referencePlan.buffers[b.name].spec = &b;
          continue;
        }
        if (Outcome o = allocateGuarded(referencePlan, b); !o)
          return o;
      }
    if (referenceMode == ReferenceMode::Cublas) {
      const PlanGemm &g = *plan.reference;
      if (Outcome o = mem.allocate(g.batch * g.m * g.n * 4, cublasOut,
                                   "the cuBLAS reference output");
          !o)
        return o;
    }
    sets.push_back(mainPlan.set());
    if (Outcome o = mainPlan.encodeTensorMaps(session, mem, sets.front()); !o)
      return o;
    if (refPlan)
      if (Outcome o = referencePlan.encodeTensorMaps(session, mem,
                                                     referencePlan.set());
          !o)
        return o;
    return Outcome::ok();
  }

  /// Extra copies of every buffer, holding the same inputs, for timing
  /// runs that rotate through them.
  int addRotationSets(int wanted) {
    while (static_cast<int>(sets.size()) < wanted) {
      BufferSet set;
      for (const PlanBuffer &b : plan.buffers) {
        CUdeviceptr p = 0;
        if (!mem.allocate(b.bytes, p, "a rotation copy"))
          return static_cast<int>(sets.size());
        if (b.kind == PlanBuffer::Kind::Input)
          session.d->cuMemcpyHtoD(p, hostInputs[b.name].data(), b.bytes);
        else
          session.d->cuMemsetD8(p, kPoisonByte, b.bytes);
        set[b.name] = p;
      }
      if (!mainPlan.encodeTensorMaps(session, mem, set))
        break;
      sets.push_back(std::move(set));
    }
    session.d->cuCtxSynchronize();
    return static_cast<int>(sets.size());
  }

  Outcome check(CUresult r, const std::string &what) {
    if (r)
      return fail(kStatusFault, what + ": " + session.d->describe(r));
    return Outcome::ok();
  }

  /// Resets guards, writes the inputs (or poison) into `loaded`'s buffers.
  Outcome prepare(LoadedPlan &loaded, bool writeInputs) {
    const Driver &d = *session.d;
    for (auto &[name, g] : loaded.buffers) {
      bool isInput = g.spec->kind == PlanBuffer::Kind::Input;
      if (isInput && !writeInputs)
        continue;
      if (Outcome o = check(d.cuMemsetD8(g.base, kGuardByte, g.total()),
                            "cuMemsetD8");
          !o)
        return o;
      CUresult r =
          isInput ? d.cuMemcpyHtoD(g.data, hostInputs[name].data(),
                                   g.spec->bytes)
                  : d.cuMemsetD8(g.data,
                                 g.spec->kind == PlanBuffer::Kind::Scratch &&
                                         g.spec->zeroInit
                                     ? 0
                                     : kPoisonByte,
                                 g.spec->bytes);
      if (Outcome o = check(r, "preparing buffer " + name); !o)
        return o;
    }
    // Poison and inputs must have landed before any kernel starts.
    return check(d.cuCtxSynchronize(), "preparing buffers");
  }

  /// Runs `loaded` once on freshly poisoned outputs and waits.
  Outcome runOnce(LoadedPlan &loaded, const std::string &what) {
    if (Outcome o = prepare(loaded, /*writeInputs=*/false); !o)
      return o;
    if (Outcome o = check(loaded.enqueue(session, loaded.set(), nullptr),
                          "launching " + what);
        !o)
      return o;
    return session.wait(what);
  }

  Outcome download(const GuardedBuffer &g, std::vector<uint8_t> &bytes) {
    bytes.resize(g.total());
    return check(session.d->cuMemcpyDtoH(bytes.data(), g.base, g.total()),
                 "reading back " + g.spec->name);
  }

  /// Guards of every buffer intact, inputs unchanged; fills `outputs` with
  /// the raw output bytes.
  Outcome inspect(LoadedPlan &loaded, const std::string &who,
                  std::map<std::string, std::vector<uint8_t>> &outputs) {
    for (auto &[name, g] : loaded.buffers) {
      std::vector<uint8_t> bytes;
      if (Outcome o = download(g, bytes); !o)
        return o;
      if (auto at = firstGuardDamage(bytes.data(), g.guard))
        return fail(kStatusWrongResult,
                    llvm::formatv("{0} wrote before the start of buffer {1} "
                                  "(guard byte at offset -{2} changed)",
                                  who, name, g.guard - *at));
      if (auto at = firstGuardDamage(bytes.data() + g.guard + g.spec->bytes,
                                     g.guard))
        return fail(kStatusWrongResult,
                    llvm::formatv("{0} wrote past the end of buffer {1} "
                                  "(guard byte at offset +{2} changed)",
                                  who, name, *at));
      const uint8_t *data = bytes.data() + g.guard;
      if (g.spec->kind == PlanBuffer::Kind::Input) {
        const std::vector<uint8_t> &host = hostInputs[name];
        if (std::memcmp(data, host.data(), g.spec->bytes) != 0)
          return fail(kStatusWrongResult,
                      who + " wrote into input buffer " + name);
      }
      if (g.spec->kind == PlanBuffer::Kind::Output)
        outputs[name].assign(data, data + g.spec->bytes);
    }
    return Outcome::ok();
  }

  /// The reference's outputs, raw, by output name.
  Outcome computeReference(std::map<std::string, HostElements> &ref) {
    if (referenceMode == ReferenceMode::Cublas) {
      const PlanGemm &g = *plan.reference;
      const PlanBuffer *a = plan.find(g.a), *c = plan.find(g.c);
      std::string err = cublas->run(g, a->dtype, DType::F32,
                                    mainPlan.buffers.at(g.a).data,
                                    mainPlan.buffers.at(g.b).data, cublasOut,
                                    session.stream);
      if (!err.empty())
        return fail(kStatusReferenceError, err);
      if (Outcome o = session.wait("cuBLAS reference"); !o)
        return fail(kStatusReferenceError, o.diagnostic);
      std::vector<uint8_t> bytes(c->numElements() * 4);
      if (Outcome o = check(session.d->cuMemcpyDtoH(bytes.data(), cublasOut,
                                                    bytes.size()),
                            "reading the cuBLAS reference");
          !o)
        return fail(kStatusReferenceError, o.diagnostic);
      ref[g.c] = {DType::F32, std::move(bytes)};
      return Outcome::ok();
    }
    if (Outcome o = runOnce(referencePlan, "the reference kernels"); !o)
      return fail(kStatusReferenceError, o.diagnostic);
    std::map<std::string, std::vector<uint8_t>> raw;
    if (Outcome o = inspect(referencePlan, "the reference kernels", raw); !o)
      return fail(kStatusReferenceError, o.diagnostic);
    for (auto &[name, bytes] : raw)
      ref[name] = {refPlan->find(name)->dtype, std::move(bytes)};
    return Outcome::ok();
  }

  /// The reference itself, against float64 on the CPU (plain GEMMs only).
  Outcome checkReferenceOnCpu(ElementSpan ref) {
    const PlanGemm &g = *plan.reference;
    std::vector<size_t> indices =
        cpuCheckIndices(g, opts.cpuFullLimit, opts.cpuSamples, opts.seed);
    if (llvm::any_of(indices, [&](size_t i) { return i >= ref.count; }))
      return fail(kStatusReferenceError,
                  "the reference output " + g.c + " is missing or short");
    ElementSpan a = hostInput(g.a), b = hostInput(g.b);
    if (a.count < size_t(g.batch * g.m * g.k) ||
        b.count < size_t(g.batch * g.k * g.n))
      return fail(kStatusReferenceError, "the reference's inputs " + g.a +
                                             " and " + g.b +
                                             " are missing or short");
    std::vector<double> want, got;
    for (size_t flat : indices) {
      int64_t col = flat % g.n, row = (flat / g.n) % g.m,
              batch = flat / (g.n * g.m);
      want.push_back(cpuGemmElement(g, a, b, batch, row, col));
      got.push_back(ref[flat]);
    }
    // Compared at the output's precision: a bf16 reference output is
    // rounded, an f32 one is not.
    DType outType = refPlan && referenceMode == ReferenceMode::Kernel
                        ? refPlan->find(g.c)->dtype
                        : DType::F32;
    Comparison c = compareOutputs(got, want, dtypeTolerance(outType));
    referenceCpuCheck = llvm::formatv(
        "{0} of {1} elements against float64 on the CPU: max rel error {2:e}",
        indices.size(), ref.count, c.maxRelError);
    if (!c.ok)
      return fail(kStatusReferenceError,
                  "the reference disagrees with float64 on the CPU: " +
                      referenceCpuCheck);
    return Outcome::ok();
  }

  /// The random values written to input `name`, as stored (empty where
  /// there is no such input).
  ElementSpan hostInput(const std::string &name) const {
    const PlanBuffer *buffer = plan.find(name);
    auto it = hostInputs.find(name);
    if (!buffer || it == hostInputs.end())
      return {};
    return ElementSpan::of(buffer->dtype, it->second);
  }

  double toleranceFor(const PlanBuffer &out) const {
    double tol = dtypeTolerance(out.dtype);
    for (const PlanBuffer &b : plan.buffers)
      if (b.kind == PlanBuffer::Kind::Input)
        tol = std::max(tol, dtypeTolerance(b.dtype));
    // Only the compiler's record of a TF32 request loosens f32's tolerance.
    return std::max(tol, precisionTolerance(plan.f32Precision));
  }

  Outcome verify(uint64_t seed, bool firstPass, json::Array &report) {
    // The first pass is timed step by step; a re-check is one phase.
    auto step = [&](llvm::StringRef name) {
      if (firstPass)
        lap(name);
    };
    step("verify_inputs");
    hostInputs.clear();
    for (const PlanBuffer &b : plan.buffers)
      if (b.kind == PlanBuffer::Kind::Input)
        fillRandomNonZero(b.dtype, b.numElements(), seed * 1000003 + b.index,
                          hostInputs[b.name], b.verifyScale);
    // A TF32 plan is checked on TF32-exact inputs: the rounding the user
    // accepted is not an error, the kernel's products and sums are.
    if (plan.f32Precision == F32Precision::Tf32)
      for (const PlanBuffer &b : plan.buffers)
        if (b.kind == PlanBuffer::Kind::Input && b.dtype == DType::F32)
          roundToTf32InPlace(hostInputs[b.name]);
    if (Outcome o = prepare(mainPlan, /*writeInputs=*/true); !o)
      return o;
    step("verify_runs");
    if (Outcome o = runOnce(mainPlan, "the plan's kernels"); !o)
      return o;
    std::map<std::string, std::vector<uint8_t>> outputs, again;
    if (Outcome o = inspect(mainPlan, "the plan's kernels", outputs); !o)
      return o;
    if (firstPass) {
      if (Outcome o = runOnce(mainPlan, "the plan's kernels (second run)"); !o)
        return o;
      if (Outcome o = inspect(mainPlan, "the plan's kernels", again); !o)
        return o;
    }

    std::map<std::string, HostElements> ref;
    step("verify_reference");
    if (referenceMode != ReferenceMode::None) {
      if (Outcome o = computeReference(ref); !o)
        return o;
      if (firstPass && plan.reference)
        if (Outcome o = checkReferenceOnCpu(ref[plan.reference->c].span());
            !o)
          return o;
    }

    step("verify_compare");
    Outcome verdict = Outcome::ok();
    for (const PlanBuffer &b : plan.buffers) {
      if (b.kind != PlanBuffer::Kind::Output)
        continue;
      // Sized by what was copied back, so a short buffer fails the compare
      // rather than being read past its end.
      ElementSpan got = ElementSpan::of(b.dtype, outputs[b.name]);
      json::Object entry{{"name", b.name}, {"dtype", dtypeName(b.dtype)}};
      if (referenceMode == ReferenceMode::None) {
        size_t nonFinite = countNonFinite(got);
        entry["non_finite"] = static_cast<int64_t>(nonFinite);
        entry["ok"] = nonFinite == 0;
        if (nonFinite && verdict)
          verdict = fail(kStatusWrongResult,
                         llvm::formatv("{0}: {1} of {2} elements are not "
                                       "finite",
                                       b.name, nonFinite, got.count));
        report.push_back(std::move(entry));
        continue;
      }
      auto it = ref.find(b.name);
      if (it == ref.end()) {
        if (verdict)
          verdict = fail(kStatusReferenceError,
                         "the reference computes no " + b.name);
        continue;
      }
      ElementSpan want = it->second.span();
      Comparison c = compareOutputs(got, want, toleranceFor(b));
      entry["max_abs_err"] = c.maxAbsError;
      entry["max_rel_err"] = c.maxRelError;
      entry["rel_l2"] = c.relL2;
      entry["tolerance"] = c.tolerance;
      entry["non_finite"] = static_cast<int64_t>(c.nonFinite);
      entry["ok"] = c.ok;
      report.push_back(std::move(entry));
      if (!c.ok && verdict) {
        std::string where =
            c.firstBad ? " (first bad element " + indexString(b, *c.firstBad) +
                             llvm::formatv(": got {0}, want {1})",
                                           got[*c.firstBad],
                                           want[*c.firstBad])
                             .str()
                       : "";
        verdict =
            c.nonFinite
                ? fail(kStatusWrongResult,
                       llvm::formatv("{0}: {1} of {2} elements are not finite "
                                     "(NaN poison left unwritten?){3}",
                                     b.name, c.nonFinite, got.count, where))
                : fail(kStatusWrongResult,
                       llvm::formatv("{0}: max rel error {1:e}, rel L2 {2:e}, "
                                     "tolerance {3:e}{4}",
                                     b.name, c.maxRelError, c.relL2,
                                     c.tolerance, where));
      }
    }
    if (!verdict)
      return verdict;
    if (firstPass)
      for (auto &[name, bytes] : outputs)
        if (bytes != again[name]) {
          size_t at = std::mismatch(bytes.begin(), bytes.end(),
                                    again[name].begin())
                          .first -
                      bytes.begin();
          const PlanBuffer *b = plan.find(name);
          return fail(kStatusWrongResult,
                      "nondeterministic: two runs on the same inputs gave "
                      "different bits in " +
                          name + " (first at " +
                          indexString(*b, at / dtypeBytes(b->dtype)) + ")");
        }
    return Outcome::ok();
  }

  /// cuBLAS on the plan's GEMM, timed the same way.
  json::Value compareCublas() {
    if (!plan.gemm)
      return json::Object{{"skipped", "the plan has no GEMM description"}};
    const PlanGemm &g = *plan.gemm;
    const PlanBuffer *a = plan.find(g.a), *b = plan.find(g.b),
                     *c = plan.find(g.c);
    if (a->kind != PlanBuffer::Kind::Input ||
        b->kind != PlanBuffer::Kind::Input)
      return json::Object{{"skipped", "the GEMM operands are not inputs"}};
    std::string why;
    Cublas *blas = Cublas::load(why);
    if (!blas)
      return json::Object{{"skipped", why}};
    DType outType = c->dtype == DType::F32 || c->dtype == DType::F16 ||
                            c->dtype == DType::BF16
                        ? c->dtype
                        : DType::F32;
    std::vector<std::array<CUdeviceptr, 3>> blasSets;
    auto addSets = [&](int n) {
      while (static_cast<int>(blasSets.size()) < n) {
        std::array<CUdeviceptr, 3> s{};
        if (blasSets.empty()) {
          s[0] = mainPlan.buffers.at(g.a).data;
          s[1] = mainPlan.buffers.at(g.b).data;
        } else if (!mem.allocate(a->bytes, s[0], "cuBLAS A") ||
                   !mem.allocate(b->bytes, s[1], "cuBLAS B")) {
          break;
        }
        if (!mem.allocate(g.batch * g.m * g.n * dtypeBytes(outType), s[2],
                          "cuBLAS C"))
          break;
        blasSets.push_back(s);
      }
      return static_cast<int>(blasSets.size());
    };
    addSets(1);
    if (blasSets.empty())
      return json::Object{{"skipped", "out of memory"}};
    std::string runError;
    Timing t;
    size_t ws = a->bytes + b->bytes + c->bytes;
    // A TF32 kernel races cuBLAS in TF32; 3xTF32 races plain f32, the
    // accuracy it stands in for.
    bool tf32 = plan.f32Precision == F32Precision::Tf32;
    Outcome o = timeRuns(
        session, mem, opts, 1, ws,
        [&](int set, CUevent *ev) -> CUresult {
          if (ev)
            session.d->cuEventRecord(ev[0], session.stream);
          auto &s = blasSets[set];
          runError = blas->run(g, a->dtype, outType, s[0], s[1], s[2],
                               session.stream, tf32);
          if (ev)
            session.d->cuEventRecord(ev[1], session.stream);
          return runError.empty() ? CUDA_SUCCESS : 1;
        },
        addSets, t);
    if (!o || !runError.empty())
      return json::Object{
          {"skipped", runError.empty() ? o.diagnostic : runError}};
    json::Object result{{"time_ms", t.medianMs},
                        {"tflops", 2.0 * g.batch * g.m * g.n * g.k /
                                       (t.medianMs * 1e-3) / 1e12},
                        {"output_dtype", dtypeName(outType)},
                        {"timing", timingJson(t)}};
    if (a->dtype == DType::F32)
      result["math"] = tf32 ? "tf32" : "f32";
    return result;
  }

  const Plan &plan;
  const RunOptions &opts;
  Session session;
  DeviceMemory mem;
  ModuleCache modules;
  std::optional<Plan> refPlan;
  LoadedPlan mainPlan, referencePlan;
  ReferenceMode referenceMode = ReferenceMode::None;
  Cublas *cublas = nullptr;
  CUdeviceptr cublasOut = 0;
  std::vector<BufferSet> sets;
  std::map<std::string, std::vector<uint8_t>> hostInputs;
  std::string referenceCpuCheck;
  json::Object phaseSeconds;
  std::string phase;
  std::chrono::steady_clock::time_point phaseStart;
};

} // namespace

json::Object mlir::vibegemm::runtime::runPlanInProcess(llvm::StringRef planPath,
                                                 const RunOptions &options) {
  llvm::Expected<Plan> plan = loadPlan(planPath);
  if (!plan)
    return json::Object{{"tool", "vibegemm-run"},
                        {"version", 1},
                        {"plan", planPath.str()},
                        {"status", kStatusPlanError},
                        {"diagnostic", llvm::toString(plan.takeError())}};
  return Run(*plan, options).execute();
}

bool mlir::vibegemm::runtime::probeGpu(std::string &description) {
  Session s;
  Outcome o = s.init();
  description = o ? s.name + " (sm_" + std::to_string(s.ccMajor) +
                        std::to_string(s.ccMinor) + ")"
                  : o.diagnostic;
  return static_cast<bool>(o);
}

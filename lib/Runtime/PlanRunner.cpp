//===- PlanRunner.cpp - Verify and time a launch plan on the GPU ----------===//
//
// The order of checks is the order of trust: guards (did a kernel write
// outside its buffers), inputs (did it write into them), finiteness and
// tolerance against the reference, determinism (same inputs, same bits),
// and after timing a second verification on fresh inputs, so a kernel that
// memorised its first answer is caught. This file holds that order and the
// entry points; the device layer is in Device.cpp and LoadedPlan.cpp, the
// timing protocol in Timing.cpp, the checks in Verify.cpp.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Runtime/PlanRunner.h"
#include "Run.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir::vibegemm;
using namespace mlir::vibegemm::runtime;
using namespace mlir::vibegemm::runtime::detail;
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

namespace mlir::vibegemm::runtime::detail {

json::Object Run::execute() {
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
  if (!plan.sizes.empty()) {
    json::Object sizes;
    for (const auto &[name, value] : plan.sizes)
      sizes[name] = value;
    result["sizes"] = std::move(sizes);
  }
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

void Run::lap(llvm::StringRef next) {
  auto now = std::chrono::steady_clock::now();
  if (!phase.empty())
    phaseSeconds[phase] =
        std::chrono::duration<double>(now - phaseStart).count();
  phase = next.str();
  phaseStart = now;
}

Outcome Run::go(json::Object &result) {
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
    // Overlapping launches are timed as one: see LoadedPlan::enqueue.
    size_t launches = mainPlan.overlapsLaunches() ? 1 : plan.launches.size();
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
    if (mainPlan.overlapsLaunches())
      t.launchMedianMs.clear(); // one time for the whole plan: no per-kernel
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

json::Object Run::timingJson(const Timing &t) {
  json::Object o{{"method", t.method}, {"l2", t.l2},
                 {"runs", t.runs},     {"median_ms", t.medianMs},
                 {"min_ms", t.minMs},  {"max_ms", t.maxMs}};
  if (!t.sustained.empty())
    o["sustained"] = t.sustained;
  return o;
}

Outcome Run::load(LoadedPlan &loaded, const Plan &p) {
  loaded.plan = &p;
  for (const PlanLaunch &launch : p.launches) {
    CUfunction f = nullptr;
    if (Outcome o = modules.function(launch, f); !o)
      return o;
    loaded.functions.push_back(f);
  }
  return Outcome::ok();
}

Outcome Run::allocateGuarded(LoadedPlan &loaded, const PlanBuffer &b) {
  GuardedBuffer g;
  g.spec = &b;
  g.guard = opts.guardBytes;
  if (Outcome o = mem.allocate(g.total(), g.base, "buffer " + b.name); !o)
    return o;
  g.data = g.base + g.guard;
  loaded.buffers[b.name] = g;
  return Outcome::ok();
}

Outcome Run::allocate() {
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

int Run::addRotationSets(int wanted) {
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

} // namespace mlir::vibegemm::runtime::detail

json::Object mlir::vibegemm::runtime::runPlanInProcess(llvm::StringRef planPath,
                                                 const RunOptions &options) {
  llvm::Expected<Plan> plan = loadPlan(planPath, options.sizes);
  if (!plan)
    return json::Object{{"tool", "vibegemm-run"},
                        {"version", 1},
                        {"plan", planPath.str()},
                        {"status", kStatusPlanError},
                        {"diagnostic", llvm::toString(plan.takeError())}};
  return Run(*plan, options).execute();
}

bool mlir::vibegemm::runtime::listGpus(std::vector<std::string> &names,
                                       std::string &whyNot) {
  const cuda::Driver *d = cuda::loadDriver(whyNot);
  if (!d)
    return false;
  int count = 0;
  if (CUresult r = d->cuInit(0)) {
    whyNot = "cuInit failed: " + d->describe(r);
    return false;
  }
  if (d->cuDeviceGetCount(&count) || count == 0) {
    whyNot = "the CUDA driver sees no GPU";
    return false;
  }
  for (int i = 0; i < count; ++i) {
    CUdevice device;
    char buf[256] = {0};
    int major = 0, minor = 0;
    if (d->cuDeviceGet(&device, i))
      continue;
    d->cuDeviceGetName(buf, sizeof(buf) - 1, device);
    d->cuDeviceGetAttribute(
        &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
    d->cuDeviceGetAttribute(
        &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
    names.push_back(std::string(buf) + " (sm_" + std::to_string(major) +
                    std::to_string(minor) + ")");
  }
  return !names.empty();
}

bool mlir::vibegemm::runtime::probeGpu(std::string &description) {
  Session s;
  Outcome o = s.init();
  description = o ? s.name + " (sm_" + std::to_string(s.ccMajor) +
                        std::to_string(s.ccMinor) + ")"
                  : o.diagnostic;
  return static_cast<bool>(o);
}

//===- CostModel.cpp - Static time estimates for kernels ------------------===//
//
// The roofline and the occupancy-scaled estimate llm-schedule ranks
// candidates by when no GPU measures them.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Target/CostModel.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::vibegemm;
namespace json = llvm::json;

int64_t vibegemm::dynamicSharedBytes(const json::Object &plan) {
  int64_t most = 0;
  if (const json::Array *launches = plan.getArray("launches"))
    for (const json::Value &l : *launches)
      if (const json::Object *launch = l.getAsObject())
        most = std::max(most, launch->getInteger("shared_bytes").value_or(0));
  return most;
}

std::vector<LaunchFit>
vibegemm::launchFits(const json::Object &plan,
                     const std::vector<vibegemm::KernelResources> &ks,
                     const vibegemm::TargetInfo &t) {
  std::vector<LaunchFit> fits;
  const json::Array *launches = plan.getArray("launches");
  for (const json::Value &l : launches ? *launches : json::Array()) {
    const json::Object *launch = l.getAsObject();
    if (!launch)
      continue;
    auto product = [&](StringRef key) {
      int64_t p = 1;
      if (const json::Array *dims = launch->getArray(key))
        for (const json::Value &d : *dims)
          p *= d.getAsInteger().value_or(1);
      return p;
    };
    LaunchFit fit;
    fit.kernel = launch->getString("kernel").value_or("").str();
    fit.blocks = product("grid");
    fit.threads = product("block");
    fit.clusterBlocks = launch->getArray("cluster") ? product("cluster") : 1;
    fit.sharedBytes = launch->getInteger("shared_bytes").value_or(0);
    int64_t regs = 32;
    for (const vibegemm::KernelResources &k : ks)
      if (k.kernel == fit.kernel) {
        regs = std::max(k.registers, 1);
        fit.sharedBytes += k.sharedBytes;
        fit.spills = k.spillStoreBytes + k.spillLoadBytes > 0;
      }
    fit.residentPerSm = std::max<int64_t>(
        1, std::min<int64_t>(
               {32, 2048 / std::max<int64_t>(fit.threads, 1),
                t.registersPerSm / std::max<int64_t>(regs * fit.threads, 1),
                fit.sharedBytes > 0 ? t.maxSharedBytesPerBlock / fit.sharedBytes
                                    : 32}));
    fits.push_back(std::move(fit));
  }
  return fits;
}

std::string vibegemm::describeLaunchFits(const std::vector<LaunchFit> &fits) {
  std::string s;
  for (const LaunchFit &f : fits) {
    if (!s.empty())
      s += " + ";
    s += llvm::formatv("{0} block{1} x {2} threads", f.blocks,
                       f.blocks == 1 ? "" : "s", f.threads);
    if (f.clusterBlocks > 1)
      s += llvm::formatv(" in clusters of {0}", f.clusterBlocks);
    s += llvm::formatv(", {0} per SM", f.residentPerSm);
    if (f.sharedBytes > 0)
      s += llvm::formatv(", {0} KiB shared",
                         llvm::divideCeil(f.sharedBytes, 1024));
  }
  return s;
}

double vibegemm::staticEstimateMs(double rooflineMs,
                                  const std::vector<LaunchFit> &fits,
                                  const vibegemm::TargetInfo &t) {
  double worst = 1.0;
  for (const LaunchFit &f : fits) {
    double slots = double(f.residentPerSm) * t.smCount;
    double waves = std::ceil(f.blocks / slots);
    double fill = f.blocks / (waves * slots);
    double warps = std::min(1.0, f.residentPerSm * f.threads / 32.0 / 16.0);
    worst = std::max(worst, (f.spills ? 2.0 : 1.0) / (fill * warps));
  }
  return rooflineMs * worst;
}

double vibegemm::rooflineMs(const GemmProblem &p,
                            const vibegemm::TargetInfo &t) {
  auto bytes = [](Type type) {
    return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
  };
  double moved = p.batch * (double(p.m) * p.k * bytes(p.lhsType) +
                            double(p.k) * p.n * bytes(p.rhsType) +
                            double(p.m) * p.n * bytes(p.resultType));
  double peak = p.lhsType.isF32()                            ? t.peakFp32Tflops
                : isFloat8(p.lhsType) && t.peakFp8Tflops > 0 ? t.peakFp8Tflops
                                                             : t.peakBf16Tflops;
  double computeMs = p.flops() / (peak * 1e12) * 1e3;
  double memoryMs = moved / (t.dramGBps * 1e9) * 1e3;
  return std::max(computeMs, memoryMs);
}

//===- CostModel.cpp - Static time estimates for kernels ------------------===//
//
// The roofline and the occupancy-scaled estimate llm-schedule ranks
// candidates by when no GPU measures them.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Target/CostModel.h"

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

double
vibegemm::staticEstimateMs(double rooflineMs, const json::Object &plan,
                           const std::vector<vibegemm::KernelResources> &ks,
                           const vibegemm::TargetInfo &t) {
  double worst = 1.0;
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
    int64_t blocks = product("grid"), threads = product("block");
    StringRef kernel = launch->getString("kernel").value_or("");
    int64_t regs = 32, shared = launch->getInteger("shared_bytes").value_or(0);
    bool spills = false;
    for (const vibegemm::KernelResources &k : ks)
      if (k.kernel == kernel) {
        regs = std::max(k.registers, 1);
        shared += k.sharedBytes;
        spills = k.spillStoreBytes + k.spillLoadBytes > 0;
      }
    int64_t perSm = std::min<int64_t>(
        {32, 2048 / std::max<int64_t>(threads, 1),
         t.registersPerSm / std::max<int64_t>(regs * threads, 1),
         shared > 0 ? t.maxSharedBytesPerBlock / shared : 32});
    perSm = std::max<int64_t>(perSm, 1);
    double slots = double(perSm) * t.smCount;
    double waves = std::ceil(blocks / slots);
    double fill = blocks / (waves * slots);
    double warps = std::min(1.0, perSm * threads / 32.0 / 16.0);
    worst = std::max(worst, (spills ? 2.0 : 1.0) / (fill * warps));
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

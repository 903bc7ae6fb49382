//===- CompareCublas.cpp - Time cuBLAS on the plan's GEMM -----------------===//
//
// --compare=cublas: cuBLAS (cuBLASLt for FP8) on the plan's "gemm", its input
// dtype and its output dtype where cuBLAS writes it (f32 otherwise), timed
// by the protocol of Timing.h in the same process, as the plan is.
//
//===----------------------------------------------------------------------===//

#include "Run.h"

#include <array>

using namespace mlir::vibegemm::cuda;
namespace json = llvm::json;

namespace mlir::vibegemm::runtime::detail {

json::Value Run::compareCublas() {
  if (!plan.gemm)
    return json::Object{{"skipped", "the plan has no GEMM description"}};
  const PlanGemm &g = *plan.gemm;
  const PlanBuffer *a = plan.find(g.a), *b = plan.find(g.b),
                   *c = plan.find(g.c);
  if (a->kind != PlanBuffer::Kind::Input || b->kind != PlanBuffer::Kind::Input)
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
  json::Object result{
      {"time_ms", t.medianMs},
      {"tflops", 2.0 * g.batch * g.m * g.n * g.k / (t.medianMs * 1e-3) / 1e12},
      {"output_dtype", dtypeName(outType)},
      {"timing", timingJson(t)}};
  if (a->dtype == DType::F32)
    result["math"] = tf32 ? "tf32" : "f32";
  return result;
}

} // namespace mlir::vibegemm::runtime::detail

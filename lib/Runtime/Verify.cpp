//===- Verify.cpp - Check a plan's outputs against a reference ------------===//
//
// The checks of a run, in the order of trust: guards (did a kernel write
// outside its buffers), inputs (did it write into them), finiteness and
// tolerance against the reference (the tolerances docs/runtime.md states),
// and determinism (same inputs, same bits). The reference is cuBLAS or the
// plan's reference kernels, itself checked against float64 on the CPU.
//
//===----------------------------------------------------------------------===//

#include "Run.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstring>

using namespace mlir::vibegemm::cuda;
namespace json = llvm::json;

namespace mlir::vibegemm::runtime::detail {

namespace {

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

} // namespace

Outcome Run::chooseReference(json::Object &result) {
  if (!plan.referencePlan.empty() && opts.reference != ReferenceMode::Cublas &&
      opts.reference != ReferenceMode::None) {
    llvm::Expected<Plan> ref = loadPlan(plan.referencePlan, plan.sizes);
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

Outcome Run::check(CUresult r, const std::string &what) {
  if (r)
    return fail(kStatusFault, what + ": " + session.d->describe(r));
  return Outcome::ok();
}

Outcome Run::prepare(LoadedPlan &loaded, bool writeInputs) {
  const Driver &d = *session.d;
  for (auto &[name, g] : loaded.buffers) {
    bool isInput = g.spec->kind == PlanBuffer::Kind::Input;
    if (isInput && !writeInputs)
      continue;
    if (Outcome o =
            check(d.cuMemsetD8(g.base, kGuardByte, g.total()), "cuMemsetD8");
        !o)
      return o;
    CUresult r =
        isInput ? d.cuMemcpyHtoD(g.data, hostInputs[name].data(), g.spec->bytes)
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

Outcome Run::runOnce(LoadedPlan &loaded, const std::string &what) {
  if (Outcome o = prepare(loaded, /*writeInputs=*/false); !o)
    return o;
  if (Outcome o = check(loaded.enqueue(session, loaded.set(), nullptr),
                        "launching " + what);
      !o)
    return o;
  return session.wait(what);
}

Outcome Run::download(const GuardedBuffer &g, std::vector<uint8_t> &bytes) {
  bytes.resize(g.total());
  return check(session.d->cuMemcpyDtoH(bytes.data(), g.base, g.total()),
               "reading back " + g.spec->name);
}

Outcome Run::inspect(LoadedPlan &loaded, const std::string &who,
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
    if (auto at =
            firstGuardDamage(bytes.data() + g.guard + g.spec->bytes, g.guard))
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

Outcome Run::computeReference(std::map<std::string, HostElements> &ref) {
  if (referenceMode == ReferenceMode::Cublas) {
    const PlanGemm &g = *plan.reference;
    const PlanBuffer *a = plan.find(g.a), *c = plan.find(g.c);
    std::string err =
        cublas->run(g, a->dtype, DType::F32, mainPlan.buffers.at(g.a).data,
                    mainPlan.buffers.at(g.b).data, cublasOut, session.stream);
    if (!err.empty())
      return fail(kStatusReferenceError, err);
    if (Outcome o = session.wait("cuBLAS reference"); !o)
      return fail(kStatusReferenceError, o.diagnostic);
    std::vector<uint8_t> bytes(c->numElements() * 4);
    if (Outcome o = check(
            session.d->cuMemcpyDtoH(bytes.data(), cublasOut, bytes.size()),
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

Outcome Run::checkReferenceOnCpu(ElementSpan ref) {
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

ElementSpan Run::hostInput(const std::string &name) const {
  const PlanBuffer *buffer = plan.find(name);
  auto it = hostInputs.find(name);
  if (!buffer || it == hostInputs.end())
    return {};
  return ElementSpan::of(buffer->dtype, it->second);
}

double Run::toleranceFor(const PlanBuffer &out) const {
  double tol = dtypeTolerance(out.dtype);
  for (const PlanBuffer &b : plan.buffers)
    if (b.kind == PlanBuffer::Kind::Input)
      tol = std::max(tol, dtypeTolerance(b.dtype));
  // Only the compiler's record of a TF32 request loosens f32's tolerance.
  return std::max(tol, precisionTolerance(plan.f32Precision));
}

Outcome Run::verify(uint64_t seed, bool firstPass, json::Array &report) {
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
      if (Outcome o = checkReferenceOnCpu(ref[plan.reference->c].span()); !o)
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
        verdict =
            fail(kStatusReferenceError, "the reference computes no " + b.name);
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
                                         got[*c.firstBad], want[*c.firstBad])
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
                                   b.name, c.maxRelError, c.relL2, c.tolerance,
                                   where));
    }
  }
  if (!verdict)
    return verdict;
  if (firstPass)
    for (auto &[name, bytes] : outputs)
      if (bytes != again[name]) {
        size_t at =
            std::mismatch(bytes.begin(), bytes.end(), again[name].begin())
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

} // namespace mlir::vibegemm::runtime::detail

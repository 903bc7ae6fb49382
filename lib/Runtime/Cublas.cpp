//===- Cublas.cpp - cuBLAS, loaded at run time ----------------------------===//
//
// Row-major C = A*B is column-major C^T = B^T * A^T, so the operands are
// passed swapped; a transposed operand flips its op instead.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Runtime/Cublas.h"

#include <cstdlib>
#include <type_traits>
#include <vector>
#include <dlfcn.h>

using namespace mlir::vibegemm::runtime;

namespace {
constexpr int kOpN = 0, kOpT = 1;
constexpr int kCudaR32F = 0, kCudaR16F = 2, kCudaR16BF = 14;
// CUBLAS_COMPUTE_32F: float32 accumulation; TF32 only if the math mode asks.
constexpr int kComputeF32 = 68;
constexpr int kComputeF32FastTf32 = 77; // CUBLAS_COMPUTE_32F_FAST_TF32
constexpr int kGemmDefault = -1;
constexpr int kCudaR8FE4M3 = 28, kCudaR8FE5M2 = 29;
// cublasLtMatmulDescAttributes_t and cublasLtMatrixLayoutAttribute_t
// values (cublasLt.h, CUDA 12/13).
constexpr int kLtDescTransA = 3, kLtDescTransB = 4;
constexpr int kLtDescAScalePointer = 17, kLtDescBScalePointer = 18;
constexpr int kLtLayoutBatchCount = 5, kLtLayoutBatchStride = 6;

int cudaDataType(DType type) {
  switch (type) {
  case DType::F16:
    return kCudaR16F;
  case DType::BF16:
    return kCudaR16BF;
  case DType::F32:
    return kCudaR32F;
  default:
    return -1;
  }
}
} // namespace

Cublas *Cublas::load(std::string &whyNot) {
  static Cublas *instance = nullptr;
  static std::string error;
  static bool tried = false;
  if (tried) {
    whyNot = error;
    return instance;
  }
  tried = true;
  std::vector<std::string> names;
  if (const char *env = std::getenv("VIBEGEMM_LIBCUBLAS"))
    names.push_back(env);
  for (const char *n : {"libcublas.so.13", "libcublas.so.12",
                        "/usr/local/cuda/lib64/libcublas.so.13",
                        "/usr/local/cuda/lib64/libcublas.so.12",
                        "libcublas.so"})
    names.push_back(n);
  void *lib = nullptr;
  std::string opened;
  for (const std::string &n : names)
    if ((lib = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL))) {
      opened = n;
      break;
    }
  if (!lib) {
    error = "cuBLAS not found (tried libcublas.so.13/.12 and "
            "/usr/local/cuda/lib64; set VIBEGEMM_LIBCUBLAS)";
    whyNot = error;
    return nullptr;
  }
  auto c = std::make_unique<Cublas>();
  c->libraryName = opened;
  c->create = reinterpret_cast<decltype(c->create)>(dlsym(lib, "cublasCreate_v2"));
  c->setStream =
      reinterpret_cast<decltype(c->setStream)>(dlsym(lib, "cublasSetStream_v2"));
  c->gemmStridedBatchedEx = reinterpret_cast<decltype(c->gemmStridedBatchedEx)>(
      dlsym(lib, "cublasGemmStridedBatchedEx"));
  if (!c->create || !c->setStream || !c->gemmStridedBatchedEx) {
    error = opened + " lacks cublasCreate_v2/cublasGemmStridedBatchedEx";
    whyNot = error;
    return nullptr;
  }
  if (int status = c->create(&c->handle)) {
    error = "cublasCreate failed with status " + std::to_string(status);
    whyNot = error;
    return nullptr;
  }
  c->loadLt();
  instance = c.release();
  return instance;
}

void Cublas::loadLt() {
  // libcublas loads its own libcublasLt, so its soname finds it; the
  // sibling file covers a libcublas opened by path.
  std::vector<std::string> names = {"libcublasLt.so.13", "libcublasLt.so.12"};
  size_t slash = libraryName.rfind('/');
  if (slash != std::string::npos)
    for (const char *version : {".13", ".12"})
      names.push_back(libraryName.substr(0, slash) + "/libcublasLt.so" +
                      version);
  names.push_back("libcublasLt.so");
  void *lib = nullptr;
  for (const std::string &n : names)
    if ((lib = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL)))
      break;
  if (!lib)
    return;
  auto bind = [&](auto &fn, const char *name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
        dlsym(lib, name));
    return fn != nullptr;
  };
  bool all = bind(ltCreate, "cublasLtCreate") &&
             bind(ltDescCreate, "cublasLtMatmulDescCreate") &&
             bind(ltDescSet, "cublasLtMatmulDescSetAttribute") &&
             bind(ltLayoutCreate, "cublasLtMatrixLayoutCreate") &&
             bind(ltLayoutSet, "cublasLtMatrixLayoutSetAttribute") &&
             bind(ltPrefCreate, "cublasLtMatmulPreferenceCreate") &&
             bind(ltHeuristic, "cublasLtMatmulAlgoGetHeuristic") &&
             bind(ltMatmul, "cublasLtMatmul");
  if (!all || ltCreate(&ltHandle))
    ltHandle = nullptr;
}

std::string Cublas::runFp8(const PlanGemm &g, DType inType, DType outType,
                           cuda::CUdeviceptr a, cuda::CUdeviceptr b,
                           cuda::CUdeviceptr c, cuda::CUstream stream,
                           cuda::CUdeviceptr scaleA,
                           cuda::CUdeviceptr scaleB) const {
  if (!ltHandle)
    return "cuBLASLt (libcublasLt.so.13/.12) not found: FP8 has no cuBLAS "
           "reference without it";
  if (g.transposeA || !g.transposeB)
    return "cuBLASLt's FP8 GEMM takes A stored [M, K] and B stored [N, K] "
           "only";
  int inCuda = inType == DType::F8E4M3FN ? kCudaR8FE4M3 : kCudaR8FE5M2;
  int outCuda = cudaDataType(outType);
  if (outCuda < 0)
    return std::string("cuBLASLt's FP8 GEMM does not write ") +
           dtypeName(outType);
  std::string key = std::to_string(g.batch) + "x" + std::to_string(g.m) +
                    "x" + std::to_string(g.n) + "x" + std::to_string(g.k) +
                    dtypeName(inType) + dtypeName(outType) +
                    (scaleA ? "sa" : "") + (scaleB ? "sb" : "");
  auto it = ltPlans.find(key);
  if (it == ltPlans.end()) {
    // Column-major: C^T (n x m) = B-storage^T (k x n, transposed) *
    // A-storage (k x m): cuBLASLt's "TN".
    LtPlan p;
    int opT = kOpT, opN = kOpN;
    auto fail = [](const char *what, int status) {
      return std::string("cuBLASLt FP8: ") + what + " failed with status " +
             std::to_string(status);
    };
    if (int s = ltDescCreate(&p.desc, kComputeF32, kCudaR32F))
      return fail("cublasLtMatmulDescCreate", s);
    ltDescSet(p.desc, kLtDescTransA, &opT, sizeof(opT));
    ltDescSet(p.desc, kLtDescTransB, &opN, sizeof(opN));
    void *sa = reinterpret_cast<void *>(scaleB), // cuBLAS's A is our B
        *sb = reinterpret_cast<void *>(scaleA);
    if (sa)
      ltDescSet(p.desc, kLtDescAScalePointer, &sa, sizeof(sa));
    if (sb)
      ltDescSet(p.desc, kLtDescBScalePointer, &sb, sizeof(sb));
    auto layout = [&](LtOpaque &l, int type, int64_t rows, int64_t cols,
                      int64_t stride) {
      int s = ltLayoutCreate(&l, type, rows, cols, rows);
      if (!s && g.batch > 1) {
        int count = static_cast<int>(g.batch);
        ltLayoutSet(l, kLtLayoutBatchCount, &count, sizeof(count));
        ltLayoutSet(l, kLtLayoutBatchStride, &stride, sizeof(stride));
      }
      return s;
    };
    if (int s = layout(p.aLayout, inCuda, g.k, g.n, g.k * g.n) |
                layout(p.bLayout, inCuda, g.k, g.m, g.k * g.m) |
                layout(p.cLayout, outCuda, g.n, g.m, g.n * g.m))
      return fail("cublasLtMatrixLayoutCreate", s);
    LtOpaque pref = nullptr;
    if (int s = ltPrefCreate(&pref))
      return fail("cublasLtMatmulPreferenceCreate", s);
    // No workspace: the preference's default maximum is 0 bytes.
    LtHeuristic result{};
    int found = 0;
    if (int s = ltHeuristic(ltHandle, p.desc, p.aLayout, p.bLayout,
                            p.cLayout, p.cLayout, pref, 1, &result, &found);
        s || !found)
      return fail("cublasLtMatmulAlgoGetHeuristic (no algorithm)", s);
    p.algo = result.algo;
    it = ltPlans.emplace(key, p).first;
  }
  const LtPlan &p = it->second;
  float alpha = 1.0f, beta = 0.0f;
  if (int s = ltMatmul(ltHandle, p.desc, &alpha, reinterpret_cast<void *>(b),
                       p.aLayout, reinterpret_cast<void *>(a), p.bLayout,
                       &beta, reinterpret_cast<void *>(c), p.cLayout,
                       reinterpret_cast<void *>(c), p.cLayout, &p.algo,
                       nullptr, 0, stream))
    return "cublasLtMatmul (FP8) failed with status " + std::to_string(s);
  return "";
}

std::string Cublas::run(const PlanGemm &g, DType inType, DType outType,
                        cuda::CUdeviceptr a, cuda::CUdeviceptr b,
                        cuda::CUdeviceptr c, cuda::CUstream stream,
                        bool tf32) const {
  if (inType == DType::F8E4M3FN || inType == DType::F8E5M2)
    return runFp8(g, inType, outType, a, b, c, stream);
  int aType = cudaDataType(inType), cType = cudaDataType(outType);
  if (aType < 0 || cType < 0)
    return std::string("cuBLAS reference does not support ") +
           dtypeName(inType) + " -> " + dtypeName(outType);
  if (int status = setStream(handle, stream))
    return "cublasSetStream failed with status " + std::to_string(status);
  float alpha = 1.0f, beta = 0.0f;
  // Column-major view: C^T (n x m) = op(B-storage) * op(A-storage).
  int opB = g.transposeB ? kOpT : kOpN;
  int opA = g.transposeA ? kOpT : kOpN;
  int ldb = g.transposeB ? g.k : g.n;
  int lda = g.transposeA ? g.m : g.k;
  int status = gemmStridedBatchedEx(
      handle, opB, opA, g.n, g.m, g.k, &alpha, reinterpret_cast<void *>(b),
      aType, ldb, g.k * g.n, reinterpret_cast<void *>(a), aType, lda,
      g.m * g.k, &beta, reinterpret_cast<void *>(c), cType, g.n, g.m * g.n,
      g.batch, tf32 ? kComputeF32FastTf32 : kComputeF32, kGemmDefault);
  if (status)
    return "cublasGemmStridedBatchedEx failed with status " +
           std::to_string(status);
  return "";
}

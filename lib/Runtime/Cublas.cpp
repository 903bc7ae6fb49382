//===- Cublas.cpp - cuBLAS, loaded at run time ----------------------------===//
//
// Row-major C = A*B is column-major C^T = B^T * A^T, so the operands are
// passed swapped; a transposed operand flips its op instead.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Runtime/Cublas.h"

#include <cstdlib>
#include <dlfcn.h>

using namespace mlir::vibegemm::runtime;

namespace {
constexpr int kOpN = 0, kOpT = 1;
constexpr int kCudaR32F = 0, kCudaR16F = 2, kCudaR16BF = 14;
// CUBLAS_COMPUTE_32F: float32 accumulation; TF32 only if the math mode asks.
constexpr int kComputeF32 = 68;
constexpr int kComputeF32FastTf32 = 77; // CUBLAS_COMPUTE_32F_FAST_TF32
constexpr int kGemmDefault = -1;

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
  instance = c.release();
  return instance;
}

std::string Cublas::run(const PlanGemm &g, DType inType, DType outType,
                        cuda::CUdeviceptr a, cuda::CUdeviceptr b,
                        cuda::CUdeviceptr c, cuda::CUstream stream,
                        bool tf32) const {
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

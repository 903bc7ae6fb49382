//===- Cublas.h - cuBLAS, loaded at run time --------------------*- C++ -*-===//
//
// cuBLAS is the independent reference for plain GEMMs and the yardstick for
// timing. Like the driver it is opened with dlopen, so it is optional.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_RUNTIME_CUBLAS_H
#define VIBEGEMM_RUNTIME_CUBLAS_H

#include "vibegemm/Runtime/CudaDriver.h"
#include "vibegemm/Runtime/Plan.h"

#include <string>

namespace mlir::vibegemm::runtime {

class Cublas {
public:
  /// Opens libcublas ($VIBEGEMM_LIBCUBLAS first) and creates a handle bound
  /// to the current context; null with `whyNot` set when unavailable.
  static Cublas *load(std::string &whyNot);

  /// Runs the row-major GEMM `gemm` on `stream`: A and B of `inType`, C of
  /// `outType`, float32 accumulation, without TF32 unless `tf32` (the
  /// yardstick for kernels the user asked to use TF32). Returns "" or an
  /// error.
  std::string run(const PlanGemm &gemm, DType inType, DType outType,
                  cuda::CUdeviceptr a, cuda::CUdeviceptr b,
                  cuda::CUdeviceptr c, cuda::CUstream stream,
                  bool tf32 = false) const;

  /// "libcublas.so.13" or whichever file was opened.
  const std::string &library() const { return libraryName; }

private:
  using Handle = struct cublasContext *;
  int (*create)(Handle *) = nullptr;
  int (*setStream)(Handle, cuda::CUstream) = nullptr;
  int (*gemmStridedBatchedEx)(Handle, int, int, int, int, int, const void *,
                              const void *, int, int, long long, const void *,
                              int, int, long long, const void *, void *, int,
                              int, long long, int, int, int) = nullptr;
  Handle handle = nullptr;
  std::string libraryName;
};

} // namespace mlir::vibegemm::runtime

#endif // VIBEGEMM_RUNTIME_CUBLAS_H

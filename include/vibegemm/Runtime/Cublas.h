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

#include <cstdint>
#include <map>
#include <string>

namespace mlir::vibegemm::runtime {

class Cublas {
public:
  /// Opens libcublas ($VIBEGEMM_LIBCUBLAS first) and creates a handle bound
  /// to the current context; null with `whyNot` set when unavailable.
  static Cublas *load(std::string &whyNot);

  /// Runs the row-major GEMM `gemm` on `stream`: A and B of `inType`, C of
  /// `outType`, float32 accumulation, without TF32 unless `tf32` (the
  /// yardstick for kernels the user asked to use TF32). FP8 inputs go to
  /// cuBLASLt's FP8 GEMM (runFp8, unit scales). Returns "" or an error.
  std::string run(const PlanGemm &gemm, DType inType, DType outType,
                  cuda::CUdeviceptr a, cuda::CUdeviceptr b,
                  cuda::CUdeviceptr c, cuda::CUstream stream,
                  bool tf32 = false) const;

  /// cuBLASLt's FP8 GEMM (cublasGemmEx takes no FP8): A stored [M, K] and
  /// B stored [N, K], the only layout it offers, f32 accumulation with its
  /// periodic promotion (no fast accumulation), C of `outType` (f32, f16 or
  /// bf16). `scaleA`/`scaleB` point at one float each on the device, or are
  /// 0 for 1.0. The descriptors and the algorithm are kept per problem, so
  /// timed calls launch only.
  std::string runFp8(const PlanGemm &gemm, DType inType, DType outType,
                     cuda::CUdeviceptr a, cuda::CUdeviceptr b,
                     cuda::CUdeviceptr c, cuda::CUstream stream,
                     cuda::CUdeviceptr scaleA = 0,
                     cuda::CUdeviceptr scaleB = 0) const;

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

  // cuBLASLt, opened beside cuBLAS; null where it is missing.
  using LtHandle = struct cublasLtContext *;
  using LtOpaque = void *;
  struct LtAlgo {
    uint64_t data[8];
  };
  struct LtHeuristic {
    LtAlgo algo;
    size_t workspaceSize;
    int state;
    float wavesCount;
    int reserved[4];
  };
  int (*ltCreate)(LtHandle *) = nullptr;
  int (*ltDescCreate)(LtOpaque *, int, int) = nullptr;
  int (*ltDescSet)(LtOpaque, int, const void *, size_t) = nullptr;
  int (*ltLayoutCreate)(LtOpaque *, int, uint64_t, uint64_t,
                        int64_t) = nullptr;
  int (*ltLayoutSet)(LtOpaque, int, const void *, size_t) = nullptr;
  int (*ltPrefCreate)(LtOpaque *) = nullptr;
  int (*ltHeuristic)(LtHandle, LtOpaque, LtOpaque, LtOpaque, LtOpaque,
                     LtOpaque, LtOpaque, int, LtHeuristic *, int *) = nullptr;
  int (*ltMatmul)(LtHandle, LtOpaque, const void *, const void *, LtOpaque,
                  const void *, LtOpaque, const void *, const void *, LtOpaque,
                  void *, LtOpaque, const LtAlgo *, void *, size_t,
                  cuda::CUstream) = nullptr;
  LtHandle ltHandle = nullptr;
  /// What one FP8 problem needs at launch, made on its first call.
  struct LtPlan {
    LtOpaque desc = nullptr, aLayout = nullptr, bLayout = nullptr,
             cLayout = nullptr;
    LtAlgo algo;
  };
  mutable std::map<std::string, LtPlan> ltPlans;
  void loadLt();
};

} // namespace mlir::vibegemm::runtime

#endif // VIBEGEMM_RUNTIME_CUBLAS_H

//===- Plan.h - Launch plans, read and validated ----------------*- C++ -*-===//
//
// The runtime's view of a launch plan: buffers, launches in order, and what
// to check the outputs against. Reading a plan needs no GPU, so every check
// here runs in CI. A version 2 plan has run-time sizes (a dynamic M): it is
// read for given values of them, into the same concrete Plan.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_RUNTIME_PLAN_H
#define VIBEGEMM_RUNTIME_PLAN_H

#include "vibegemm/Runtime/SizeExpr.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::vibegemm::runtime {

enum class DType { F32, F16, BF16, F64, I64, I32, I8, F8E4M3FN, F8E5M2 };

/// Bytes per element.
size_t dtypeBytes(DType type);
/// "f32", "bf16", ...
const char *dtypeName(DType type);
/// Relative tolerance for results computed from this element type, as
/// docs/runtime.md states it: f32 1e-4, f16 1e-2, bf16 2^-6, FP8 2^-9,
/// integers exact.
double dtypeTolerance(DType type);

/// How the plan's f32 GEMMs use tensor cores, as the compiler recorded it
/// (`"f32_precision"`): IEEE f32 arithmetic unless the user asked for TF32.
enum class F32Precision { Ieee, Tf32, Tf32x3 };
/// Tolerance for f32 results computed in `precision`: 3xTF32 keeps f32's
/// 1e-4; TF32 rounds operands to 11 significant bits (unit roundoff
/// 2^-11 = 4.9e-4), so 5e-3, ten times that, as bf16's 1e-2 is about
/// 2.5 times its 3.9e-3.
double precisionTolerance(F32Precision precision);

struct PlanBuffer {
  enum class Kind { Input, Output, Temp, Scratch };
  std::string name;
  Kind kind = Kind::Scratch;
  std::vector<int64_t> shape;
  DType dtype = DType::I8;
  size_t bytes = 0;
  bool zeroInit = false;
  /// Inputs: verification multiplies its random values by this.
  double verifyScale = 1.0;
  /// arg_index for inputs, result_index for outputs.
  int64_t index = -1;

  size_t numElements() const { return bytes / dtypeBytes(dtype); }
};

/// A TMA descriptor over a whole buffer, encoded by the runtime with
/// cuTensorMapEncodeTiled; the kernel gets a pointer to it. The enums hold
/// the CUDA driver's values.
struct PlanTensorMap {
  std::vector<int64_t> box; // outermost first, like the buffer's shape
  /// The row-major view the map covers, when it is not the buffer's own
  /// shape (a batch folded into M: [B * S, K] over a [B, S, K] buffer).
  std::vector<int64_t> shape;
  int swizzle = 0, l2Promotion = 0, oobFill = 0, interleave = 0;
};

struct PlanArg {
  enum class Kind { Buffer, I64, I32, F32, TensorMap };
  Kind kind = Kind::Buffer;
  /// The buffer passed, or the one a tensor map covers.
  std::string buffer;
  int64_t intValue = 0;
  double floatValue = 0;
  PlanTensorMap tensorMap;
};

struct PlanLaunch {
  /// Absolute path of the PTX file.
  std::string ptxPath;
  std::string kernel;
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  /// Blocks per cluster; all 1 for a launch without clusters.
  unsigned cluster[3] = {1, 1, 1};
  unsigned sharedBytes = 0;
  bool clustered() const { return cluster[0] * cluster[1] * cluster[2] > 1; }
  /// The kernel waits for the grid before it at entry, so it may be
  /// launched with programmatic stream serialization.
  bool programmatic = false;
  std::vector<PlanArg> args;
};

/// A plain GEMM over plan buffers: C[b] = op(A[b]) * op(B[b]), row-major,
/// where a transposed operand is stored as [k, m] (A) or [n, k] (B).
struct PlanGemm {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  std::string a, b, c;
  bool transposeA = false, transposeB = false;
};

struct Plan {
  std::string path, dir;
  std::string function, dispatch, target;
  F32Precision f32Precision = F32Precision::Ieee;
  std::vector<PlanBuffer> buffers;
  std::vector<PlanLaunch> launches;
  double flops = 0;
  /// Set when the whole plan computes a plain GEMM: cuBLAS is then an
  /// independent reference, and small cases can be checked on the CPU.
  std::optional<PlanGemm> reference;
  /// The GEMM at the heart of the plan, for --compare=cublas.
  std::optional<PlanGemm> gemm;
  /// Absolute path of a plan of trivially-scheduled kernels computing the
  /// same outputs from the same inputs; empty if none.
  std::string referencePlan;
  /// The run-time sizes this plan was read for (version 2), by name.
  SizeBindings sizes;

  const PlanBuffer *find(llvm::StringRef name) const;
  /// Bytes of all inputs and outputs: the least a run must move.
  size_t ioBytes() const;
  /// Bytes of every buffer a run touches.
  size_t workingSetBytes() const;
};

/// Reads and validates a plan for the run-time `sizes` a version 2 plan
/// declares (none for version 1). Errors name the file and the offending
/// entry.
llvm::Expected<Plan> loadPlan(llvm::StringRef path,
                              const SizeBindings &sizes = {});
/// Validates a parsed plan document; `path` resolves relative file names.
llvm::Expected<Plan> parsePlan(const llvm::json::Value &doc,
                               llvm::StringRef path,
                               const SizeBindings &sizes = {});

} // namespace mlir::vibegemm::runtime

#endif // VIBEGEMM_RUNTIME_PLAN_H

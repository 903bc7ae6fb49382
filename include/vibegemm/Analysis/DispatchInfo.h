//===- DispatchInfo.h - What a GEMM dispatch computes -----------*- C++ -*-===//
//
// Attribute names shared by the passes, and a small summary of a dispatch's
// GEMM (shape, element types, operand layouts) that the scheduler, the
// reports and the signature key are built from.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_ANALYSIS_DISPATCHINFO_H
#define VIBEGEMM_ANALYSIS_DISPATCHINFO_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

#include <optional>
#include <string>

namespace mlir::vibegemm {

/// Unit attribute on dispatch functions.
inline constexpr llvm::StringLiteral kDispatchAttr = "vibegemm.dispatch";
/// Unit attribute on dispatches without a GEMM: one elementwise, broadcast,
/// transpose or reduction op (tagged `vibegemm.role = "generic"`) that no
/// GEMM fused, compiled with the generic schedule.
inline constexpr llvm::StringLiteral kGenericDispatchAttr = "vibegemm.generic";
/// Unit attribute on functions dispatch formation leaves alone (test
/// harnesses, reference code).
inline constexpr llvm::StringLiteral kIgnoreAttr = "vibegemm.ignore";
/// Stable key of a dispatch: problem, dtypes, fusion and an IR hash.
inline constexpr llvm::StringLiteral kSignatureAttr = "vibegemm.signature";
/// Names of the ops fused into a dispatch, in order.
inline constexpr llvm::StringLiteral kFusionAttr = "vibegemm.fusion";
/// Bool attribute on a dispatch: whether its epilogue runs in the GEMM's
/// kernel (the default) or as kernels of its own. Schedules may override it.
inline constexpr llvm::StringLiteral kFuseEpiloguesAttr =
    "vibegemm.fuse_epilogues";
/// Role of an op inside a dispatch: init, root, epilogue0, epilogue1, ...,
/// or softmax.
inline constexpr llvm::StringLiteral kRoleAttr = "vibegemm.role";
/// F64 argument attribute on a dispatch: verification scales that input's
/// random values by it. Set on a GEMM's operands when a softmax follows, so
/// its input is O(1) (like a real layer's, with 1/sqrt(K)-scaled weights)
/// rather than O(sqrt(K)), where one rounding step of a bf16 intermediate
/// (which two correct kernels may take differently) would change the
/// softmax's output by tens of percent.
inline constexpr llvm::StringLiteral kVerifyScaleAttr = "vibegemm.verify_scale";
/// "tf32" or "3xtf32" on a function whose kernels take f32 operands through
/// TF32 tensor cores (set by gemm_to_mma_sync); the launch plan carries it so
/// the runtime verifies with the tolerance the user accepted.
inline constexpr llvm::StringLiteral kF32PrecisionAttr =
    "vibegemm.f32_precision";
/// Cluster shape (x, y, z) a `gpu.launch`'s blocks must run in (set by
/// gemm_to_wgmma {cluster_rows}). Outlining drops it; the lowering moves it
/// onto the `gpu.launch_func` and the kernel.
inline constexpr llvm::StringLiteral kClusterShapeAttr = "vibegemm.cluster";
/// Registers a thread of a `gpu.launch` starts with (set by gemm_to_wgmma
/// where ptxas cannot derive it from the block size, so its `setmaxnreg`
/// counts); the lowering puts it on the kernel as `nvvm.maxnreg`.
inline constexpr llvm::StringLiteral kMaxRegistersAttr =
    "vibegemm.max_registers";
/// The target a dispatch is scheduled for ("sm_90a"), set by
/// vibegemm-builtin-schedule: kernel builders read their limits from it.
inline constexpr llvm::StringLiteral kTargetAttr = "vibegemm.target";
/// Set by vibegemm-widen-half-softmax on a dispatch whose f16/bf16 softmax
/// it made an f32 one between an extension and a rounding.
inline constexpr llvm::StringLiteral kWidenedSoftmaxAttr =
    "vibegemm.widened_softmax";
/// Symbol of the named sequence that schedules a dispatch.
inline constexpr llvm::StringLiteral kScheduleAttr = "vibegemm.schedule";
/// On a dispatch whose M is dynamic: the bucket of M it serves,
/// `array<i64: lo, hi>` (vibegemm-bucket-dispatches).
inline constexpr llvm::StringLiteral kMRangeAttr = "vibegemm.m_range";
/// The largest M a dynamic-M dispatch serves: 65535 grid rows of 16-row
/// blocks (the smallest block tile in M).
inline constexpr int64_t kMaxDynamicM = int64_t(65535) * 16;
/// Name of the module holding the transform scripts.
inline constexpr llvm::StringLiteral kSchedulesModuleName =
    "__vibegemm_schedules";

/// The GEMM at the heart of a dispatch.
struct GemmProblem {
  /// M is the representative of the bucket when the dispatch's M is
  /// dynamic (`mRange` then holds the bucket).
  int64_t batch = 1, m = 0, n = 0, k = 0;
  std::optional<std::pair<int64_t, int64_t>> mRange;
  /// The GEMM has a batch loop (batch_matmul), even one of size 1: its
  /// operands are 3-D and schedules tile the batch.
  bool batched = false;
  Type lhsType, rhsType, accType, resultType;
  bool transposeA = false, transposeB = false;
  /// Number of fused consumers (elementwise and softmax).
  int epilogueOps = 0;
  bool hasSoftmax = false;
  /// Math ops in the fused consumers' bodies that expand into polynomials
  /// or special-function units (erf, exp, tanh, ...): what makes an
  /// epilogue heavy, per output element.
  int transcendentalOps = 0;
  /// Distinct inputs of the fused consumers indexed like their output and
  /// of the result's element type (a residual): what
  /// `gemm_to_wgmma {tma_load_residual}` can load by TMA.
  int residualInputs = 0;
  /// The dispatch's `vibegemm.fuse_epilogues` decision.
  bool fuseEpilogues = true;
  /// The dispatch's `vibegemm.f32_precision` ("tf32", "3xtf32"; empty:
  /// f32 must stay f32).
  std::string f32Precision;


  double flops() const { return 2.0 * batch * m * n * k; }
  /// Element-type summary such as "bf16xbf16->f32".
  std::string dtypeString() const;
};

/// The M a bucket of M is scheduled and tuned for: its largest, or 4096
/// for the open last bucket.
int64_t representativeM(int64_t lo, int64_t hi);

/// True for the ops dispatch formation treats as GEMM roots.
bool isGemmRoot(linalg::LinalgOp op);

/// True for dispatches marked `vibegemm.generic` (no GEMM inside).
bool isGenericDispatch(func::FuncOp dispatch);

/// The linalg op tagged `vibegemm.role = <role>` inside a dispatch, if any.
linalg::LinalgOp getOpWithRole(func::FuncOp dispatch, StringRef role);

/// The op tagged `vibegemm.role = "root"` inside a dispatch, if any.
linalg::LinalgOp getDispatchRoot(func::FuncOp dispatch);

/// Reads the GEMM problem from a dispatch function.
FailureOr<GemmProblem> getGemmProblem(func::FuncOp dispatch);

/// Computes the stable signature key of a dispatch function.
std::string computeSignature(func::FuncOp dispatch);

/// Short name of an element type ("f32", "bf16", ...).
std::string typeName(Type type);

/// f8E4M3FN or f8E5M2, the FP8 formats Hopper's wgmma reads.
bool isFloat8(Type type);

} // namespace mlir::vibegemm

#endif // VIBEGEMM_ANALYSIS_DISPATCHINFO_H

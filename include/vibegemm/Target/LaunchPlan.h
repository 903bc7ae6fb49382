//===- LaunchPlan.h - Launch plans from lowered IR --------------*- C++ -*-===//
//
// Reads the buffers, kernels, grid and block sizes and kernel arguments of a
// lowered function and writes them as launch plan JSON (version 2 over a
// dynamic M), which any harness (C++, CuPy, cuda-python) can run without
// MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_TARGET_LAUNCHPLAN_H
#define VIBEGEMM_TARGET_LAUNCHPLAN_H

#include "vibegemm/Analysis/DispatchInfo.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"

#include <functional>
#include <optional>

namespace mlir::vibegemm {

/// The run-time size buckets choose on: the token count M (given, or
/// derived from B and S when a batch is folded into it).
constexpr llvm::StringLiteral kPlanSizeName = "M";

/// Maps a kernel module (gpu.binary) name to the PTX file name a plan uses.
using PtxFileNamer = std::function<std::string(llvm::StringRef moduleName)>;

/// Builds the plan of a lowered function: a dispatch, or a host function
/// whose calls to dispatches are inlined into one launch sequence (the
/// tensors passed between dispatches become `temp` buffers). Fails with a
/// diagnostic on IR a plan cannot express.
mlir::FailureOr<llvm::json::Object>
buildLaunchPlan(mlir::func::FuncOp func, llvm::StringRef target,
                const PtxFileNamer &ptxFileFor);

/// Describes the dispatch's GEMM over plan buffers ("arg<i>" inputs, the
/// result "res0") when its operands are dispatch inputs and its single
/// result has the GEMM's shape. `plain` is set when the result is the GEMM
/// itself on a zero-filled accumulator, which cuBLAS can check.
std::optional<llvm::json::Object>
describeGemm(mlir::func::FuncOp dispatch, const GemmProblem &p, bool &plain);

/// The GEMM's M in a plan: the integer, or "M" when it is dynamic.
llvm::json::Value gemmM(const GemmProblem &p);
/// The GEMM's flops in a plan: a number, or an expression of M.
llvm::json::Value planFlops(const GemmProblem &p);

/// Name used for an element type in plans ("f32", "bf16", ...).
std::string planDtype(mlir::Type type);

} // namespace mlir::vibegemm

#endif // VIBEGEMM_TARGET_LAUNCHPLAN_H

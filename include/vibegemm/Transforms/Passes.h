//===- Passes.h - vibegemm passes -------------------------------*- C++ -*-===//
//
// Declarations and registration of the vibegemm passes.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_TRANSFORMS_PASSES_H
#define VIBEGEMM_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::vibegemm {

#define GEN_PASS_DECL
#include "vibegemm/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "vibegemm/Transforms/Passes.h.inc"

} // namespace mlir::vibegemm

#endif // VIBEGEMM_TRANSFORMS_PASSES_H

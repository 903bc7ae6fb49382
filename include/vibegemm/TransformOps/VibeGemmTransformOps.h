//===- VibeGemmTransformOps.h - vibegemm's transform ops --------*- C++ -*-===//
//
// Declares the transform ops of the vibegemm extension and its registration.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_TRANSFORMOPS_VIBEGEMMTRANSFORMOPS_H
#define VIBEGEMM_TRANSFORMOPS_VIBEGEMMTRANSFORMOPS_H

#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/IR/OpImplementation.h"

#define GET_OP_CLASSES
#include "vibegemm/TransformOps/VibeGemmTransformOps.h.inc"

namespace mlir {
class DialectRegistry;
namespace vibegemm {
/// Adds the `transform.vibegemm.*` ops to the transform dialect.
void registerTransformDialectExtension(DialectRegistry &registry);
} // namespace vibegemm
} // namespace mlir

#endif // VIBEGEMM_TRANSFORMOPS_VIBEGEMMTRANSFORMOPS_H

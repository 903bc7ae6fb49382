//===- Registration.h - Everything vibegemm registers -----------*- C++ -*-===//
//
// One place that lists the dialects, extensions, translations and passes a
// vibegemm tool or plugin needs.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_REGISTRATION_REGISTRATION_H
#define VIBEGEMM_REGISTRATION_REGISTRATION_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::vibegemm {

/// Adds the dialects vibegemm parses and produces, their interface models,
/// the transform-dialect extensions and the LLVM IR translations.
void registerDialects(DialectRegistry &registry);

/// Registers the vibegemm passes and the upstream passes its pipelines use.
void registerPasses();

} // namespace mlir::vibegemm

#endif // VIBEGEMM_REGISTRATION_REGISTRATION_H

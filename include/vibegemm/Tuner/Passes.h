//===- Passes.h - The vibegemm tuner's pass ---------------------*- C++ -*-===//
//
// Declaration and registration of `llm-schedule`, which links the LLM
// client and the GPU runtime; the deterministic passes are in
// vibegemm/Transforms/Passes.h.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_TUNER_PASSES_H
#define VIBEGEMM_TUNER_PASSES_H

#include "vibegemm/Transforms/Passes.h"

namespace mlir::vibegemm {

#define GEN_PASS_DECL
#include "vibegemm/Tuner/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "vibegemm/Tuner/Passes.h.inc"

} // namespace mlir::vibegemm

#endif // VIBEGEMM_TUNER_PASSES_H

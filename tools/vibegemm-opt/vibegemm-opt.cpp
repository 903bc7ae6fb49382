//===- vibegemm-opt.cpp - The vibegemm driver -----------------------------===//
//
// Registers vibegemm's dialects and passes, the deterministic ones and the
// tuner's `llm-schedule`, and hands over to MlirOptMain.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Tuner/Passes.h"
#include "vibegemm/VibeGemm.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  vibegemm::registerDialects(registry);
  vibegemm::registerPasses();
  mlir::vibegemm::registerVibeGemmTunerPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "vibegemm: GEMM dispatches to sm_90 PTX\n", registry));
}

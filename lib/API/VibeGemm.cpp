//===- VibeGemm.cpp - vibegemm's C++ API for other compilers --------------===//
//
// Implements include/vibegemm/VibeGemm.h on top of the registration library
// and the `vibegemm-compile` pass.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/VibeGemm.h"
#include "vibegemm/Registration/Registration.h"
#include "vibegemm/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"

void vibegemm::registerPasses() {
  static bool registered = [] {
    mlir::vibegemm::registerPasses();
    return true;
  }();
  (void)registered;
}

void vibegemm::registerDialects(mlir::DialectRegistry &registry) {
  mlir::vibegemm::registerDialects(registry);
}

void vibegemm::buildCompilePipeline(mlir::OpPassManager &pm,
                                    const CompileOptions &options) {
  mlir::vibegemm::VibeGemmCompilePassOptions passOptions;
  passOptions.target = options.target;
  passOptions.db = options.db;
  passOptions.specs = options.specs;
  passOptions.optLevel = options.optLevel;
  pm.addPass(mlir::vibegemm::createVibeGemmCompilePass(passOptions));
}

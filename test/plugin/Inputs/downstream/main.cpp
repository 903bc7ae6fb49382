//===- main.cpp - A downstream compiler that embeds vibegemm --------------===//
//
// Parses a linalg module, compiles it with vibegemm::buildCompilePipeline and
// prints how many gpu.binary ops came out; then checks that
// vibegemm::registerPasses made `vibegemm-compile` available to textual
// pipelines. Usage: compile-gemm INPUT.mlir [DB]
//
//===----------------------------------------------------------------------===//

#include "vibegemm/VibeGemm.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

/// Compiles `path` with `pm` and returns the number of gpu.binary ops, or -1.
static int compileAndCount(mlir::MLIRContext &context, const char *path,
                           mlir::PassManager &pm) {
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(path, &context);
  if (!module || mlir::failed(pm.run(*module)))
    return -1;
  int binaries = 0;
  module->walk([&](mlir::gpu::BinaryOp) { ++binaries; });
  return binaries;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    llvm::errs() << "usage: compile-gemm INPUT.mlir [DB]\n";
    return 2;
  }
  vibegemm::registerPasses();
  mlir::DialectRegistry registry;
  vibegemm::registerDialects(registry);
  mlir::MLIRContext context(registry);

  vibegemm::CompileOptions options;
  options.target = "sm_90";
  if (argc > 2)
    options.db = argv[2];
  mlir::PassManager pm(&context);
  vibegemm::buildCompilePipeline(pm, options);
  int binaries = compileAndCount(context, argv[1], pm);
  if (binaries < 0)
    return 1;
  llvm::outs() << "gpu.binary ops: " << binaries << "\n";

  mlir::PassManager textual(&context);
  if (mlir::failed(mlir::parsePassPipeline("vibegemm-compile", textual))) {
    llvm::errs() << "vibegemm-compile is not registered\n";
    return 1;
  }
  int again = compileAndCount(context, argv[1], textual);
  if (again < 0)
    return 1;
  llvm::outs() << "textual pipeline gpu.binary ops: " << again << "\n";
  return 0;
}

//===- vibegemm-plugin.cpp - vibegemm as an mlir-opt plugin ---------------===//
//
// The entry points of libVibeGemmPlugin.so, which gives a stock mlir-opt
// (`--load-pass-plugin`, `--load-dialect-plugin`) the deterministic vibegemm
// passes and the dialects, interface models, transform extensions and
// translations they use. The tuner (`llm-schedule`) is not in it: the plugin
// links no LLM client, no libcurl and no GPU runtime.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Transforms/Passes.h"
#include "vibegemm/Transforms/Pipelines.h"
#include "vibegemm/VibeGemm.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

/// Registers every pass declared in Passes.td (new ones come with it) and
/// the pipelines built from them (vibegemm-lower-to-ptx). Only vibegemm's
/// own: the host already has the upstream passes, and vibegemm's pipelines
/// and nested pipelines are built from C++, not from the registry.
static void registerPluginPasses() {
  static bool registered = [] {
    mlir::vibegemm::registerVibeGemmPasses();
    mlir::vibegemm::registerPipelines();
    return true;
  }();
  (void)registered;
}

/// Adds what vibegemm parses and produces to the host's registry. In
/// mlir-opt this is all there already; inserting it again is harmless (the
/// registry keys dialects and extensions by TypeID, and all of them live in
/// the same libMLIR.so as the host's), and it makes the plugin work in hosts
/// that register less.
static void registerPluginDialects(mlir::DialectRegistry *registry) {
  vibegemm::registerDialects(*registry);
}

extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "VibeGemm", LLVM_VERSION_STRING,
          registerPluginPasses};
}

extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "VibeGemm", LLVM_VERSION_STRING,
          registerPluginDialects};
}

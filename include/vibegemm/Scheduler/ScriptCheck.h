//===- ScriptCheck.h - Admit or refuse an untrusted schedule ----*- C++ -*-===//
//
// A script from an LLM is parsed on its own and every op in it is checked
// against an allowlist of transform ops before it touches any IR, so no
// script can run arbitrary passes or reach outside the compiler.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_SCHEDULER_SCRIPTCHECK_H
#define VIBEGEMM_SCHEDULER_SCRIPTCHECK_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringSet.h"

#include <string>

namespace mlir::vibegemm {

/// Parses `script` (named sequences) into a module marked
/// `transform.with_named_sequence`. The wrapper takes one line, so line N of
/// the script is line N + 1 of the buffer, which is named "script".
OwningOpRef<ModuleOp> parseScript(MLIRContext *context, llvm::StringRef script);

/// The built-in allowlist: prompts/allowlist.txt, built in.
llvm::StringRef builtinAllowlistText();

/// Op names, one per line; `#` starts a comment.
llvm::StringSet<> parseAllowlist(llvm::StringRef text);

struct ScriptCheck {
  /// "ok", "parse-error", "rejected-op" or "rejected-value", as in
  /// report.json.
  std::string status;
  std::string diagnostic;
};

/// Checks that `script` parses as exactly one `transform.named_sequence`,
/// uses only allowlisted ops, and gives their sizes and thread counts
/// values in range (no all-zero forall tile, nothing negative or above
/// 2^16). Diagnostics name the line in the script.
ScriptCheck checkScript(MLIRContext *context, llvm::StringRef script,
                        const llvm::StringSet<> &allowlist);

} // namespace mlir::vibegemm

#endif // VIBEGEMM_SCHEDULER_SCRIPTCHECK_H

//===- Prompts.h - The tuner's prompt templates -----------------*- C++ -*-===//
//
// The prompts live as files in prompts/ and are built into the tuner; a
// `prompts-dir` may point at edited copies instead. Placeholders are
// written {{NAME}}. The built-in allowlist is ScriptCheck's.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_TUNER_PROMPTS_H
#define VIBEGEMM_TUNER_PROMPTS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>

namespace mlir::vibegemm {

struct TargetInfo;

struct PromptTemplates {
  std::string system, round, allowedOps, allowlist;
};

/// The built-in templates, or those in `directory` when it is not empty
/// (every file must be there).
llvm::Expected<PromptTemplates> loadPromptTemplates(llvm::StringRef directory);

/// `text` with each {{KEY}} replaced by its value; unknown keys stay.
std::string fillTemplate(llvm::StringRef text,
                         const std::map<std::string, std::string> &values);

/// What the history shows of a tried script: each line that carries a
/// choice (knobs, tile sizes, thread counts, vector sizes, kernel ops) as
/// `number: op`, without its results and trailing types, a knob as
/// `number: %k = knob "name" = value`; and, whole and marked `number!`, the
/// line a "script:L:C" in `diagnostic` points at. The best schedule is in
/// the prompt whole; this keeps each tried script to a few lines.
std::string scriptChoiceLines(llvm::StringRef script,
                              llvm::StringRef diagnostic);

/// The op reference for the system prompt: the sections of `allowedOps`
/// (allowed-ops.md) for ops that `target` can lower, each cut to what its
/// markup says the system prompt shows (its syntax and summary, or its
/// name in a closing list), with the markup stripped. The same for every
/// request of a run. The markup is described in prompts/README.md.
std::string systemOpReference(llvm::StringRef allowedOps,
                              const TargetInfo &target);

/// The extra reference for one request's user message: the whole sections
/// of the ops named in `failureDiagnostics` (parse errors, rejected ops or
/// values, apply errors of earlier candidates) that systemOpReference
/// omitted or cut, or a line saying that `target` cannot lower the op.
/// "" when there is nothing to add.
std::string userOpReference(llvm::StringRef allowedOps,
                            const TargetInfo &target,
                            llvm::ArrayRef<std::string> failureDiagnostics);

} // namespace mlir::vibegemm

#endif // VIBEGEMM_TUNER_PROMPTS_H

//===- Prompts.h - The tuner's prompt templates -----------------*- C++ -*-===//
//
// The prompts live as files in prompts/ and are built into the tuner; a
// `prompts-dir` may point at edited copies instead. Placeholders are
// written {{NAME}}. The built-in allowlist is ScriptCheck's.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_TUNER_PROMPTS_H
#define VIBEGEMM_TUNER_PROMPTS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>

namespace mlir::vibegemm {

struct PromptTemplates {
  std::string system, round, allowedOps, allowlist;
};

/// The built-in templates, or those in `directory` when it is not empty
/// (every file must be there).
llvm::Expected<PromptTemplates> loadPromptTemplates(llvm::StringRef directory);

/// `text` with each {{KEY}} replaced by its value; unknown keys stay.
std::string fillTemplate(llvm::StringRef text,
                         const std::map<std::string, std::string> &values);

} // namespace mlir::vibegemm

#endif // VIBEGEMM_TUNER_PROMPTS_H

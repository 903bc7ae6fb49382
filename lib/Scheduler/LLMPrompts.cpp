//===- LLMPrompts.cpp - Prompt templates and the allowlist ----------------===//

#include "vibegemm/Scheduler/LLMPrompts.h"

#include "llvm/ADT/SmallString.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::vibegemm;

namespace {
struct EmbeddedFile {
  const char *name;
  const char *text;
};
const EmbeddedFile kPromptFiles[] = {
#include "EmbeddedPrompts.inc"
};

llvm::Expected<std::string> readPrompt(llvm::StringRef dir,
                                       llvm::StringRef name) {
  if (dir.empty()) {
    for (const EmbeddedFile &f : kPromptFiles)
      if (name == f.name)
        return std::string(f.text);
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no built-in prompt " + name);
  }
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return llvm::createStringError(buffer.getError(),
                                   "cannot read prompt file " + path);
  return (*buffer)->getBuffer().str();
}
} // namespace

llvm::Expected<PromptTemplates>
vibegemm::loadPromptTemplates(llvm::StringRef directory) {
  PromptTemplates t;
  std::pair<const char *, std::string *> files[] = {
      {"system.md", &t.system},
      {"round.md", &t.round},
      {"allowed-ops.md", &t.allowedOps},
      {"allowlist.txt", &t.allowlist}};
  for (auto [name, out] : files) {
    llvm::Expected<std::string> text = readPrompt(directory, name);
    if (!text)
      return text.takeError();
    *out = std::move(*text);
  }
  return t;
}

std::string
vibegemm::fillTemplate(llvm::StringRef text,
                       const std::map<std::string, std::string> &values) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    size_t open = text.find("{{");
    if (open == llvm::StringRef::npos) {
      out += text;
      break;
    }
    size_t close = text.find("}}", open + 2);
    if (close == llvm::StringRef::npos) {
      out += text;
      break;
    }
    out += text.take_front(open);
    std::string key = text.slice(open + 2, close).str();
    auto it = values.find(key);
    out += it != values.end() ? it->second
                              : text.slice(open, close + 2).str();
    text = text.drop_front(close + 2);
  }
  return out;
}

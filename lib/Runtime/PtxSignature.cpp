//===- PtxSignature.cpp - Kernel parameters read from PTX text ------------===//
//
// Parses only what .entry declarations need: `.param [.ptr ...] [.align N]
// .TYPE name[COUNT]`, comma-separated, between the parentheses after the
// kernel's name.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Runtime/PtxSignature.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

namespace mlir::vibegemm::runtime {

static unsigned typeBytes(llvm::StringRef type) {
  return llvm::StringSwitch<unsigned>(type)
      .Cases({".u64", ".s64", ".b64", ".f64"}, 8)
      .Cases({".u32", ".s32", ".b32", ".f32"}, 4)
      .Cases({".u16", ".s16", ".b16", ".f16", ".bf16"}, 2)
      .Cases({".u8", ".s8", ".b8"}, 1)
      .Default(0);
}

static bool isIdentifierChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '%';
}

/// Reads one `.param ...` declaration.
static std::optional<PtxParam> parseParam(llvm::StringRef decl,
                                          std::string &why) {
  llvm::SmallVector<llvm::StringRef> words;
  decl.trim().split(words, ' ', -1, /*KeepEmpty=*/false);
  // Tabs separate words as often as spaces do.
  llvm::SmallVector<llvm::StringRef> tokens;
  for (llvm::StringRef w : words) {
    llvm::SmallVector<llvm::StringRef> parts;
    w.split(parts, '\t', -1, false);
    tokens.append(parts.begin(), parts.end());
  }
  if (tokens.size() < 3 || tokens.front() != ".param") {
    why = "cannot read parameter declaration '" + decl.trim().str() + "'";
    return std::nullopt;
  }
  PtxParam param;
  llvm::StringRef name = tokens.back();
  for (size_t i = 1; i + 1 < tokens.size(); ++i) {
    llvm::StringRef t = tokens[i];
    if (t == ".align") {
      ++i; // its operand
      continue;
    }
    if (typeBytes(t))
      param.type = t.str();
  }
  if (param.type.empty()) {
    why = "parameter '" + name.str() + "' has no type PTX names";
    return std::nullopt;
  }
  param.bytes = typeBytes(param.type);
  if (size_t open = name.find('['); open != llvm::StringRef::npos) {
    unsigned count = 0;
    if (name.substr(open + 1).drop_back().getAsInteger(10, count) ||
        !name.ends_with("]")) {
      why = "cannot read array parameter '" + name.str() + "'";
      return std::nullopt;
    }
    param.isArray = true;
    param.bytes *= count;
    name = name.take_front(open);
  }
  param.name = name.str();
  return param;
}

std::optional<PtxEntry> findPtxEntry(llvm::StringRef ptx,
                                     llvm::StringRef kernel, std::string &why) {
  size_t pos = 0;
  while ((pos = ptx.find(".entry", pos)) != llvm::StringRef::npos) {
    pos += 6;
    llvm::StringRef rest = ptx.drop_front(pos).ltrim();
    if (!rest.starts_with(kernel) || rest.size() == kernel.size() ||
        isIdentifierChar(rest[kernel.size()]))
      continue;
    rest = rest.drop_front(kernel.size()).ltrim();
    PtxEntry entry;
    entry.name = kernel.str();
    if (!rest.starts_with("("))
      return entry; // a kernel without parameters
    size_t close = rest.find(')');
    if (close == llvm::StringRef::npos) {
      why = "unterminated parameter list of .entry " + kernel.str();
      return std::nullopt;
    }
    llvm::SmallVector<llvm::StringRef> decls;
    rest.slice(1, close).split(decls, ',', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef decl : decls) {
      if (decl.trim().empty())
        continue;
      std::optional<PtxParam> param = parseParam(decl, why);
      if (!param)
        return std::nullopt;
      entry.params.push_back(std::move(*param));
    }
    return entry;
  }
  return std::nullopt;
}

} // namespace mlir::vibegemm::runtime

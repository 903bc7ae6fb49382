//===- ScriptCheck.cpp - Admit or refuse an untrusted schedule ------------===//
//
// Parsing happens with diagnostics captured, so a bad script becomes a
// status and a message for the report (and the next prompt), never an
// error of the compile.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Scheduler/ScriptCheck.h"

#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::vibegemm;

OwningOpRef<ModuleOp> vibegemm::parseScript(MLIRContext *context,
                                            StringRef script) {
  std::string wrapped =
      ("module attributes {transform.with_named_sequence} {\n" + script +
       "\n}\n")
          .str();
  ParserConfig config(context);
  return parseSourceString<ModuleOp>(wrapped, config, "script");
}

llvm::StringSet<> vibegemm::parseAllowlist(StringRef text) {
  llvm::StringSet<> names;
  SmallVector<StringRef> lines;
  text.split(lines, '\n');
  for (StringRef line : lines) {
    line = line.split('#').first.trim();
    if (!line.empty())
      names.insert(line);
  }
  return names;
}

namespace {
/// "script:3:5" for a location in the parsed script.
std::string where(Location loc) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    os << "script:" << file.getLine() - 1 << ":" << file.getColumn();
  else
    os << loc;
  return s;
}
} // namespace

ScriptCheck vibegemm::checkScript(MLIRContext *context, StringRef script,
                                  const llvm::StringSet<> &allowlist) {
  std::string firstError;
  ScopedDiagnosticHandler capture(context, [&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error && firstError.empty())
      firstError = where(d.getLocation()) + ": " + d.str();
    return success();
  });
  OwningOpRef<ModuleOp> parsed = parseScript(context, script);
  if (!parsed)
    return {"parse-error", firstError.empty() ? "the script does not parse"
                                              : firstError};
  auto sequences =
      llvm::to_vector(parsed->getOps<transform::NamedSequenceOp>());
  size_t topLevel = llvm::range_size(parsed->getBody()->getOperations());
  if (sequences.size() != 1 || topLevel != 1)
    return {"parse-error",
            "the script must hold exactly one transform.named_sequence and "
            "nothing else at the top level"};
  std::string rejected;
  parsed->walk([&](Operation *op) {
    if (op == parsed->getOperation() || !rejected.empty())
      return;
    StringRef name = op->getName().getStringRef();
    if (!allowlist.contains(name))
      rejected = where(op->getLoc()) + ": '" + name.str() +
                 "' is not an allowed transform op";
  });
  if (!rejected.empty())
    return {"rejected-op", rejected};
  return {"ok", ""};
}

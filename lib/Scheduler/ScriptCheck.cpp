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
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
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

StringRef vibegemm::builtinAllowlistText() {
  struct EmbeddedFile {
    const char *name;
    const char *text;
  };
  static const EmbeddedFile kFiles[] = {
#include "EmbeddedAllowlist.inc"
  };
  return kFiles[0].text;
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

/// Integers an allowlisted op would take on trust and crash or run away
/// on (a tile of 0 in every dimension, negative or enormous sizes): the
/// first one out of range, with where it is, or "".
static std::string checkValues(ModuleOp script) {
  // Attribute name -> the least value allowed; sizes are at most 2^16 (an
  // extent above that is far past any tile or thread count).
  constexpr int64_t kLargest = 1 << 16;
  const llvm::StringMap<int64_t> leastOf = {
      {"static_tile_sizes", 0}, {"static_num_threads", 0},
      {"static_sizes", 0},      {"total_num_threads", 1},
      {"block_dims", 1},        {"grid_dims", 1},
      {"selected", 1},          {"options", 1},
      {"value", 0}};
  std::string found;
  script->walk([&](Operation *op) {
    if (!found.empty())
      return WalkResult::interrupt();
    for (NamedAttribute attr : op->getAttrs()) {
      auto least = leastOf.find(attr.getName().getValue());
      if (least == leastOf.end())
        continue;
      SmallVector<int64_t> values;
      if (auto dense = dyn_cast<DenseI64ArrayAttr>(attr.getValue()))
        llvm::append_range(values, dense.asArrayRef());
      else if (auto integer = dyn_cast<IntegerAttr>(attr.getValue()))
        values.push_back(integer.getValue().getSExtValue());
      else if (auto array = dyn_cast<ArrayAttr>(attr.getValue()))
        for (Attribute element : array)
          if (auto integer = dyn_cast<IntegerAttr>(element))
            values.push_back(integer.getValue().getSExtValue());
      bool allZero = !values.empty();
      for (int64_t v : values) {
        // Sizes given by params or handles are checked where they are made.
        if (ShapedType::isDynamic(v)) {
          allZero = false;
          continue;
        }
        allZero &= v == 0;
        if (v < least->second || v > kLargest) {
          found = llvm::formatv("{0}: {1} = {2} is out of range (from {3} to "
                                "{4})",
                                where(op->getLoc()), attr.getName(), v,
                                least->second, kLargest)
                      .str();
          return WalkResult::interrupt();
        }
      }
      // A forall of no tiled dimension is no loop at all.
      if (op->getName().getStringRef() ==
              "transform.structured.tile_using_forall" &&
          allZero &&
          attr.getName() == "static_tile_sizes") {
        found = where(op->getLoc()) +
                ": tile_using_forall needs a tile size other than 0";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return found;
}

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
  std::string value = checkValues(*parsed);
  if (!value.empty())
    return {"rejected-value", value};
  return {"ok", ""};
}

//===- FinalizeBinaries.cpp - Deterministic, loadable gpu.binary ops ------===//
//
// The last step of vibegemm-lower-to-ptx: identical compiles give identical
// output, and PTX no driver could load is refused at compile time.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::vibegemm {
#define GEN_PASS_DEF_VIBEGEMMFINALIZEBINARIESPASS
#include "vibegemm/Transforms/Passes.h.inc"
} // namespace mlir::vibegemm

using namespace mlir;

namespace {

/// Names of functions the PTX declares `.extern` but does not define:
/// libdevice math (`__nv_tanhf`, ...) left unresolved at serialisation.
SmallVector<std::string> findUnresolvedFunctions(StringRef ptx) {
  SmallVector<std::string> names;
  constexpr StringLiteral kExtern = ".extern .func";
  for (size_t pos = ptx.find(kExtern); pos != StringRef::npos;
       pos = ptx.find(kExtern, pos + kExtern.size())) {
    StringRef rest = ptx.drop_front(pos + kExtern.size()).ltrim();
    if (rest.starts_with("(")) // the return value's .param list
      rest = rest.drop_until([](char c) { return c == ')'; }).drop_front();
    rest = rest.ltrim();
    StringRef name = rest.take_while(
        [](char c) { return llvm::isAlnum(c) || c == '_' || c == '$'; });
    if (!name.empty())
      names.push_back(name.str());
  }
  return names;
}

/// The objects of `binary` without the "...TimeInMs" properties.
ArrayAttr withoutCompileTimes(gpu::BinaryOp binary) {
  SmallVector<Attribute> objects;
  for (Attribute attr : binary.getObjects()) {
    auto object = cast<gpu::ObjectAttr>(attr);
    SmallVector<NamedAttribute> kept;
    if (DictionaryAttr props = object.getProperties())
      for (NamedAttribute entry : props)
        if (!entry.getName().strref().ends_with("TimeInMs"))
          kept.push_back(entry);
    objects.push_back(gpu::ObjectAttr::get(
        object.getContext(), object.getTarget(), object.getFormat(),
        object.getObject(),
        kept.empty() ? DictionaryAttr()
                     : DictionaryAttr::get(object.getContext(), kept),
        object.getKernels()));
  }
  return ArrayAttr::get(binary.getContext(), objects);
}

class FinalizeBinariesPass
    : public vibegemm::impl::VibeGemmFinalizeBinariesPassBase<
          FinalizeBinariesPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    for (auto binary : getOperation().getOps<gpu::BinaryOp>()) {
      binary.setObjectsAttr(withoutCompileTimes(binary));
      for (Attribute object : binary.getObjects()) {
        SmallVector<std::string> unresolved = findUnresolvedFunctions(
            cast<gpu::ObjectAttr>(object).getObject().getValue());
        if (unresolved.empty())
          continue;
        binary.emitError("kernels of ")
            << binary.getSymName() << " call " << unresolved.front()
            << (unresolved.size() > 1 ? " (and more)" : "")
            << ", which needs CUDA's libdevice; it was not found. Install "
               "the CUDA toolkit or point CUDA_HOME at it";
        return signalPassFailure();
      }
    }
  }
};

} // namespace

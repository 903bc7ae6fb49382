//===- Plan.cpp - Launch plans (v1, v2), read and validated ---------------===//
//
// Every field is checked before any GPU work: a plan is as untrusted as the
// kernels it launches. A version 2 plan declares run-time sizes; its
// integer fields may be expressions of them, evaluated here once the sizes
// are bound, so the rest of the runtime sees a plain, concrete plan.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Runtime/Plan.h"
#include "vibegemm/Runtime/PtxSignature.h"
#include "vibegemm/Runtime/SizeExpr.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace mlir::vibegemm::runtime;
namespace json = llvm::json;

/// The most dynamic shared memory any GPU gives one block (227 KiB, sm_90).
/// The runtime knows no target table (it links no MLIR); a smaller GPU
/// refuses a larger request when the kernel is loaded, with the driver's
/// error, and the compiler's kernel builders keep each target's own limit.
static constexpr int64_t kLargestSharedBytesPerBlock = 227 * 1024;

size_t mlir::vibegemm::runtime::dtypeBytes(DType type) {
  switch (type) {
  case DType::F64:
  case DType::I64:
    return 8;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::I8:
  case DType::F8E4M3FN:
  case DType::F8E5M2:
    return 1;
  }
  return 1;
}

const char *mlir::vibegemm::runtime::dtypeName(DType type) {
  switch (type) {
  case DType::F32:
    return "f32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::F64:
    return "f64";
  case DType::I64:
    return "i64";
  case DType::I32:
    return "i32";
  case DType::I8:
    return "i8";
  case DType::F8E4M3FN:
    return "f8e4m3fn";
  case DType::F8E5M2:
    return "f8e5m2";
  }
  return "?";
}

double mlir::vibegemm::runtime::precisionTolerance(F32Precision precision) {
  // Tensor-core f32 accumulation truncates rather than rounds, so its error
  // grows with the number of accumulations, and a saturating epilogue
  // (hardtanh) shrinks the output's range about 30x while the error stays.
  // Measured on the H200 (docs/benchmarks/h200-2026-12-04-tf32): TF32 on
  // TF32-exact inputs up to 5.1e-4 (hardtanh chain), 3xTF32 on f32 inputs
  // up to 1.45e-3 (hardtanh chain) and 2.2e-4 (K = 524288); plain GEMMs
  // 3e-6 to 7e-5. Skipped work shows as errors near 1e-1.
  if (precision == F32Precision::Ieee)
    return dtypeTolerance(DType::F32);
  return 5e-3;
}

double mlir::vibegemm::runtime::dtypeTolerance(DType type) {
  switch (type) {
  case DType::F64:
    return 1e-10;
  case DType::F32:
    return 1e-4;
  case DType::F16:
    return 1e-2;
  case DType::BF16:
    // Two bf16 ulps of the largest output (2^-6 at the bottom of its
    // binade): a fused chain kept in f32 and a reference that rounds each
    // op's result to bf16 differ by that much. Seen on the H200: a softmax
    // over 8192 columns, largest output 3.6e-4, 2 ulps (3.8e-6) apart =
    // 1.06e-2, with rel L2 1.8e-4 (docs/benchmarks/h200-2026-12-04-flush).
    return 1.0 / 64;
  case DType::F8E4M3FN:
  case DType::F8E5M2:
    // FP8 inputs are exact in the reference; what differs is the
    // accumulation: Hopper's FP8 wgmma keeps fewer bits than f32 between
    // its adds (about 14, DeepSeek-V3's report), over all of K as
    // cuBLASLt's fast-accumulation mode does. Measured on an H100 at
    // K = 4096: 4.2e-3 against cuBLASLt, 4.9e-3 against the f32 reference
    // kernels, growing about as sqrt(K) (docs/runtime.md).
    return 1.0 / 64;
  default:
    return 0;
  }
}

const PlanBuffer *Plan::find(llvm::StringRef name) const {
  for (const PlanBuffer &b : buffers)
    if (b.name == name)
      return &b;
  return nullptr;
}

size_t Plan::ioBytes() const {
  size_t total = 0;
  for (const PlanBuffer &b : buffers)
    if (b.kind == PlanBuffer::Kind::Input || b.kind == PlanBuffer::Kind::Output)
      total += b.bytes;
  return total;
}

size_t Plan::workingSetBytes() const {
  size_t total = 0;
  for (const PlanBuffer &b : buffers)
    total += b.bytes;
  return total;
}

namespace {

/// Collects the first error with the plan's path and the JSON location.
class PlanParser {
public:
  PlanParser(llvm::StringRef path, const SizeBindings &bound)
      : path(path.str()), bound(bound) {}

  llvm::Expected<Plan> parse(const json::Value &doc) {
    const json::Object *root = doc.getAsObject();
    if (!root)
      return fail("the plan is not a JSON object");
    std::optional<int64_t> version = root->getInteger("version");
    if (version != 1 && version != 2)
      return fail("unsupported plan version (expected \"version\": 1 or 2)");
    Plan plan;
    if (!bindSizes(*root, *version, plan))
      return error();
    plan.path = path;
    llvm::SmallString<256> dir(path);
    llvm::sys::path::remove_filename(dir);
    if (dir.empty())
      dir = ".";
    llvm::sys::fs::make_absolute(dir);
    plan.dir = std::string(dir);
    plan.function = root->getString("function").value_or("").str();
    plan.dispatch = root->getString("dispatch").value_or("").str();
    plan.target = root->getString("target").value_or("").str();
    if (std::optional<llvm::StringRef> precision =
            root->getString("f32_precision")) {
      if (*precision == "tf32")
        plan.f32Precision = F32Precision::Tf32;
      else if (*precision == "3xtf32")
        plan.f32Precision = F32Precision::Tf32x3;
      else
        return fail("\"f32_precision\" must be \"tf32\" or \"3xtf32\", not \"" +
                    precision->str() + "\"");
    }
    if (const json::Value *flops = root->get("flops")) {
      if (flops->kind() == json::Value::String) {
        std::optional<int64_t> value = integer(flops, "flops");
        if (!value)
          return error();
        plan.flops = static_cast<double>(*value);
      } else {
        plan.flops = flops->getAsNumber().value_or(0);
      }
    }

    const json::Array *buffers = root->getArray("buffers");
    if (!buffers || buffers->empty())
      return fail("\"buffers\" must be a non-empty array");
    for (auto [i, value] : llvm::enumerate(*buffers)) {
      std::string where = llvm::formatv("buffers[{0}]", i);
      PlanBuffer buffer;
      if (!parseBuffer(value, where, buffer))
        return error();
      if (plan.find(buffer.name))
        return fail(where + ": duplicate buffer name '" + buffer.name + "'");
      plan.buffers.push_back(std::move(buffer));
    }

    const json::Array *launches = root->getArray("launches");
    if (!launches || launches->empty())
      return fail("\"launches\" must be a non-empty array");
    for (auto [i, value] : llvm::enumerate(*launches)) {
      std::string where = llvm::formatv("launches[{0}]", i);
      PlanLaunch launch;
      // A launch for another bucket is read when its sizes are bound: its
      // expressions need not hold outside its range.
      std::optional<bool> runs = launchRuns(value, where);
      if (!runs)
        return error();
      if (!*runs)
        continue;
      if (!parseLaunch(value, where, plan, launch))
        return error();
      plan.launches.push_back(std::move(launch));
    }
    if (plan.launches.empty())
      return fail("no launch runs for the sizes given (every \"when\" "
                  "excludes them)");
    // Each bucket has its own scratch (split-K partials sized by M): only
    // the bound bucket's is allocated.
    if (plan.launches.size() < launches->size()) {
      llvm::StringSet<> used;
      for (const PlanLaunch &launch : plan.launches)
        for (const PlanArg &arg : launch.args)
          if (!arg.buffer.empty())
            used.insert(arg.buffer);
      llvm::erase_if(plan.buffers, [&](const PlanBuffer &buffer) {
        return (buffer.kind == PlanBuffer::Kind::Scratch ||
                buffer.kind == PlanBuffer::Kind::Temp) &&
               !used.contains(buffer.name);
      });
    }

    for (const char *key : {"reference", "gemm"}) {
      const json::Object *gemm = root->getObject(key);
      if (!gemm)
        continue;
      PlanGemm parsed;
      if (!parseGemm(*gemm, key, plan, parsed))
        return error();
      (key == llvm::StringRef("reference") ? plan.reference : plan.gemm) =
          parsed;
    }
    if (plan.reference && !plan.gemm)
      plan.gemm = plan.reference;
    if (std::optional<llvm::StringRef> ref = root->getString("reference_plan")) {
      llvm::SmallString<256> refPath(plan.dir);
      llvm::sys::path::append(refPath, *ref);
      if (!llvm::sys::fs::exists(refPath))
        return fail("reference_plan '" + ref->str() + "' does not exist");
      plan.referencePlan = std::string(refPath);
    }
    return plan;
  }

private:
  bool parseBuffer(const json::Value &value, const std::string &where,
                   PlanBuffer &buffer) {
    const json::Object *obj = value.getAsObject();
    if (!obj)
      return setError(where + " is not an object");
    std::optional<llvm::StringRef> name = obj->getString("name");
    std::optional<llvm::StringRef> kind = obj->getString("kind");
    if (!name || name->empty())
      return setError(where + ": missing \"name\"");
    if (!kind)
      return setError(where + ": missing \"kind\"");
    buffer.name = name->str();
    if (*kind == "input")
      buffer.kind = PlanBuffer::Kind::Input;
    else if (*kind == "output")
      buffer.kind = PlanBuffer::Kind::Output;
    else if (*kind == "temp")
      buffer.kind = PlanBuffer::Kind::Temp;
    else if (*kind == "scratch")
      buffer.kind = PlanBuffer::Kind::Scratch;
    else
      return setError(where + ": unknown kind '" + kind->str() + "'");
    buffer.zeroInit = obj->getBoolean("zero_init").value_or(false);
    constexpr int64_t kMaxBytes = int64_t(1) << 40;
    // Scratch is sized in bytes; a shape and dtype, when given, must agree
    // (tensor maps over scratch need them).
    if (buffer.kind == PlanBuffer::Kind::Scratch) {
      std::optional<int64_t> bytes =
          integer(obj->get("bytes"), where + ".bytes");
      if (!bytes || *bytes <= 0 || *bytes > kMaxBytes)
        return setError(where + ": scratch needs 0 < \"bytes\" <= 2^40");
      buffer.bytes = *bytes;
      buffer.dtype = DType::I8;
      if (!obj->get("shape"))
        return true;
    }
    std::optional<llvm::StringRef> dtype = obj->getString("dtype");
    static const llvm::StringMap<DType> dtypes = {
        {"f32", DType::F32}, {"f16", DType::F16}, {"bf16", DType::BF16},
        {"f64", DType::F64}, {"i64", DType::I64}, {"i32", DType::I32},
        {"i8", DType::I8}, {"f8e4m3fn", DType::F8E4M3FN},
        {"f8e5m2", DType::F8E5M2}};
    auto it = dtype ? dtypes.find(*dtype) : dtypes.end();
    if (it == dtypes.end())
      return setError(where + ": missing or unknown \"dtype\"");
    buffer.dtype = it->second;
    const json::Array *shape = obj->getArray("shape");
    if (!shape)
      return setError(where + ": missing \"shape\"");
    int64_t elements = 1;
    for (auto [i, dim] : llvm::enumerate(*shape)) {
      std::optional<int64_t> d =
          integer(&dim, llvm::formatv("{0}.shape[{1}]", where, i));
      if (!d || *d <= 0 || *d > kMaxBytes)
        return setError(where + ": shape dimensions must be positive "
                                "integers");
      buffer.shape.push_back(*d);
      if (elements > kMaxBytes / *d)
        return setError(where + ": buffer is larger than 2^40 bytes");
      elements *= *d;
    }
    size_t declared = buffer.bytes;
    buffer.bytes = elements * dtypeBytes(buffer.dtype);
    if (buffer.kind == PlanBuffer::Kind::Scratch && buffer.bytes != declared)
      return setError(where + ": scratch \"bytes\" disagrees with its shape "
                              "and dtype");
    if (buffer.bytes > static_cast<size_t>(kMaxBytes))
      return setError(where + ": buffer is larger than 2^40 bytes");
    const char *indexKey =
        buffer.kind == PlanBuffer::Kind::Input    ? "arg_index"
        : buffer.kind == PlanBuffer::Kind::Output ? "result_index"
                                                  : nullptr;
    if (indexKey) {
      std::optional<int64_t> index = obj->getInteger(indexKey);
      if (!index || *index < 0)
        return setError(where + ": missing \"" + indexKey + "\"");
      buffer.index = *index;
    }
    if (std::optional<double> scale = obj->getNumber("verify_scale")) {
      if (buffer.kind != PlanBuffer::Kind::Input || !(*scale > 0) ||
          *scale > 1)
        return setError(where + ": \"verify_scale\" must be in (0, 1] and "
                                "on an input");
      buffer.verifyScale = *scale;
    }
    return true;
  }

  bool parseDims(const json::Object &obj, llvm::StringRef key,
                 const std::string &where, unsigned dims[3]) {
    const json::Array *arr = obj.getArray(key);
    if (!arr || arr->size() != 3)
      return setError(where + ": \"" + key.str() + "\" needs 3 integers");
    for (int i = 0; i < 3; ++i) {
      std::optional<int64_t> d =
          integer(&(*arr)[i], llvm::formatv("{0}.{1}[{2}]", where, key, i));
      if (!d || *d <= 0 || *d > 0x7fffffff)
        return setError(where + ": \"" + key.str() +
                        "\" entries must be positive");
      dims[i] = static_cast<unsigned>(*d);
    }
    return true;
  }

  bool parseLaunch(const json::Value &value, const std::string &where,
                   const Plan &plan, PlanLaunch &launch) {
    const json::Object *obj = value.getAsObject();
    if (!obj)
      return setError(where + " is not an object");
    std::optional<llvm::StringRef> ptx = obj->getString("ptx");
    std::optional<llvm::StringRef> kernel = obj->getString("kernel");
    if (!ptx || !kernel || kernel->empty())
      return setError(where + ": needs \"ptx\" and \"kernel\"");
    // PTX comes from the artifacts directory, never from elsewhere.
    if (llvm::sys::path::is_absolute(*ptx) || ptx->contains(".."))
      return setError(where + ": \"ptx\" must be a file name beside the plan");
    llvm::SmallString<256> ptxPath(plan.dir);
    llvm::sys::path::append(ptxPath, *ptx);
    if (!llvm::sys::fs::exists(ptxPath))
      return setError(where + ": PTX file '" + ptx->str() + "' not found");
    launch.ptxPath = std::string(ptxPath);
    launch.kernel = kernel->str();
    if (!parseDims(*obj, "grid", where, launch.grid) ||
        !parseDims(*obj, "block", where, launch.block))
      return false;
    if (uint64_t(launch.block[0]) * launch.block[1] * launch.block[2] > 1024)
      return setError(where + ": more than 1024 threads per block");
    if (const json::Value *programmatic = obj->get("programmatic")) {
      std::optional<bool> flag = programmatic->getAsBoolean();
      if (!flag)
        return setError(where + ": \"programmatic\" must be true or false");
      launch.programmatic = *flag;
    }
    if (obj->get("cluster")) {
      if (!parseDims(*obj, "cluster", where, launch.cluster))
        return false;
      // 8 blocks is the portable cluster limit.
      if (uint64_t(launch.cluster[0]) * launch.cluster[1] * launch.cluster[2] >
          8)
        return setError(where + ": more than 8 blocks per cluster");
      for (int i = 0; i < 3; ++i)
        if (launch.grid[i] % launch.cluster[i])
          return setError(where + ": the grid is not a whole number of "
                                  "clusters");
    }
    int64_t shared = obj->getInteger("shared_bytes").value_or(0);
    if (shared < 0 || shared > kLargestSharedBytesPerBlock)
      return setError(where + ": shared_bytes out of range");
    launch.sharedBytes = static_cast<unsigned>(shared);
    const json::Array *args = obj->getArray("args");
    if (!args)
      return setError(where + ": missing \"args\"");
    for (auto [i, a] : llvm::enumerate(*args)) {
      std::string argWhere = llvm::formatv("{0}.args[{1}]", where, i);
      const json::Object *argObj = a.getAsObject();
      if (!argObj || argObj->size() != 1)
        return setError(argWhere + " must be an object with one key");
      PlanArg arg;
      if (std::optional<llvm::StringRef> name = argObj->getString("buffer")) {
        if (!plan.find(*name))
          return setError(argWhere + ": unknown buffer '" + name->str() + "'");
        arg.buffer = name->str();
      } else if (const json::Value *v = argObj->get("i64")) {
        std::optional<int64_t> value = integer(v, argWhere + ".i64");
        if (!value)
          return setError(argWhere + ": \"i64\" must be an integer");
        arg.kind = PlanArg::Kind::I64;
        arg.intValue = *value;
      } else if (const json::Value *v = argObj->get("i32")) {
        std::optional<int64_t> value = integer(v, argWhere + ".i32");
        if (!value || *value < INT32_MIN || *value > INT32_MAX)
          return setError(argWhere + ": \"i32\" must be a 32-bit integer");
        arg.kind = PlanArg::Kind::I32;
        arg.intValue = *value;
      } else if (std::optional<double> v = argObj->getNumber("f32")) {
        arg.kind = PlanArg::Kind::F32;
        arg.floatValue = *v;
      } else if (const json::Object *map = argObj->getObject("tensor_map")) {
        arg.kind = PlanArg::Kind::TensorMap;
        if (!parseTensorMap(*map, plan, argWhere + ".tensor_map", arg))
          return false;
      } else {
        return setError(argWhere +
                        ": expected buffer, i64, i32, f32 or tensor_map");
      }
      launch.args.push_back(std::move(arg));
    }
    return checkAgainstEntry(where, launch);
  }

  static const char *argKindName(PlanArg::Kind kind) {
    switch (kind) {
    case PlanArg::Kind::Buffer:
      return "buffer address";
    case PlanArg::Kind::I64:
      return "i64";
    case PlanArg::Kind::I32:
      return "i32";
    case PlanArg::Kind::F32:
      return "f32";
    case PlanArg::Kind::TensorMap:
      return "tensor map address";
    }
    return "?";
  }

  /// The driver copies each argument by the size the kernel declares and
  /// cannot tell a 4-byte value from an 8-byte one: check them here.
  bool checkAgainstEntry(const std::string &where, const PlanLaunch &launch) {
    // Launches of one dispatch share its PTX file: read it once.
    std::unique_ptr<llvm::MemoryBuffer> &text = ptxTexts[launch.ptxPath];
    if (!text) {
      llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> read =
          llvm::MemoryBuffer::getFile(launch.ptxPath);
      if (!read)
        return setError(where + ": cannot read its PTX file");
      text = std::move(*read);
    }
    std::string why;
    std::optional<PtxEntry> entry =
        findPtxEntry(text->getBuffer(), launch.kernel, why);
    if (!entry)
      return setError(where + ": " +
                      (why.empty() ? "no .entry '" + launch.kernel +
                                         "' in its PTX file"
                                   : why));
    if (entry->params.size() != launch.args.size())
      return setError(llvm::formatv("{0}: passes {1} arguments; .entry {2} "
                                    "takes {3}",
                                    where, launch.args.size(), launch.kernel,
                                    entry->params.size()));
    for (auto [i, pair] :
         llvm::enumerate(llvm::zip_equal(launch.args, entry->params))) {
      auto &[arg, param] = pair;
      // Buffers and tensor maps go by device address.
      bool isFloat = arg.kind == PlanArg::Kind::F32;
      unsigned bytes = arg.kind == PlanArg::Kind::I32 || isFloat ? 4 : 8;
      if (param.isArray || param.bytes != bytes || param.isFloat() != isFloat)
        return setError(llvm::formatv(
            "{0}.args[{1}]: a {2}-byte {3} argument, but parameter {4} of "
            ".entry {5} is {6}{7} ({8} bytes)",
            where, i, bytes, argKindName(arg.kind),
            param.name, launch.kernel, param.type,
            param.isArray ? " array" : "", param.bytes));
    }
    return true;
  }

  bool parseTensorMap(const json::Object &obj, const Plan &plan,
                      const std::string &where, PlanArg &arg) {
    std::optional<llvm::StringRef> name = obj.getString("buffer");
    const PlanBuffer *buffer = name ? plan.find(*name) : nullptr;
    if (!buffer)
      return setError(where + ": unknown or missing buffer");
    arg.buffer = name->str();
    // A view of the whole buffer with another shape: as many elements.
    size_t rank = buffer->shape.size();
    if (const json::Value *shape = obj.get("shape")) {
      const json::Array *dims = shape->getAsArray();
      if (!dims || dims->empty())
        return setError(where + ": \"shape\" must be a non-empty array");
      int64_t elements = 1, bufferElements = 1;
      for (auto [d, dim] : llvm::enumerate(*dims)) {
        std::optional<int64_t> size =
            integer(&dim, llvm::formatv("{0}.shape[{1}]", where, d));
        if (!size || *size < 1)
          return setError(where + ": shape dimensions must be positive");
        arg.tensorMap.shape.push_back(*size);
        elements *= *size;
      }
      for (int64_t dim : buffer->shape)
        bufferElements *= dim;
      if (elements != bufferElements)
        return setError(where + ": the view's shape covers " +
                        std::to_string(elements) + " elements, the buffer " +
                        std::to_string(bufferElements));
      rank = dims->size();
    }
    const json::Array *box = obj.getArray("box");
    if (!box || box->size() != rank || box->empty() || box->size() > 5)
      return setError(where + ": box needs one size per buffer dimension "
                              "(at most 5)");
    for (const json::Value &v : *box) {
      std::optional<int64_t> size = v.getAsInteger();
      if (!size || *size < 1 || *size > 256)
        return setError(where + ": box sizes must be in [1, 256]");
      arg.tensorMap.box.push_back(*size);
    }
    // The dialect's names, mapped to the driver's enum values.
    auto choose = [&](llvm::StringRef key,
                      std::initializer_list<llvm::StringRef> names,
                      int &out) {
      llvm::StringRef value = obj.getString(key).value_or(*names.begin());
      for (auto [i, n] : llvm::enumerate(names))
        if (n == value) {
          out = static_cast<int>(i);
          return true;
        }
      return setError(where + ": unknown " + key.str() + " '" + value.str() +
                      "'");
    };
    if (!choose("swizzle",
                {"none", "swizzle_32b", "swizzle_64b", "swizzle_128b"},
                arg.tensorMap.swizzle) ||
        !choose("l2promo",
                {"none", "l2promo_64b", "l2promo_128b", "l2promo_256b"},
                arg.tensorMap.l2Promotion) ||
        !choose("oob", {"zero", "nan"}, arg.tensorMap.oobFill) ||
        !choose("interleave", {"none", "interleave_16b", "interleave_32b"},
                arg.tensorMap.interleave))
      return false;
    return true;
  }

  bool parseGemm(const json::Object &obj, llvm::StringRef key,
                 const Plan &plan, PlanGemm &gemm) {
    std::string where = key.str();
    if (key == "reference" && obj.getString("kind") != "gemm")
      return setError("reference: only \"kind\": \"gemm\" is understood");
    auto size = [&](llvm::StringRef name, int64_t absent) {
      const json::Value *v = obj.get(name);
      return v ? integer(v, where + "." + name.str()).value_or(0) : absent;
    };
    gemm.batch = size("batch", 1);
    gemm.m = size("m", 0);
    gemm.n = size("n", 0);
    gemm.k = size("k", 0);
    gemm.transposeA = obj.getBoolean("transpose_a").value_or(false);
    gemm.transposeB = obj.getBoolean("transpose_b").value_or(false);
    if (gemm.batch <= 0 || gemm.m <= 0 || gemm.n <= 0 || gemm.k <= 0)
      return setError(where + ": batch, m, n and k must be positive");
    auto operand = [&](const char *name, std::string &out, int64_t rows,
                       int64_t cols) {
      std::optional<llvm::StringRef> buf = obj.getString(name);
      const PlanBuffer *b = buf ? plan.find(*buf) : nullptr;
      if (!b || b->kind == PlanBuffer::Kind::Scratch)
        return setError(where + ": \"" + name + "\" must name a shaped buffer");
      int64_t expect = gemm.batch * rows * cols;
      if (static_cast<int64_t>(b->numElements()) != expect)
        return setError(where + ": buffer '" + b->name + "' has " +
                        std::to_string(b->numElements()) +
                        " elements; the GEMM needs " + std::to_string(expect));
      out = b->name;
      return true;
    };
    return operand("a", gemm.a, gemm.m, gemm.k) &&
           operand("b", gemm.b, gemm.k, gemm.n) &&
           operand("c", gemm.c, gemm.m, gemm.n);
  }

  /// Version 2: the plan's "sizes" ({"M": {"min": 1, "max": 4096}}), each
  /// bound in its range by the caller; version 1 takes no bindings.
  bool bindSizes(const json::Object &root, int64_t version, Plan &plan) {
    const json::Object *declared = root.getObject("sizes");
    if (version == 1) {
      if (declared)
        return setError("\"sizes\" needs \"version\": 2");
      if (!bound.empty())
        return setError("the plan has no run-time sizes; --dim " +
                        bound.begin()->first + " does not apply");
      return true;
    }
    if (!declared || declared->empty())
      return setError("a version 2 plan needs \"sizes\", its run-time "
                      "sizes ({\"M\": {\"min\": 1, \"max\": 4096}})");
    // A derived size may be bound too (a runner passes a plan's sizes on
    // to its reference plan); it must then agree.
    const json::Object *derivedSizes = root.getObject("derived");
    for (const auto &[name, range] : bound)
      if (!declared->get(name) && !(derivedSizes && derivedSizes->get(name)))
        return setError("the plan has no run-time size '" + name + "'; --dim " +
                        name + " does not apply");
    for (const auto &[key, value] : *declared) {
      std::string name = key.str(), where = "sizes." + name;
      const json::Object *range = value.getAsObject();
      std::optional<int64_t> min =
          range ? range->getInteger("min") : std::nullopt;
      std::optional<int64_t> max =
          range ? range->getInteger("max") : std::nullopt;
      if (!min || !max || *min < 1 || *max < *min)
        return setError(where + ": needs integers 1 <= \"min\" <= \"max\"");
      auto it = bound.find(name);
      if (it == bound.end())
        return setError(llvm::formatv("the plan has the run-time size '{0}' "
                                      "({1}..{2}); give it with --dim {0}=N",
                                      name, *min, *max));
      if (it->second < *min || it->second > *max)
        return setError(llvm::formatv("--dim {0}={1} is outside the plan's "
                                      "range {2}..{3}",
                                      name, it->second, *min, *max));
      plan.sizes[name] = it->second;
    }
    // Sizes computed from the given ones: a batch folded into M is
    // "derived": {"M": "B * S"}, which buckets and flops then read.
    if (const json::Value *derived = root.get("derived")) {
      const json::Object *exprs = derived->getAsObject();
      if (!exprs)
        return setError("\"derived\" must be an object of size "
                        "expressions ({\"M\": \"B * S\"})");
      for (const auto &[key, value] : *exprs) {
        std::string name = key.str(), where = "derived." + name;
        if (plan.sizes.count(name))
          return setError(where + ": '" + name +
                          "' is already a given run-time size");
        std::optional<llvm::StringRef> text = value.getAsString();
        if (!text)
          return setError(where + ": needs an expression string");
        llvm::Expected<int64_t> size = evaluateSizeExpr(*text, plan.sizes);
        if (!size)
          return setError(where + ": " + llvm::toString(size.takeError()));
        if (*size < 1)
          return setError(llvm::formatv("{0}: '{1}' is {2}, not a positive "
                                        "size",
                                        where, *text, *size));
        if (auto given = bound.find(name);
            given != bound.end() && given->second != *size)
          return setError(llvm::formatv("--dim {0}={1} disagrees with the "
                                        "plan's {0} = {2} = {3}",
                                        name, given->second, *text, *size));
        plan.sizes[name] = *size;
      }
    }
    sizes = plan.sizes;
    return true;
  }

  /// Whether a launch runs for the bound sizes: a version 2 launch may
  /// have "when": {"M": {"min": 17, "max": 64}}, the bucket whose kernel it
  /// launches; one without runs for every size. nullopt on a bad "when".
  std::optional<bool> launchRuns(const json::Value &value,
                                 const std::string &where) {
    const json::Object *obj = value.getAsObject();
    const json::Value *when = obj ? obj->get("when") : nullptr;
    if (!when)
      return true;
    const json::Object *ranges = when->getAsObject();
    if (sizes.empty() || !ranges || ranges->empty()) {
      setError(where + ": \"when\" needs a version 2 plan and an object "
                       "of size ranges ({\"M\": {\"min\": 1, \"max\": 16}})");
      return std::nullopt;
    }
    bool runs = true;
    for (const auto &[key, range] : *ranges) {
      std::string name = key.str(), at = where + ".when." + name;
      auto it = sizes.find(name);
      const json::Object *bounds = range.getAsObject();
      std::optional<int64_t> min =
          bounds ? bounds->getInteger("min") : std::nullopt;
      std::optional<int64_t> max =
          bounds ? bounds->getInteger("max") : std::nullopt;
      if (it == sizes.end()) {
        setError(at + ": the plan has no run-time size '" + name + "'");
        return std::nullopt;
      }
      if (!min || !max || *max < *min) {
        setError(at + ": needs integers \"min\" <= \"max\"");
        return std::nullopt;
      }
      runs &= *min <= it->second && it->second <= *max;
    }
    return runs;
  }

  /// An integer field: a JSON integer or, in a version 2 plan, an
  /// expression of its sizes. An expression's error is the one reported.
  std::optional<int64_t> integer(const json::Value *value,
                                 const std::string &where) {
    if (!value)
      return std::nullopt;
    if (std::optional<int64_t> v = value->getAsInteger())
      return v;
    std::optional<llvm::StringRef> text = value->getAsString();
    // Only a version 2 plan has sizes (never an empty set).
    if (!text || sizes.empty())
      return std::nullopt;
    llvm::Expected<int64_t> v = evaluateSizeExpr(*text, sizes);
    if (!v) {
      setError(where + ": " + llvm::toString(v.takeError()));
      return std::nullopt;
    }
    return *v;
  }

  bool setError(const std::string &message) {
    if (firstError.empty())
      firstError = message;
    return false;
  }
  llvm::Error fail(const std::string &message) {
    setError(message);
    return error();
  }
  llvm::Error error() {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   path + ": " + firstError);
  }

  std::string path, firstError;
  const SizeBindings &bound;
  /// The bound sizes of a version 2 plan; empty for version 1.
  SizeBindings sizes;
  llvm::StringMap<std::unique_ptr<llvm::MemoryBuffer>> ptxTexts;
};

} // namespace

llvm::Expected<Plan>
mlir::vibegemm::runtime::parsePlan(const json::Value &doc, llvm::StringRef path,
                                   const SizeBindings &sizes) {
  return PlanParser(path, sizes).parse(doc);
}

llvm::Expected<Plan>
mlir::vibegemm::runtime::loadPlan(llvm::StringRef path,
                                  const SizeBindings &sizes) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return llvm::createStringError(buffer.getError(),
                                   "cannot read " + path + ": " +
                                       buffer.getError().message());
  llvm::Expected<json::Value> doc = json::parse((*buffer)->getBuffer());
  if (!doc)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        path + ": not valid JSON: " + llvm::toString(doc.takeError()));
  return parsePlan(*doc, path, sizes);
}

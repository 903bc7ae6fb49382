//===- ResponseCache.cpp - Replies of identical prompts, kept on disk -----===//
//
// One JSON file per reply, named by the SHA-256 of the request, written
// through a temporary file and a rename.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/LLM/ResponseCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

using namespace mlir::vibegemm::llm;
using nlohmann::json;

ResponseCache::ResponseCache(std::string directory) : dir(std::move(directory)) {}

std::string ResponseCache::defaultDirectory() {
  if (auto env = llvm::sys::Process::GetEnv("VIBEGEMM_CACHE_DIR"))
    return *env;
  llvm::SmallString<256> path;
  if (auto xdg = llvm::sys::Process::GetEnv("XDG_CACHE_HOME")) {
    path = *xdg;
  } else if (auto home = llvm::sys::Process::GetEnv("HOME")) {
    path = *home;
    llvm::sys::path::append(path, ".cache");
  } else {
    return "";
  }
  llvm::sys::path::append(path, "vibegemm", "llm");
  return std::string(path);
}

std::string ResponseCache::key(const std::string &model,
                               const std::vector<ChatMessage> &messages) {
  llvm::SHA256 sha;
  sha.update(model);
  for (const ChatMessage &m : messages) {
    sha.update(llvm::StringRef("\0", 1));
    sha.update(m.role);
    sha.update(llvm::StringRef("\0", 1));
    sha.update(m.content);
  }
  auto digest = sha.final();
  return llvm::toHex(llvm::ArrayRef<uint8_t>(digest.data(), digest.size()),
                     /*LowerCase=*/true);
}

std::optional<ChatResult> ResponseCache::lookup(const std::string &key) const {
  if (dir.empty())
    return std::nullopt;
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, key + ".json");
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return std::nullopt;
  json j = json::parse((*buffer)->getBuffer().str(), nullptr, false);
  if (!j.is_object() || !j.contains("content") || !j["content"].is_string())
    return std::nullopt; // a damaged entry is a miss, not an error
  ChatResult r;
  r.ok = true;
  r.content = j["content"].get<std::string>();
  if (j.contains("prompt_tokens") && j["prompt_tokens"].is_number_integer())
    r.usage.promptTokens = j["prompt_tokens"].get<int64_t>();
  if (j.contains("completion_tokens") &&
      j["completion_tokens"].is_number_integer())
    r.usage.completionTokens = j["completion_tokens"].get<int64_t>();
  return r;
}

void ResponseCache::store(const std::string &key,
                          const ChatResult &reply) const {
  if (dir.empty() || !reply.ok)
    return;
  if (llvm::sys::fs::create_directories(dir))
    return;
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, key + ".json");
  json j = {{"content", reply.content},
            {"prompt_tokens", reply.usage.promptTokens},
            {"completion_tokens", reply.usage.completionTokens}};
  std::string text = j.dump(1);
  if (llvm::Error err = llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
        os << text;
        return llvm::Error::success();
      }))
    llvm::consumeError(std::move(err));
}

//===- ResponseCache.h - Replies of identical prompts, kept on disk -*- C++ -*-//
//
// A rerun with the same prompts asks nothing: each reply is stored under
// the hash of the model and the messages, so tuning is reproducible and
// free the second time.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_LLM_RESPONSECACHE_H
#define VIBEGEMM_LLM_RESPONSECACHE_H

#include "vibegemm/LLM/ChatClient.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::vibegemm::llm {

class ResponseCache {
public:
  /// An empty `directory` disables the cache.
  explicit ResponseCache(std::string directory);

  /// The default directory: $VIBEGEMM_CACHE_DIR, else
  /// $XDG_CACHE_HOME/vibegemm/llm, else ~/.cache/vibegemm/llm.
  static std::string defaultDirectory();

  static std::string key(const std::string &model,
                         const std::vector<ChatMessage> &messages);

  std::optional<ChatResult> lookup(const std::string &key) const;
  /// Stores a successful reply (atomically; failures to write are ignored:
  /// the cache is an optimisation).
  void store(const std::string &key, const ChatResult &reply) const;

  bool enabled() const { return !dir.empty(); }

private:
  std::string dir;
};

} // namespace mlir::vibegemm::llm

#endif // VIBEGEMM_LLM_RESPONSECACHE_H

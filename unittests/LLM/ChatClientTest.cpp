//===- ChatClientTest.cpp - Tests of reply handling that need no server ---===//

#include "vibegemm/LLM/ChatClient.h"
#include "vibegemm/LLM/ResponseCache.h"

#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"

using namespace mlir::vibegemm::llm;

TEST(ChatClient, TakesTheFirstMlirBlockOnly) {
  std::string reply = "Sure.\n```python\nx = 1\n```\nThen:\n```mlir\nA\nB\n```\n"
                      "and\n```mlir\nC\n```\n";
  EXPECT_EQ(*extractMlirBlock(reply), "A\nB\n");
  EXPECT_FALSE(extractMlirBlock("no code here"));
  EXPECT_FALSE(extractMlirBlock("```mlir\nnever closed"));
}

TEST(ChatClient, RedactsTheKeyEverywhere) {
  ChatClient client("http://h/v1/", "m", "sk-abc");
  EXPECT_EQ(client.endpoint(), "http://h/v1");
  EXPECT_EQ(client.redact("x sk-abc y sk-abc"), "x [redacted] y [redacted]");
  ChatClient keyless("http://h/v1", "m", "");
  EXPECT_EQ(keyless.redact("sk-abc"), "sk-abc");
}

TEST(ChatClient, RefusedConnectionMakesTheEndpointUnusable) {
  // Port 9 (discard) has nothing listening on test machines.
  ChatOptions options;
  options.timeoutSeconds = 5;
  ChatClient client("http://127.0.0.1:9/v1", "m", "sk-secret", options);
  ChatResult r = client.complete({{"user", "hi"}});
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.endpointUnusable);
  EXPECT_EQ(r.error.find("sk-secret"), std::string::npos);
}

TEST(ResponseCache, KeysDependOnModelAndEveryMessage) {
  std::vector<ChatMessage> a = {{"system", "s"}, {"user", "u"}};
  std::vector<ChatMessage> b = {{"system", "s"}, {"user", "v"}};
  std::vector<ChatMessage> c = {{"system", "su"}, {"user", ""}};
  EXPECT_EQ(ResponseCache::key("m", a), ResponseCache::key("m", a));
  EXPECT_NE(ResponseCache::key("m", a), ResponseCache::key("n", a));
  EXPECT_NE(ResponseCache::key("m", a), ResponseCache::key("m", b));
  EXPECT_NE(ResponseCache::key("m", a), ResponseCache::key("m", c));
}

TEST(ResponseCache, StoresAndFindsReplies) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("cachetest", dir));
  ResponseCache cache(std::string(dir) + "/sub");
  ChatResult reply;
  reply.ok = true;
  reply.content = "```mlir\nx\n```";
  reply.usage.promptTokens = 7;
  EXPECT_FALSE(cache.lookup("k"));
  cache.store("k", reply);
  std::optional<ChatResult> hit = cache.lookup("k");
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->content, reply.content);
  EXPECT_EQ(hit->usage.promptTokens, 7);
  EXPECT_FALSE(ResponseCache("").enabled());
  llvm::sys::fs::remove_directories(dir);
}

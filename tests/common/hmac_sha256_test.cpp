#include "common/hmac_sha256.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

// RFC 4231 test cases 1, 2 and 6 (a key longer than the block).
TEST(HmacSha256, MatchesRfc4231) {
  EXPECT_EQ(hmac_sha256_hex(std::string(20, '\x0b'), "Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  EXPECT_EQ(hmac_sha256_hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(hmac_sha256_hex(std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First"),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

// An empty key is still a key (all zero bytes after padding), not a missing one.
TEST(HmacSha256, TakesAnEmptyKeyAndMessage) {
  EXPECT_EQ(hmac_sha256_hex("", ""), "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad");
}

TEST(HmacSha256, ComparesOnlyEqualStrings) {
  EXPECT_TRUE(equal_in_constant_time("abc", "abc"));
  EXPECT_FALSE(equal_in_constant_time("abc", "abd"));
  EXPECT_FALSE(equal_in_constant_time("abc", "abcd"));
}

TEST(HmacSha256, RandomKeysDiffer) {
  const std::string a = random_key_hex(), b = random_key_hex();
  EXPECT_EQ(a.size(), 64u);
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace kb

// The redactor every child's output passes through: the token shapes it hides, and that no
// output a candidate can produce (a token's prefix followed by a long run of its characters, a
// private key's BEGIN line and no END) overflows the stack of std::regex and ends kernelbot.
#include "common/secret_redactor.h"

#include <gtest/gtest.h>

#include <string>

namespace kb {
namespace {

TEST(SecretRedactor, HidesTokenShapes) {
  EXPECT_EQ(redact("x ghp_abcdefghijklmnop1234 y"), std::string("x ") + kRedacted + " y");
  EXPECT_EQ(redact("Authorization: basic QWxhZGRpbjpvcGVuIHNlc2FtZQ== z"),
            std::string("Authorization: basic ") + kRedacted + " z");
  EXPECT_EQ(redact("password = hunter2hunter2"), std::string("password = ") + kRedacted);
  EXPECT_EQ(redact("a -----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY----- b"),
            std::string("a ") + kRedacted + " b");
  EXPECT_EQ(redact("c -----BEGIN PRIVATE KEY-----\nMIIE and no end"), std::string("c ") + kRedacted);
  // What only looks alike stays.
  for (const char* kept : {"expected a token here", "-----BEGIN CERTIFICATE-----\nabc\n-----END CERTIFICATE-----",
                           "sk-short", "use the password prompt"})
    EXPECT_EQ(redact(kept), kept);
}

TEST(SecretRedactor, LongRunsInAChildsOutputDoNotOverflowTheStack) {
  const std::string run(400 * 1024, 'a');
  for (const char* prefix :
       {"ghp_", "github_pat_", "sk-", "xoxb-", "token ", "Authorization: ", "password=", "https://u:"}) {
    const std::string text = std::string("error: ") + prefix + run + "\n";
    EXPECT_LE(redact(text).size(), text.size()) << prefix;
  }
  const std::string spaces = "token" + std::string(400 * 1024, ' ') + "x";
  EXPECT_EQ(redact(spaces), spaces);
  const std::string key = "-----BEGIN RSA PRIVATE KEY-----\n" + run;
  EXPECT_EQ(redact("log " + key), std::string("log ") + kRedacted);
}

}  // namespace
}  // namespace kb

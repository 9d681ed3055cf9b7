#include "common/hmac_sha256.h"

#include <sys/random.h>

#include <stdexcept>
#include <string>

#include "common/sha256.h"

namespace kb {
namespace {

constexpr size_t kBlock = 64;

std::string hex_to_bytes(const std::string& hex) {
  std::string out;
  out.reserve(hex.size() / 2);
  auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out += static_cast<char>(nibble(hex[i]) * 16 + nibble(hex[i + 1]));
  return out;
}

}  // namespace

std::string hmac_sha256_hex(std::string_view key, std::string_view message) {
  std::string k = key.size() > kBlock ? hex_to_bytes(sha256_hex(key)) : std::string(key);
  k.resize(kBlock, '\0');
  std::string inner_pad(kBlock, '\0'), outer_pad(kBlock, '\0');
  for (size_t i = 0; i < kBlock; ++i) {
    inner_pad[i] = static_cast<char>(k[i] ^ 0x36);
    outer_pad[i] = static_cast<char>(k[i] ^ 0x5c);
  }
  const std::string inner = hex_to_bytes(Sha256().update(inner_pad).update(message).hex());
  return Sha256().update(outer_pad).update(inner).hex();
}

bool equal_in_constant_time(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

std::string random_key_hex() {
  unsigned char bytes[32];
  size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
    if (n <= 0) throw std::runtime_error("getrandom failed: no randomness for the result key");
    got += static_cast<size_t>(n);
  }
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += digits[b >> 4];
    out += digits[b & 0xf];
  }
  return out;
}

}  // namespace kb

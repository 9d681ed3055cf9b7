#include "common/hmac_sha256.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <stdexcept>

#include "common/sha256.h"
#include "core/errors.h"

namespace kb {

std::string hmac_sha256_hex(std::string_view key, std::string_view message) {
  // An empty key still needs a non-null pointer: OpenSSL 3 reads a null key as "no key" and fails.
  static const unsigned char kNoBytes[1] = {0};
  const auto* key_bytes = key.empty() ? kNoBytes : reinterpret_cast<const unsigned char*>(key.data());
  const auto* message_bytes = message.empty() ? kNoBytes : reinterpret_cast<const unsigned char*>(message.data());
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (!HMAC(EVP_sha256(), key_bytes, static_cast<int>(key.size()), message_bytes, message.size(), mac, &size))
    throw Error("libcrypto could not compute HMAC-SHA256");
  return lowercase_hex(std::string_view(reinterpret_cast<const char*>(mac), size));
}

bool equal_in_constant_time(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string random_key_hex() {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof bytes) != 1)
    throw Error("libcrypto's random generator failed: no randomness for the result key");
  return lowercase_hex(std::string_view(reinterpret_cast<const char*>(bytes), sizeof bytes));
}

}  // namespace kb

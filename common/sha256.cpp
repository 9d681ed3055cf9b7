#include "common/sha256.h"

#include <openssl/evp.h>

#include <stdexcept>

#include "core/errors.h"

namespace kb {

void Sha256::FreeContext::operator()(evp_md_ctx_st* ctx) const { EVP_MD_CTX_free(ctx); }

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1)
    throw Error("libcrypto could not start a SHA-256 digest");
}

Sha256::~Sha256() = default;
Sha256::Sha256(Sha256&&) noexcept = default;
Sha256& Sha256::operator=(Sha256&&) noexcept = default;

Sha256& Sha256::update(std::string_view data) {
  if (EVP_DigestUpdate(ctx_.get(), data.data(), data.size()) != 1)
    throw Error("libcrypto could not update a SHA-256 digest");
  return *this;
}

Sha256& Sha256::field(std::string_view data) {
  update(std::to_string(data.size()));
  update(":");
  return update(data);
}

std::string Sha256::hex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_DigestFinal_ex(ctx_.get(), digest, &size) != 1) throw Error("libcrypto could not finish a SHA-256 digest");
  return lowercase_hex(std::string_view(reinterpret_cast<const char*>(digest), size));
}

std::string sha256_hex(std::string_view data) { return Sha256().update(data).hex(); }

std::string lowercase_hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out += kDigits[b >> 4];
    out += kDigits[b & 0xf];
  }
  return out;
}

}  // namespace kb

// SHA-256 of byte strings, for the compile cache's keys (the key must change whenever anything
// that reaches the compiler changes; a 64-bit hash of untrusted text could be made to collide).
// The digest itself is OpenSSL's (libcrypto's EVP interface); this file adds only the
// length-prefixed fields and the hex the keys are written in.
#pragma once

#include <memory>
#include <string>
#include <string_view>

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX, kept out of this header

namespace kb {

// Incremental SHA-256. Throws kb::Error if libcrypto fails (out of memory).
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(Sha256&&) noexcept;
  Sha256& operator=(Sha256&&) noexcept;

  Sha256& update(std::string_view data);
  // Adds a length-prefixed field, so that ("ab","c") and ("a","bc") hash differently.
  Sha256& field(std::string_view data);
  std::string hex();  // finishes the hash; the object is spent afterwards

 private:
  struct FreeContext {
    void operator()(evp_md_ctx_st* ctx) const;
  };
  std::unique_ptr<evp_md_ctx_st, FreeContext> ctx_;
};

std::string sha256_hex(std::string_view data);

// Lowercase hex of raw bytes (two digits a byte), the form every digest and key here is written in.
std::string lowercase_hex(std::string_view bytes);

}  // namespace kb

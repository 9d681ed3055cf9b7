// SHA-256 of byte strings, for the compile cache's keys (the key must change whenever anything
// that reaches the compiler changes; a 64-bit hash of untrusted text could be made to collide).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kb {

// Incremental SHA-256 (FIPS 180-4).
class Sha256 {
 public:
  Sha256();
  Sha256& update(std::string_view data);
  // Adds a length-prefixed field, so that ("ab","c") and ("a","bc") hash differently.
  Sha256& field(std::string_view data);
  std::string hex();  // finishes the hash; the object is spent afterwards

 private:
  void block(const unsigned char* p);
  uint32_t h_[8];
  unsigned char buf_[64] = {};
  size_t used_ = 0;
  uint64_t bits_ = 0;
};

std::string sha256_hex(std::string_view data);

}  // namespace kb

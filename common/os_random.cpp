#include "common/os_random.h"

#include <openssl/rand.h>

#include <stdexcept>

#include "core/errors.h"

namespace kb {

uint64_t random_u64() {
  uint64_t value = 0;
  if (RAND_bytes(reinterpret_cast<unsigned char*>(&value), sizeof value) != 1)
    throw Error("libcrypto's random generator failed: no randomness for a seed");
  return value;
}

}  // namespace kb

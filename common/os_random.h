// Random numbers no process can predict, from libcrypto's generator (seeded by the OS): for
// seeds a candidate must not guess. The seal's key (hmac_sha256.h) comes from the same source.
#pragma once

#include <cstdint>

namespace kb {

// 64 random bits. Throws kb::Error if libcrypto has no randomness to give.
uint64_t random_u64();

}  // namespace kb

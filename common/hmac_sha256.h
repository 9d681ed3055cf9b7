// HMAC-SHA256 (RFC 2104), for results that travel through places other processes can write: the
// harness seals its result with a key only it and kernelbot know, so a candidate that shares its
// sandbox (and can write the job directory) cannot forge a verdict, only spoil one. The MAC, the
// comparison and the random key are OpenSSL's (libcrypto): a seal is no place for home-made crypto.
#pragma once

#include <string>
#include <string_view>

namespace kb {

// Lowercase hex of HMAC-SHA256(key, message). Throws kb::Error if libcrypto fails.
std::string hmac_sha256_hex(std::string_view key, std::string_view message);

// Constant-time comparison of two strings of equal length (false when lengths differ).
bool equal_in_constant_time(std::string_view a, std::string_view b);

// 32 bytes from libcrypto's CSPRNG, as 64 hex digits. Throws kb::Error.
std::string random_key_hex();

}  // namespace kb

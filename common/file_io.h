// Reading whole files, the one way the program does it: binary-exact, regular files only, within a
// stated size limit, and an error that names the file and says why when it cannot be read.
//
// A path that is a FIFO, a character device (/dev/zero), a socket or a directory, also behind a
// symlink, is refused before a byte is read: the file is opened with O_NONBLOCK and checked with
// fstat, so a FIFO with no writer never blocks and /dev/zero never fills memory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace kb {

// What a user's source, config or candidate may weigh: far above any real one, far below memory.
inline constexpr std::uintmax_t kUserFileLimitBytes = std::uintmax_t{16} << 20;
// What kernelbot's own data files (results, archives, replay logs) may weigh.
inline constexpr std::uintmax_t kDataFileLimitBytes = std::uintmax_t{1} << 30;

// The file's bytes; nullopt only when nothing is at the path (or a symlink there leads nowhere).
// Throws kb::Error "cannot read <path>: <reason>" when something is there but cannot be read: not
// a regular file, no permission, larger than `limit_bytes`.
std::optional<std::string> try_read_text_file(const std::filesystem::path& path,
                                              std::uintmax_t limit_bytes = kUserFileLimitBytes);

// The file's bytes; throws kb::Error "cannot read <path>: <reason>" when it cannot be read,
// including when it does not exist.
std::string read_text_file(const std::filesystem::path& path, std::uintmax_t limit_bytes = kUserFileLimitBytes);

// For readers that look for a hint (headers searched for a declaration, includes followed for a
// guess): the bytes, or nullopt when the file is missing or cannot be read for any reason, as
// safely as above (no FIFO blocks, no device is read).
std::optional<std::string> read_text_file_if_readable(const std::filesystem::path& path,
                                                      std::uintmax_t limit_bytes = kUserFileLimitBytes);

// "16 MiB": a limit as the messages state it.
std::string format_byte_limit(std::uintmax_t bytes);

}  // namespace kb

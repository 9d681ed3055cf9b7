// Writing whole files, the one way the program does it: the new text lands whole or not at all,
// and never through a symlink.
//
// A write goes to a new temporary file beside the target (created with O_EXCL, so nothing already
// there is followed), is flushed to disk with fsync, then renamed over the target: an interrupted
// or failed write (a full disk, an I/O error) leaves the previous file as it was, and the error
// names the file and the reason.
#pragma once

#include <filesystem>
#include <string_view>

namespace kb {

// Replaces `target` with `text`. Throws kb::Error "cannot write <target>: <reason>" when the
// target is a symlink or not a regular file, or when writing fails; the target is then untouched.
// A new file gets the usual permissions (0666 less the umask), a replaced one keeps its own.
void write_file_atomically(const std::filesystem::path& target, std::string_view text);

// Creates `path` with `text` only when nothing is there yet (not even a dangling symlink).
// Returns false when the path is taken; throws kb::Error when writing fails (the partial file is
// removed).
bool write_new_file(const std::filesystem::path& path, std::string_view text);

}  // namespace kb

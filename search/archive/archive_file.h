// Opening the archive's SQLite file. The candidates' connection (archive.h) and each side table's
// (archive_side_table.h) open the same file, so they open it the same way: read-write, created
// where missing, safe to share between threads, and waiting up to ten seconds for another
// connection (another kernelbot, or the archive's own) that is writing.
#pragma once

#include <filesystem>

struct sqlite3;

namespace kb::search {

// A new connection to the SQLite file at `path`, which the caller closes (sqlite3_close).
// Throws kb::Error "archive: cannot open PATH: WHY" when SQLite cannot open it.
sqlite3* open_archive_file(const std::filesystem::path& path);

}  // namespace kb::search

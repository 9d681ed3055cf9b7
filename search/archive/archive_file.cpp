#include "search/archive/archive_file.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <string>

#include "core/errors.h"

namespace kb::search {

sqlite3* open_archive_file(const std::filesystem::path& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr) !=
      SQLITE_OK) {
    // SQLite hands back a connection to close even when the open fails, unless memory ran out.
    std::string why = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw Error(fmt::format("archive: cannot open {}: {}", path.string(), why));
  }
  sqlite3_busy_timeout(db, 10'000);
  return db;
}

}  // namespace kb::search

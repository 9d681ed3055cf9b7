#include "search/archive/archive_side_table.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <stdexcept>

#include "core/errors.h"
#include "search/archive/archive_file.h"

namespace kb::search {

ArchiveSideTable::ArchiveSideTable(const std::filesystem::path& archive, std::string purpose, const char* create_sql)
    : path_(archive), purpose_(std::move(purpose)) {
  std::error_code ec;
  if (archive.has_parent_path()) std::filesystem::create_directories(archive.parent_path(), ec);
  db_ = open_archive_file(archive);  // the archive's own connection may be writing: it waits
  try {
    exec(create_sql);
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

ArchiveSideTable::~ArchiveSideTable() { sqlite3_close(db_); }

sqlite3_stmt* ArchiveSideTable::prepare(const char* sql) const {
  sqlite3_stmt* s = nullptr;
  check(sqlite3_prepare_v2(db_, sql, -1, &s, nullptr));
  return s;
}

void ArchiveSideTable::check(int rc) const {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW)
    throw Error(fmt::format("archive {}: {}: {}", path_.string(), purpose_, sqlite3_errmsg(db_)));
}

void ArchiveSideTable::exec(const char* sql) const {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &error) != SQLITE_OK) {
    std::string msg = error ? error : "unknown error";
    sqlite3_free(error);
    throw Error(fmt::format("archive {}: {}: {}", path_.string(), purpose_, msg));
  }
}

std::string ArchiveSideTable::column_text(sqlite3_stmt* s, int col) {
  const unsigned char* t = sqlite3_column_text(s, col);
  return t ? reinterpret_cast<const char*>(t) : "";
}

}  // namespace kb::search

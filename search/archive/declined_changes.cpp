#include "search/archive/declined_changes.h"

#include <sqlite3.h>

namespace kb::search {

// Its own table, created where missing: the candidates' schema version is not touched.
DeclinedChanges::DeclinedChanges(const std::filesystem::path& archive)
    : table_(archive, "declined changes",
             "CREATE TABLE IF NOT EXISTS declined_prs ("
             " kernel TEXT NOT NULL, number INTEGER NOT NULL, change_id TEXT NOT NULL, speedup REAL NOT NULL,"
             " url TEXT NOT NULL, closed_at TEXT NOT NULL, PRIMARY KEY (kernel, number))") {}

void DeclinedChanges::record(const DeclinedChange& c) {
  sqlite3_stmt* s = table_.prepare("INSERT INTO declined_prs (kernel, number, change_id, speedup, url, closed_at) "
                                   "VALUES (?,?,?,?,?,?) ON CONFLICT (kernel, number) DO UPDATE SET "
                                   "change_id=excluded.change_id, speedup=excluded.speedup, url=excluded.url, "
                                   "closed_at=excluded.closed_at");
  sqlite3_bind_text(s, 1, c.kernel.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(s, 2, c.number);
  sqlite3_bind_text(s, 3, c.change_id.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_double(s, 4, c.speedup);
  sqlite3_bind_text(s, 5, c.url.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 6, c.closed_at.c_str(), -1, SQLITE_TRANSIENT);
  const int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  table_.check(rc);
}

std::vector<DeclinedChange> DeclinedChanges::of(const std::string& kernel) const {
  sqlite3_stmt* s = table_.prepare(
      "SELECT kernel, change_id, speedup, number, url, closed_at FROM declined_prs WHERE kernel = ? ORDER BY number");
  sqlite3_bind_text(s, 1, kernel.c_str(), -1, SQLITE_TRANSIENT);
  std::vector<DeclinedChange> out;
  int rc;
  using T = ArchiveSideTable;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW)
    out.push_back({T::column_text(s, 0), T::column_text(s, 1), sqlite3_column_double(s, 2), sqlite3_column_int64(s, 3),
                   T::column_text(s, 4), T::column_text(s, 5)});
  sqlite3_finalize(s);
  table_.check(rc);
  return out;
}

}  // namespace kb::search

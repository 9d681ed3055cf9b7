// A table of its own in the archive's SQLite file, beside the candidates (whose schema version it
// does not touch): the PRs reviewers declined, the kernels a reviewer asked kernelbot to ignore.
// One connection per table, opened on the archive's file (its directories and the table created
// where missing), waiting for the archive's own connection when it writes; every failure throws
// kb::Error naming the file and the table's purpose.
#pragma once

#include <filesystem>
#include <string>

struct sqlite3;
struct sqlite3_stmt;

namespace kb::search {

class ArchiveSideTable {
 public:
  // `purpose` names the table in errors ("declined changes"); `create_sql` creates it where missing.
  ArchiveSideTable(const std::filesystem::path& archive, std::string purpose, const char* create_sql);
  ~ArchiveSideTable();
  ArchiveSideTable(const ArchiveSideTable&) = delete;
  ArchiveSideTable& operator=(const ArchiveSideTable&) = delete;

  sqlite3* db() const { return db_; }
  // A prepared statement of `sql` (the caller finalizes it); throws when SQLite refuses it.
  sqlite3_stmt* prepare(const char* sql) const;
  // Throws with the database's message when an SQLite call returned neither OK, DONE nor ROW.
  void check(int rc) const;
  // Runs `sql` that returns no rows.
  void exec(const char* sql) const;
  // A text column, "" for NULL.
  static std::string column_text(sqlite3_stmt* s, int col);

 private:
  std::filesystem::path path_;
  std::string purpose_;
  sqlite3* db_ = nullptr;
};

}  // namespace kb::search

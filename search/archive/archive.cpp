#include "search/archive/archive.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <ctime>
#include <stdexcept>

#include "common/clock.h"
#include "common/sha256.h"
#include "core/errors.h"
#include "search/archive/archive_file.h"
#include "search/archive/content_hash.h"

namespace kb::search {
namespace {

// A prepared statement that finalizes itself; bind/step errors throw with the database's message.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK)
      throw Error(std::string("archive: cannot prepare a query: ") + sqlite3_errmsg(db));
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, const std::string& v) {
    check(sqlite3_bind_text(stmt_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
    return *this;
  }
  Statement& bind(int i, double v) {
    check(sqlite3_bind_double(stmt_, i, v));
    return *this;
  }
  Statement& bind(int i, int64_t v) {
    check(sqlite3_bind_int64(stmt_, i, v));
    return *this;
  }
  // true while there is a row.
  bool step() {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw Error(std::string("archive: ") + sqlite3_errmsg(db_));
  }
  std::string text(int col) const {
    const unsigned char* t = sqlite3_column_text(stmt_, col);
    return t ? reinterpret_cast<const char*>(t) : "";
  }
  double real(int col) const { return sqlite3_column_double(stmt_, col); }
  int64_t integer(int col) const { return sqlite3_column_int64(stmt_, col); }

 private:
  void check(int rc) {
    if (rc != SQLITE_OK) throw Error(std::string("archive: ") + sqlite3_errmsg(db_));
  }
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

constexpr const char* kColumns =
    "candidate_id, parent_id, round, idea_text, idea_family, idea_rationale, verdict, reason, speedup, median_us, "
    "variant_json, eval_json, variant_hash";

CandidateRecord record_from_row(const Statement& s) {
  CandidateRecord r;
  r.id = s.text(0);
  r.parent_id = s.text(1);
  r.round = s.integer(2);
  r.idea = {s.text(3), s.text(4), s.text(5)};
  r.variant = nlohmann::json::parse(s.text(10)).get<Variant>();
  r.eval = nlohmann::json::parse(s.text(11)).get<EvalResult>();
  // The verdict and reason columns are the record's (an older kernelbot kept a compile error's
  // only there); speedup and median_us (columns 8, 9, for queries) follow from eval.
  r.eval.verdict = nlohmann::json(s.text(6)).get<Verdict>();
  r.eval.reason = s.text(7);
  r.variant_hash = s.text(12);
  r.from_archive = true;
  return r;
}

// Inserts a row, or replaces the stored row of the same candidate (key and variant) when
// `only_if` (an SQL condition after WHERE, or "" for always) holds. True when a row changed.
bool upsert(sqlite3* db, const ArchiveRow& row, const std::string& only_if) {
  const auto& key = row.key;
  const auto& r = row.record;
  Statement s(db, ("INSERT INTO candidates (kernel, source_hash, spec_hash, gpu, toolkit, variant_hash, candidate_id, "
                   "parent_id, round, idea_text, idea_family, idea_rationale, verdict, reason, speedup, median_us, "
                   "variant_json, eval_json, diff, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
                   "ON CONFLICT (source_hash, spec_hash, gpu, toolkit, variant_hash) DO UPDATE SET "
                   "kernel=excluded.kernel, candidate_id=excluded.candidate_id, parent_id=excluded.parent_id, "
                   "round=excluded.round, idea_text=excluded.idea_text, idea_family=excluded.idea_family, "
                   "idea_rationale=excluded.idea_rationale, verdict=excluded.verdict, reason=excluded.reason, "
                   "speedup=excluded.speedup, median_us=excluded.median_us, variant_json=excluded.variant_json, "
                   "eval_json=excluded.eval_json, diff=excluded.diff, created_at=excluded.created_at" +
                   only_if)
                      .c_str());
  s.bind(1, key.kernel).bind(2, key.source_hash).bind(3, key.spec_hash).bind(4, key.gpu).bind(5, key.toolkit);
  s.bind(6, r.variant_hash).bind(7, r.id).bind(8, r.parent_id).bind(9, r.round);
  s.bind(10, r.idea.text).bind(11, r.idea.family).bind(12, r.idea.rationale);
  s.bind(13, std::string(to_string(r.verdict()))).bind(14, r.reason()).bind(15, r.speedup()).bind(16, r.median_us());
  s.bind(17, nlohmann::json(r.variant).dump()).bind(18, nlohmann::json(r.eval).dump()).bind(19, row.diff);
  s.bind(20, row.created_at);
  s.step();
  return sqlite3_changes(db) > 0;
}

}  // namespace

ArchiveKey make_archive_key(const config::Config& config, const config::KernelSpec& spec,
                            const std::string& original_source, const DeviceInfo& device) {
  return ArchiveKey{spec.name, sha256_hex(original_source), spec_hash(config, spec),
                    device.name.empty() ? "unknown GPU" : device.name,
                    device.runtime_version.empty() ? "unknown" : device.runtime_version};
}

Archive::Archive(const std::filesystem::path& path) : path_(path) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) throw Error(fmt::format("archive: cannot create {}: {}", path.parent_path().string(), ec.message()));
  db_ = open_archive_file(path);  // another kernelbot on the same archive: it waits, does not fail
  try {
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA synchronous=NORMAL");
    exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
    int64_t version = 0;
    {
      Statement s(db_, "SELECT MAX(version) FROM schema_version");
      if (s.step()) version = s.integer(0);
    }
    if (version > kSchemaVersion)
      throw Error(fmt::format("archive {} has schema version {}, newer than this kernelbot's {}", path.string(),
                              version, kSchemaVersion));
    if (version < 1) {
      exec("BEGIN");
      exec("CREATE TABLE IF NOT EXISTS candidates ("
           " row_id INTEGER PRIMARY KEY,"
           " kernel TEXT NOT NULL, source_hash TEXT NOT NULL, spec_hash TEXT NOT NULL,"
           " gpu TEXT NOT NULL, toolkit TEXT NOT NULL, variant_hash TEXT NOT NULL,"
           " candidate_id TEXT NOT NULL, parent_id TEXT NOT NULL, round INTEGER NOT NULL,"
           " idea_text TEXT NOT NULL, idea_family TEXT NOT NULL, idea_rationale TEXT NOT NULL,"
           " verdict TEXT NOT NULL, reason TEXT NOT NULL, speedup REAL NOT NULL, median_us REAL NOT NULL,"
           " variant_json TEXT NOT NULL, eval_json TEXT NOT NULL, diff TEXT NOT NULL, created_at TEXT NOT NULL,"
           " UNIQUE (source_hash, spec_hash, gpu, toolkit, variant_hash))");
      exec("CREATE INDEX IF NOT EXISTS candidates_by_verdict ON candidates (verdict, speedup)");
      exec("INSERT INTO schema_version (version) VALUES (1)");
      exec("COMMIT");
    }
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

Archive::~Archive() {
  if (db_) sqlite3_close(db_);
}

void Archive::exec(const char* sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &error) != SQLITE_OK) {
    std::string msg = error ? error : "unknown error";
    sqlite3_free(error);
    throw Error(fmt::format("archive {}: {} ({})", path_.string(), msg, sql));
  }
}

void Archive::store(const ArchiveKey& key, const CandidateRecord& r, const std::string& diff) {
  if (r.verdict() == Verdict::pending || r.verdict() == Verdict::infra_error || r.variant_hash.empty()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  upsert(db_, ArchiveRow{key, r, diff, now_iso8601()}, "");
}

std::optional<CandidateRecord> Archive::find(const ArchiveKey& key, const std::string& variant_hash) const {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s(db_, fmt::format("SELECT {} FROM candidates WHERE source_hash=? AND spec_hash=? AND gpu=? AND "
                               "toolkit=? AND variant_hash=?",
                               kColumns)
                       .c_str());
  s.bind(1, key.source_hash).bind(2, key.spec_hash).bind(3, key.gpu).bind(4, key.toolkit).bind(5, variant_hash);
  if (!s.step()) return std::nullopt;
  return record_from_row(s);
}

std::optional<CandidateRecord> Archive::best(const ArchiveKey& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s(db_, fmt::format("SELECT {} FROM candidates WHERE source_hash=? AND spec_hash=? AND gpu=? AND "
                               "toolkit=? AND verdict='accepted' ORDER BY speedup DESC, row_id ASC LIMIT 1",
                               kColumns)
                       .c_str());
  s.bind(1, key.source_hash).bind(2, key.spec_hash).bind(3, key.gpu).bind(4, key.toolkit);
  if (!s.step()) return std::nullopt;
  return record_from_row(s);
}

std::vector<ArchiveExample> Archive::examples(const ArchiveKey& exclude, size_t limit) const {
  std::lock_guard<std::mutex> lock(mutex_);
  // SQLite takes the bare columns of an aggregate query from the row holding the MAX().
  Statement s(db_,
              "SELECT kernel, gpu, idea_text, idea_family, idea_rationale, MAX(speedup), diff, gpu = ? AS same_gpu "
              "FROM candidates WHERE verdict='accepted' AND "
              "NOT (source_hash=? AND spec_hash=? AND gpu=? AND toolkit=?) "
              "GROUP BY source_hash, spec_hash, gpu, toolkit ORDER BY same_gpu DESC, MAX(speedup) DESC LIMIT ?");
  s.bind(1, exclude.gpu).bind(2, exclude.source_hash).bind(3, exclude.spec_hash).bind(4, exclude.gpu);
  s.bind(5, exclude.toolkit).bind(6, static_cast<int64_t>(limit));
  std::vector<ArchiveExample> out;
  while (s.step())
    out.push_back(ArchiveExample{s.text(0), s.text(1), Idea{s.text(2), s.text(3), s.text(4)}, s.real(5), s.text(6)});
  return out;
}

std::vector<ArchiveRow> Archive::rows(const std::string& kernel, int64_t after_row_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s(db_,
              fmt::format("SELECT {}, kernel, source_hash, spec_hash, gpu, toolkit, diff, created_at FROM candidates "
                          "WHERE row_id > ? AND (? = '' OR kernel = ?) ORDER BY row_id",
                          kColumns)
                  .c_str());
  s.bind(1, after_row_id).bind(2, kernel).bind(3, kernel);
  std::vector<ArchiveRow> out;
  while (s.step()) {
    ArchiveRow row;
    row.record = record_from_row(s);
    row.record.from_archive = false;  // as it was measured; the importing archive marks it on lookup
    row.key = ArchiveKey{s.text(13), s.text(14), s.text(15), s.text(16), s.text(17)};
    row.diff = s.text(18);
    row.created_at = s.text(19);
    out.push_back(std::move(row));
  }
  return out;
}

int64_t Archive::last_row_id() const {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s(db_, "SELECT COALESCE(MAX(row_id), 0) FROM candidates");
  return s.step() ? s.integer(0) : 0;
}

bool Archive::merge(const ArchiveRow& row) {
  const auto& r = row.record;
  if (r.verdict() == Verdict::pending || r.verdict() == Verdict::infra_error || r.variant_hash.empty()) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  ArchiveRow dated = row;
  if (dated.created_at.empty()) dated.created_at = now_iso8601();
  return upsert(db_, dated,
                " WHERE (excluded.verdict = 'accepted') > (candidates.verdict = 'accepted') OR "
                "((excluded.verdict = 'accepted') = (candidates.verdict = 'accepted') AND "
                "(excluded.speedup > candidates.speedup OR (excluded.speedup = candidates.speedup AND "
                "excluded.created_at < candidates.created_at)))");
}

int64_t Archive::count(const ArchiveKey& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s(db_, "SELECT COUNT(*) FROM candidates WHERE source_hash=? AND spec_hash=? AND gpu=? AND toolkit=?");
  s.bind(1, key.source_hash).bind(2, key.spec_hash).bind(3, key.gpu).bind(4, key.toolkit);
  return s.step() ? s.integer(0) : 0;
}

}  // namespace kb::search

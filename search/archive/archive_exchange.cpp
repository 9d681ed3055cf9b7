#include "search/archive/archive_exchange.h"
#include "common/file_io.h"
#include "common/file_write.h"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "core/errors.h"

namespace kb::search {
namespace {

nlohmann::json row_json(const ArchiveRow& row) {
  return {{"kernel", row.key.kernel}, {"source_hash", row.key.source_hash}, {"spec_hash", row.key.spec_hash},
          {"gpu", row.key.gpu},       {"toolkit", row.key.toolkit},         {"record", row.record},
          {"diff", row.diff},         {"created_at", row.created_at}};
}

ArchiveRow row_from_json(const nlohmann::json& j) {
  ArchiveRow row;
  row.key = ArchiveKey{j.at("kernel").get<std::string>(), j.at("source_hash").get<std::string>(),
                       j.at("spec_hash").get<std::string>(), j.at("gpu").get<std::string>(),
                       j.at("toolkit").get<std::string>()};
  row.record = j.at("record").get<CandidateRecord>();
  row.diff = j.value("diff", "");
  row.created_at = j.value("created_at", "");
  return row;
}

}  // namespace

void write_archive_export(const std::filesystem::path& path, const std::vector<ArchiveRow>& rows) {
  nlohmann::json j{{"format", kArchiveExportFormat},
                   {"version", kArchiveExportVersion},
                   {"archive_schema_version", Archive::kSchemaVersion},
                   {"rows", nlohmann::json::array()}};
  for (const auto& r : rows) j["rows"].push_back(row_json(r));
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  write_file_atomically(path, j.dump(1) + "\n");
}

std::vector<ArchiveRow> read_archive_export(const std::filesystem::path& path) {
  const std::optional<std::string> text = try_read_text_file(path, kDataFileLimitBytes);
  if (!text) throw Error("cannot read the archive export " + path.string());
  try {
    auto j = nlohmann::json::parse(*text);
    if (!j.is_object() || j.value("format", "") != kArchiveExportFormat)
      throw Error(fmt::format("not a kernelbot archive export (no \"format\": \"{}\")", kArchiveExportFormat));
    int version = j.at("version").get<int>();
    if (version > kArchiveExportVersion)
      throw Error(fmt::format("written in export version {}, newer than this kernelbot's {}: upgrade "
                              "kernelbot where the archives are merged",
                              version, kArchiveExportVersion));
    std::vector<ArchiveRow> rows;
    for (const auto& r : j.at("rows")) rows.push_back(row_from_json(r));
    return rows;
  } catch (const nlohmann::json::exception& e) {
    throw Error(path.string() + ": not a kernelbot archive export: " + e.what());
  } catch (const std::runtime_error& e) {
    throw Error(path.string() + ": " + e.what());
  }
}

MergeStats merge_rows(Archive& archive, const std::vector<ArchiveRow>& rows) {
  MergeStats stats;
  for (const auto& r : rows) (archive.merge(r) ? stats.changed : stats.kept) += 1;
  return stats;
}

}  // namespace kb::search

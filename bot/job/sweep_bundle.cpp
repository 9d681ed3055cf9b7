#include "bot/job/sweep_bundle.h"
#include "common/file_io.h"
#include "common/file_write.h"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bot/change/result_store.h"
#include "core/errors.h"

namespace kb::bot {
namespace {

nlohmann::json manifest_json(const BundleManifest& m) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& k : m.kernels)
    kernels.push_back({{"kernel", k.kernel}, {"status", k.status}, {"note", k.note}, {"failed", k.failed}});
  return {{"format", kSweepBundleFormat},
          {"version", m.version},
          {"kernelbot_version", m.kernelbot_version},
          {"shard", {{"index", m.shard.index}, {"count", m.shard.count}}},
          {"plan", {{"shards", m.plan.shards}, {"balanced_by", m.plan.by_time ? "gpu time" : "count"}}},
          {"kernels", kernels},
          {"device", m.device},
          {"finished_at", m.finished_at}};
}

BundleManifest manifest_from_json(const nlohmann::json& j) {
  BundleManifest m;
  m.version = j.at("version").get<int>();
  m.kernelbot_version = j.value("kernelbot_version", "");
  m.shard = Shard{j.at("shard").at("index").get<int>(), j.at("shard").at("count").get<int>()};
  m.plan.shards = j.at("plan").at("shards").get<std::vector<std::vector<std::string>>>();
  m.plan.by_time = j.at("plan").value("balanced_by", "") == "gpu time";
  for (const auto& k : j.at("kernels"))
    m.kernels.push_back(
        {k.at("kernel").get<std::string>(), k.value("status", ""), k.value("note", ""), k.value("failed", false)});
  m.device = j.value("device", "");
  m.finished_at = j.value("finished_at", "");
  return m;
}

}  // namespace

std::filesystem::path bundle_result_dir(const std::filesystem::path& dir, const std::string& kernel) {
  return dir / "results" / kernel;
}

std::filesystem::path bundle_archive_file(const std::filesystem::path& dir) { return dir / "archive.json"; }

void write_manifest(const std::filesystem::path& dir, const BundleManifest& manifest) {
  std::filesystem::create_directories(dir);
  write_file_atomically(dir / "manifest.json", manifest_json(manifest).dump(2) + "\n");
}

SweepBundle read_bundle(const std::filesystem::path& dir) {
  if (!std::filesystem::is_directory(dir)) throw UsageError(dir.string() + " is not a directory");
  const auto path = dir / "manifest.json";
  const std::optional<std::string> manifest = try_read_text_file(path, kDataFileLimitBytes);
  if (!manifest)
    throw Error(fmt::format("{} is not a shard's output: no manifest.json (written by `kernelbot run --shard I/N "
                            "--no-publish --out DIR`)",
                            dir.string()));
  SweepBundle bundle;
  bundle.dir = dir;
  try {
    auto j = nlohmann::json::parse(*manifest);
    if (j.value("format", "") != kSweepBundleFormat)
      throw Error(
          fmt::format("{}: not a kernelbot shard manifest (no \"format\": \"{}\")", path.string(), kSweepBundleFormat));
    if (j.at("version").get<int>() > kSweepBundleVersion)
      throw Error(fmt::format("{}: written in version {} by kernelbot {}, newer than this kernelbot's {}",
                              path.string(), j.at("version").get<int>(), j.value("kernelbot_version", "?"),
                              kSweepBundleVersion));
    bundle.manifest = manifest_from_json(j);
  } catch (const nlohmann::json::exception& e) {
    throw Error(path.string() + ": not a kernelbot shard manifest: " + e.what());
  }
  for (const auto& k : bundle.manifest.kernels) {
    auto result = bundle_result_dir(dir, k.kernel) / "result.json";
    if (std::filesystem::exists(result)) bundle.results.emplace(k.kernel, load_result_file(result));
  }
  return bundle;
}

}  // namespace kb::bot

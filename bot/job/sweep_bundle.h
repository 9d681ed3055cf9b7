// What one shard of a sweep hands to `kernelbot publish`: a directory meant to be uploaded as a
// CI artifact, written with no network and no token.
//
//   manifest.json              format and version, the shard, the whole plan, each kernel's status
//   results/<kernel>/          result.json (the whole search and the re-verification of the PR's
//                              text), candidate.<ext>, change.patch
//   archive.json               the archive rows this shard's run added (search/archive/archive_exchange.h)
//
// Plain (not hidden) names: actions/upload-artifact leaves out hidden files by default.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "bot/job/shard.h"
#include "search/types/search_types.h"

namespace kb::bot {

constexpr const char* kSweepBundleFormat = "kernelbot-sweep-shard";
// 2: each result whose winner deserves a PR carries the shard's re-verification of the PR's text.
constexpr int kSweepBundleVersion = 2;

struct BundleKernel {
  std::string kernel;
  std::string status;  // "winner saved", "no faster kernel", "PR vetoed", "failed"
  std::string note;
  bool failed = false;
};

struct BundleManifest {
  int version = kSweepBundleVersion;
  std::string kernelbot_version;
  Shard shard;
  ShardPlan plan;  // every shard's kernels, so publish can tell a missing shard from an empty one
  std::vector<BundleKernel> kernels;
  std::string device;
  std::string finished_at;
};

struct SweepBundle {
  std::filesystem::path dir;
  BundleManifest manifest;
  std::map<std::string, search::SearchResult> results;  // by kernel
};

std::filesystem::path bundle_result_dir(const std::filesystem::path& dir, const std::string& kernel);
std::filesystem::path bundle_archive_file(const std::filesystem::path& dir);

void write_manifest(const std::filesystem::path& dir, const BundleManifest& manifest);

// Throws UsageError when `dir` is not a directory, Error when it is not a shard's output or was
// written by a newer kernelbot, naming the file either way.
SweepBundle read_bundle(const std::filesystem::path& dir);

}  // namespace kb::bot

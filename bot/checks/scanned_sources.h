// The sources a config's [[kernel]] tables name, each read and scanned once for all of them.
// `config check` looks every table's launcher up in its file: with one scan per table, a config of
// N tables over one file of N launchers cost N scans of the whole file (quadratic: 20,000
// launchers never finished). Here each distinct file list is scanned once, each function is found
// by name through an index, and each source's type aliases are collected once.
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "config/config.h"
#include "cuda_source/reading/type_aliases.h"
#include "cuda_source/tokens/source_scanner.h"

namespace kb::bot {

// One kernel's files (its source, then its extra sources) as scanned.
struct ScannedSources {
  cuda_source::ScanResult scan;
  std::vector<cuda_source::ScannedLauncher> kernels;  // the defined __global__ functions, as functions
  std::string read_error;                             // "cannot read ...: it is a FIFO ..." when one could not be
  size_t unreadable_file = 0;                         // which of the files, when read_error is set
  std::map<std::string, std::string> texts;           // each file's text as read, for checks that look into bodies
  // The functions (or kernels) named `found` or `...::found`, in file order.
  std::vector<const cuda_source::ScannedLauncher*> named(const std::string& wanted, bool kernels_only) const;
  // The launcher (with its launches; `scan.functions` has none) defined as `function` is; nullptr if none.
  const cuda_source::ScannedLauncher* launcher_of(const cuda_source::ScannedLauncher& function) const;

  std::unordered_multimap<std::string, size_t> functions_by_short_name, kernels_by_short_name, launchers_by_name;
};

class ScannedSourceCache {
 public:
  explicit ScannedSourceCache(const config::Config& config) : config_(config) {}
  // `files[0]` is the kernel's source; a file that is missing is skipped (the loader reports it).
  const ScannedSources& scanned(const std::vector<std::string>& files);
  const cuda_source::TypeAliases& aliases(const std::string& source, const std::vector<std::string>& include_dirs);

 private:
  const config::Config& config_;
  std::map<std::vector<std::string>, ScannedSources> scans_;
  std::map<std::pair<std::string, std::vector<std::string>>, cuda_source::TypeAliases> aliases_;
};

}  // namespace kb::bot

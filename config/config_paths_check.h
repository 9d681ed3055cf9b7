// The paths a config names, checked where they are written: a file or directory that is not there,
// a source that resolves outside the repository. Shared by the [project] section and [[kernel]]
// tables (internal to config/, as toml_table_reader.h is).
#pragma once

#include <string>
#include <vector>

#include "config/toml_table_reader.h"

namespace kb::config {

// A file the config names that is missing is the field's error, at `at` (or the table).
void check_file_exists(TableReader& r, const Config& c, const char* key, const std::string& path, const toml::node* at,
                       const std::string& field);

// Each of `paths` that resolves outside the repository, unless [project] sources_outside_root.
void check_sources_inside_root(TableReader& r, const Config& c, const char* key, const std::vector<std::string>& paths,
                               const toml::node* at);

// A directory the config names that is missing or no directory.
void check_directory_exists(TableReader& r, const Config& c, const char* key, const std::string& path,
                            const toml::node* at, const std::string& field);

// Each item of the list `key` (files, or `directories`) at its own position.
void check_path_list(TableReader& r, const Config& c, const char* key, const std::vector<std::string>& paths,
                     bool directories);

}  // namespace kb::config

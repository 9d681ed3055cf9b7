// The key table against everything it must agree with: the section structs (no field left out or
// listed twice), `config show` and the loader (every key round-trips), the starter file's defaults,
// and the configuration reference's tables (docs/configuration.md).
#include "config/config_keys.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>

#include "config/config_loader.h"
#include "config/config_writer.h"

using namespace kb::config;

namespace {

// Counts an aggregate's fields (C++ has no reflection): the most `Any`s it can be built from.
struct Any {
  template <class T>
  operator T() const;
};
template <class T, class... Args>
constexpr size_t field_count() {
  if constexpr (requires { T{Args{}..., Any{}}; }) return field_count<T, Args..., Any>();
  else return sizeof...(Args);
}

std::vector<const ConfigKey*> keys_of(const std::string& section) {
  std::vector<const ConfigKey*> out;
  for (const auto& key : config_keys())
    if (key.section == section) out.push_back(&key);
  return out;
}

std::string id(const ConfigKey& key) { return std::string(key.section) + "." + key.name; }

bool same_value(FieldRef a, FieldRef b) {
  return std::visit(
      [](auto* x, auto* y) {
        if constexpr (std::is_same_v<decltype(x), decltype(y)>) return *x == *y;
        else return false;
      },
      a, b);
}

// A valid value other than the current one, whatever the key's type.
void change(const ConfigKey& key, Config& c) {
  std::visit(
      [&](auto* v) {
        using T = std::remove_pointer_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          const std::string name = key.name;
          if (name == "base_url" || name == "api_url") *v += "/x";  // still a URL
          else if (name == "cuda_arch") *v = "sm_90";               // an architecture nvcc knows
          else if (key.allowed.empty()) *v = "owner/" + *v + "x";   // the slash keeps [github].repository valid
          else *v = *v == key.allowed[0] ? key.allowed[1] : key.allowed[0];
        } else if constexpr (std::is_same_v<T, bool>) {
          *v = !*v;
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          // [project].target_archs takes architecture names only.
          const bool archs = std::string(key.name) == "target_archs";
          v->push_back(archs ? "sm_80" : key.allowed.empty() ? "x" : key.allowed[0]);
        } else if constexpr (std::is_same_v<T, std::map<std::string, Tolerance>>) {
          (*v)["float32"].rtol += 0.5;
        } else if constexpr (std::is_same_v<T, std::map<std::string, std::string>>) {
          (*v)["X-Name"] = "value";
        } else if constexpr (std::is_same_v<T, JsonTable>) {
          v->json = R"({"effort":"high","list":[1,2],"n":2,"nested":{"on":true,"p":0.5}})";  // as the loader writes it
        } else if constexpr (std::is_integral_v<T>) {
          *v += 4096;  // past every count's least value ([llm].context_tokens: 0 or at least 4096)
        } else {
          *v += 1;
        }
      },
      key.field(c));
}

}  // namespace

TEST(ConfigKeys, EveryFieldOfEverySectionIsListedExactlyOnce) {
  Config c;
  struct Section {
    std::string name;
    const void* begin;
    size_t size, fields;
  };
  const std::vector<Section> structs = {{"llm", &c.llm, sizeof c.llm, field_count<LlmConfig>()},
                                        {"search", &c.search, sizeof c.search, field_count<SearchConfig>()},
                                        {"verify", &c.verify, sizeof c.verify, field_count<VerifyConfig>()},
                                        {"bench", &c.bench, sizeof c.bench, field_count<BenchConfig>()},
                                        {"github", &c.github, sizeof c.github, field_count<GithubConfig>()},
                                        {"project", &c.project, sizeof c.project, field_count<ProjectConfig>()}};
  // A new section struct in Config must be added here and to the table: file, root, kernels,
  // warnings + sections.
  EXPECT_EQ(field_count<Config>(), 4 + structs.size());
  std::vector<std::string> names;
  for (const auto& s : structs) names.push_back(s.name);
  EXPECT_EQ(config_sections(), names);  // also: each section's keys are contiguous in the table

  for (const auto& s : structs) {
    auto keys = keys_of(s.name);
    EXPECT_EQ(keys.size(), s.fields) << "[" << s.name << "] has " << s.fields << " fields";
    std::set<const void*> fields;
    std::set<std::string> names_seen;
    for (const auto* key : keys) {
      auto* p = std::visit([](auto* f) { return static_cast<const void*>(f); }, key->field(c));
      auto* begin = static_cast<const char*>(s.begin);
      EXPECT_TRUE(p >= begin && p < begin + s.size) << id(*key) << " points outside its section";
      EXPECT_TRUE(fields.insert(p).second) << id(*key) << " shares its field with another key";
      EXPECT_TRUE(names_seen.insert(key->name).second) << id(*key) << " is listed twice";
      EXPECT_FALSE(std::string(key->description).empty()) << id(*key);
    }
  }
}

TEST(ConfigKeys, EveryKeyRoundTripsThroughShowAndTheLoader) {
  Config changed;
  for (const auto& key : config_keys()) change(key, changed);
  Config again = load_config_text(to_toml_text(changed), "shown.toml", "");
  Config defaults;
  for (const auto& key : config_keys()) {
    EXPECT_FALSE(same_value(key.field(changed), key.field(defaults))) << id(key) << " was not changed";
    EXPECT_TRUE(same_value(key.field(again), key.field(changed))) << id(key) << " did not round-trip";
  }
}

TEST(ConfigKeys, TheStarterDefaultsUncommentedLoadAsTheDefaults) {
  // Every line of the starter's section blocks is "# " + TOML (the description is a TOML comment).
  std::string text = commented_defaults(), toml;
  for (size_t at = 0, end; at < text.size(); at = end + 1) {
    end = text.find('\n', at);
    std::string line = text.substr(at, end - at);
    toml += (line.rfind("# ", 0) == 0 ? line.substr(2) : line) + "\n";
  }
  Config loaded = load_config_text(toml, "starter.toml", ""), defaults;
  for (const auto& key : config_keys()) {
    std::string name = key.name;  // `tolerance.float32 = ...`: a table, one dotted line per entry
    bool listed = toml.find("\n" + name + " = ") != std::string::npos ||
                  toml.find("\n" + name + ".") != std::string::npos;
    EXPECT_TRUE(listed) << id(key) << " is not in the starter file";
    EXPECT_TRUE(same_value(key.field(loaded), key.field(defaults))) << id(key);
  }
}

TEST(ConfigKeys, ShowPrintsExactlyTheTableKeys) {
  auto json = nlohmann::json::parse(to_json_text(Config{}));
  std::set<std::string> top;
  for (const auto& item : json.items()) top.insert(item.key());
  std::set<std::string> expected(config_sections().begin(), config_sections().end());
  expected.insert("kernel");
  EXPECT_EQ(top, expected);
  for (const auto& section : config_sections()) {
    std::set<std::string> shown, listed;
    for (const auto& item : json[section].items()) shown.insert(item.key());
    for (const auto* key : keys_of(section)) listed.insert(key->name);
    EXPECT_EQ(shown, listed) << "[" << section << "]";
  }
}

TEST(ConfigKeys, TheReferenceDocumentsExactlyTheTableKeys) {
  // docs/configuration.md's "### `[section]`" tables: every backticked name in a row's first cell is a key.
  std::ifstream in(KB_SOURCE_DIR "/docs/configuration.md");
  ASSERT_TRUE(in);
  std::map<std::string, std::set<std::string>> documented;
  std::string line, section;
  while (std::getline(in, line)) {
    if (line.rfind("#", 0) == 0) {
      bool fixed = line.rfind("### `[", 0) == 0 && line.rfind("### `[[", 0) != 0;
      section = fixed ? line.substr(6, line.find(']') - 6) : "";
    } else if (!section.empty() && line.rfind("| `", 0) == 0) {
      std::string cell = line.substr(2, line.find(" |", 2) - 2);
      for (size_t open = cell.find('`'); open != std::string::npos; open = cell.find('`', open + 1)) {
        size_t close = cell.find('`', open + 1);
        documented[section].insert(cell.substr(open + 1, close - open - 1));
        open = close;
      }
    }
  }
  std::map<std::string, std::set<std::string>> listed;
  for (const auto& key : config_keys()) listed[key.section].insert(key.name);
  EXPECT_EQ(documented.size(), listed.size()) << "docs/configuration.md and the key table have different sections";
  for (const auto& [name, keys] : listed)
    EXPECT_EQ(documented[name], keys) << "docs/configuration.md table of [" << name << "]";
}

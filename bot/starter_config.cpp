#include "bot/starter_config.h"

#include <algorithm>
#include <set>

#include "config/config_writer.h"

namespace kb::embedded {
extern const char* const starter_header;
}

namespace kb::bot {
namespace {

struct Guess {
  std::string role, dtype, count, value, note;
};

bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

std::string element_dtype(const std::string& type) {
  if (contains(type, "double")) return "float64";
  if (contains(type, "__half") || contains(type, "half")) return "float16";
  if (contains(type, "bfloat16")) return "bfloat16";
  if (contains(type, "int64") || contains(type, "long")) return "int64";
  if (contains(type, "uint8") || contains(type, "unsigned char")) return "uint8";
  if (contains(type, "int8") || contains(type, "char")) return "int8";
  if (contains(type, "unsigned") || contains(type, "uint32")) return "uint32";
  if (contains(type, "int") || contains(type, "size_t")) return "int32";
  return "float32";
}

Guess guess(const cuda_source::ScannedParam& p, const std::string& count) {
  Guess g;
  bool pointer = contains(p.type, "*");
  g.dtype = element_dtype(p.type);
  if (pointer) {
    g.role = contains(p.type, "const") ? "input" : "output";
    g.count = count;
    g.note = g.role == "output" ? "check: output, or inout if the kernel also reads it; count guessed"
                                : "check: count guessed";
  } else if (g.dtype == "float32" || g.dtype == "float64" || g.dtype == "float16" || g.dtype == "bfloat16") {
    g.role = "scalar";
    g.value = "1.5";
    g.note = "check: a realistic value (omit `value` for a random one per trial)";
  } else {
    g.role = "size";
    g.value = p.name;
    if (g.dtype == "uint32" || g.dtype == "int8" || g.dtype == "uint8") g.dtype = "int32";
  }
  return g;
}

}  // namespace

std::string render_starter_config(const cuda_source::ScanResult& scan) {
  // The header's prose, then every global key at its default, from the config's key table.
  std::string out = kb::embedded::starter_header + config::commented_defaults();
  std::set<std::string> used_names;
  for (const auto& launcher : scan.launchers) {
    if (launcher.is_kernel) continue;  // device-side launches are not host entry points
    std::string name = launcher.name.substr(launcher.name.rfind(':') == std::string::npos ? 0 : launcher.name.rfind(':') + 1);
    if (name.rfind("launch_", 0) == 0) name = name.substr(7);
    std::string unique = name;
    for (int k = 2; !used_names.insert(unique).second; ++k) unique = name + "_" + std::to_string(k);

    // Size arguments: the integer scalars. Buffers are guessed to hold the product of them all.
    std::vector<std::string> sizes;
    for (const auto& p : launcher.params)
      if (!contains(p.type, "*") && !p.name.empty() && element_dtype(p.type) != "float32" &&
          element_dtype(p.type) != "float64")
        sizes.push_back(p.name);
    std::string count;
    for (const auto& s : sizes) count += (count.empty() ? "" : "*") + s;
    if (count.empty()) count = "n";

    std::string kernels;
    for (const auto& l : launcher.launches)
      if (!contains(kernels, l.kernel)) kernels += (kernels.empty() ? "" : ", ") + l.kernel;
    out += "# " + launcher.file + ":" + std::to_string(launcher.line) + ": launches " + kernels + "\n";
    out += "[[kernel]]\nname = \"" + unique + "\"\nsource = \"" + launcher.file + "\"\nlauncher = \"" +
           launcher.name + "\"\n";
    out += "sizes = [{ ";
    if (sizes.empty()) out += "n = 1048576";
    for (size_t i = 0; i < sizes.size(); ++i) out += (i ? ", " : "") + sizes[i] + " = " + (sizes.size() == 1 ? "1048576" : "1024");
    out += " }]   # check: realistic sizes; add more size sets\n";
    bool unnamed = false;
    for (size_t i = 0; i < launcher.params.size(); ++i) {
      const auto& p = launcher.params[i];
      Guess g = guess(p, count);
      std::string pname = p.name.empty() ? "arg" + std::to_string(i) : p.name;
      unnamed |= p.name.empty();
      out += "  [[kernel.arg]]   # " + p.type + (p.name.empty() ? "" : " " + p.name) + "\n";
      out += "  name = \"" + pname + "\"\n  role = \"" + g.role + "\"\n  dtype = \"" + g.dtype + "\"\n";
      if (!g.count.empty()) out += "  count = \"" + g.count + "\"\n";
      if (!g.value.empty())
        out += "  value = " + (g.role == "scalar" ? g.value : "\"" + g.value + "\"") + "\n";
      if (!g.note.empty()) out += "  # " + g.note + "\n";
    }
    if (unnamed) out += "# check: unnamed parameters were given placeholder names\n";
    out += "\n";
  }
  if (scan.launchers.empty())
    out += "# No launcher (a host function with a <<<...>>> launch) was found; add [[kernel]] tables by hand.\n";
  return out;
}

}  // namespace kb::bot

#include "bot/checks/output_read_check.h"

#include "bot/onboarding/param_evidence.h"
#include "cuda_source/reading/buffer_uses.h"

namespace kb::bot {

std::vector<OutputReadFirst> outputs_read_first(const config::KernelSpec& spec,
                                                const cuda_source::ScannedLauncher& function, bool is_global,
                                                const cuda_source::ScanResult& scan,
                                                const std::function<const std::string&(const std::string&)>& text_of) {
  std::map<std::string, cuda_source::BufferUses> uses;
  std::map<std::string, cuda_source::BufferAccess> set_first;  // by the launcher, before its kernels
  if (is_global) {
    const std::string& text = text_of(function.file);
    if (function.end > function.begin && function.end <= text.size())
      uses = cuda_source::buffer_uses({&text, function.file, function.begin, function.end, function.params},
                                      cuda_source::scanned_function_lookup(scan, text_of));
  } else {
    auto evidence = read_param_evidence(function, scan, text_of);
    uses = std::move(evidence.uses);
    set_first = std::move(evidence.set_by_launcher);
  }
  std::vector<OutputReadFirst> out;
  for (size_t i = 0; i < spec.args.size() && i < function.params.size(); ++i) {
    if (spec.args[i].role != ArgRole::output || set_first.count(function.params[i].name)) continue;
    auto u = uses.find(function.params[i].name);
    if (u == uses.end() || !u->second.read_before_written || !u->second.first_read) continue;
    const auto& read = *u->second.first_read;
    out.push_back({i, "the kernel reads '" + spec.args[i].name + "' before it writes it (" +
                          (read.file == function.file ? "" : read.file + ":") + read.where() +
                          "), but the judge fills an output with poison before each call, so the results compared "
                          "come from poison; role = \"inout\" gives it the values it reads"});
  }
  return out;
}

}  // namespace kb::bot

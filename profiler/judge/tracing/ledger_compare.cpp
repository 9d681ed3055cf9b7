#include "profiler/judge/tracing/ledger_compare.h"

#include <nlohmann/json.hpp>

#include "common/text.h"

namespace kb::judge {
std::string ledger_to_note(const Ledger& l) {
  nlohmann::json j = {{"calls", l.calls},
                      {"allocations", l.allocations},
                      {"allocated_bytes", l.allocated_bytes},
                      {"events", l.events},
                      {"streams", l.streams},
                      {"graphs", l.graphs},
                      {"graph_execs", l.graph_execs},
                      {"threads", l.threads},
                      {"pending_error", l.pending_error},
                      {"settings", l.changed_settings},
                      {"load_call", l.load.first_call},
                      {"load_allocations", l.load.allocations},
                      {"load_bytes", l.load.bytes}};
  return j.dump();
}

std::optional<Ledger> ledger_from_note(const std::string& note) {
  const nlohmann::json j = nlohmann::json::parse(note, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  try {
    Ledger l;
    l.calls = j.at("calls").get<int>();
    l.allocations = j.at("allocations").get<int64_t>();
    l.allocated_bytes = j.at("allocated_bytes").get<uint64_t>();
    l.events = j.at("events").get<int64_t>();
    l.streams = j.at("streams").get<int64_t>();
    l.graphs = j.at("graphs").get<int64_t>();
    l.graph_execs = j.at("graph_execs").get<int64_t>();
    l.threads = j.at("threads").get<int64_t>();
    l.pending_error = j.at("pending_error").get<std::string>();
    l.changed_settings = j.at("settings").get<std::map<std::string, std::string>>();
    l.load.first_call = j.at("load_call").get<std::string>();
    l.load.allocations = j.at("load_allocations").get<int64_t>();
    l.load.bytes = j.at("load_bytes").get<uint64_t>();
    return l;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

LedgerComparison compare_ledgers(const Ledger& original, const Ledger& candidate) {
  LedgerComparison c;
  const std::string over = " over " + plural_count(candidate.calls, "call");
  auto count = [&](int64_t cand, int64_t orig, const std::string& what, const std::string& left) {
    if (cand <= orig) return;
    c.differences.push_back(plural_count(cand, what) + " " + left + over + " (the original: " + std::to_string(orig) +
                            ")");
  };
  if (candidate.allocations > original.allocations)
    c.differences.push_back(plural_count(candidate.allocations, "allocation") + " (" +
                            std::to_string(candidate.allocated_bytes) + " bytes) made and never freed" + over +
                            " (the original: " + std::to_string(original.allocations) + ")");
  count(candidate.events, original.events, "event", "created and never destroyed");
  count(candidate.streams, original.streams, "stream", "created and never destroyed");
  count(candidate.graphs, original.graphs, "CUDA graph", "created and never destroyed");
  count(candidate.graph_execs, original.graph_execs, "executable CUDA graph", "instantiated and never destroyed");
  count(candidate.threads, original.threads, "host thread", "started and still running");
  if (candidate.free_memory_drop > original.free_memory_drop + kFreeMemorySlackBytes)
    c.differences.push_back("device memory in use grew by " + std::to_string(candidate.free_memory_drop >> 20) +
                            " MiB" + over + " (the original's by " +
                            std::to_string(std::max<int64_t>(0, original.free_memory_drop) >> 20) + " MiB)");
  for (const auto& [setting, change] : candidate.changed_settings)
    if (!original.changed_settings.contains(setting))
      c.differences.push_back("the device-wide setting " + setting + " changed (" + change +
                              ") and was not restored; the original leaves it alone");
  if (!candidate.load.first_call.empty() && original.load.first_call.empty())
    c.differences.push_back("its library calls CUDA when it is loaded (first " + candidate.load.first_call +
                            "), before the caller's program has chosen a device; the original's does not");
  else if (candidate.load.allocations > original.load.allocations)
    c.differences.push_back("its library makes " + plural_count(candidate.load.allocations, "allocation") + " (" +
                            std::to_string(candidate.load.bytes) + " bytes) when it is loaded (the original's: " +
                            std::to_string(original.load.allocations) + ")");
  if (original.pending_error != "kept")
    c.skipped.push_back("an error the caller left pending before a call: the original does not keep it (" +
                        original.pending_error + ")");
  else if (candidate.pending_error != "kept")
    c.differences.push_back("an error the caller left pending before the call was not kept (" +
                            candidate.pending_error + "); the original keeps it for the caller to see");
  return c;
}

}  // namespace kb::judge

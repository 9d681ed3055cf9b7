// The ledger of many calls (ledger_pass.h): what a variant's calls left behind in its process and
// on the device, and the comparison of the candidate's with the original's. Host-only, unit-tested
// without a GPU. Each count is what the calls created and did not release (api_ledger.h), so a
// launcher that keeps one buffer and reuses it counts nothing; only a difference from the
// original is held against the candidate, and a condition the original itself fails (it clears an
// error the caller left pending) is skipped.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kb::judge {

// What loading a variant's library did before any call (its static initializers), through the CUDA
// API: the first call it made ("" for none) and the allocations it left. A library that calls CUDA
// when it is loaded does so in the caller's program before main() has chosen a device or set its
// flags.
struct LibraryLoad {
  std::string first_call;
  int64_t allocations = 0;
  uint64_t bytes = 0;
};

struct Ledger {
  int calls = 0;
  int64_t allocations = 0;  // device, host-pinned and managed allocations left alive
  uint64_t allocated_bytes = 0;
  int64_t events = 0, streams = 0, graphs = 0, graph_execs = 0;
  int64_t threads = 0;  // host threads of the process
  // Device-wide settings the calls changed: "cudaLimitStackSize" -> "1024 -> 8192".
  std::map<std::string, std::string> changed_settings;
  // An error the caller left pending before one more call: "kept", "cleared", "replaced by
  // cudaErrorInvalidValue", "the launcher returned 1", "not tested: ...".
  std::string pending_error;
  LibraryLoad load;
  // Free device memory before the calls minus after, in bytes, as the judge saw it from its own
  // process (not part of the note: the variant's process does not report it).
  int64_t free_memory_drop = 0;
};

// The note a server sends (JSON, bounded by the wire's note size), and reading one back. The note
// comes from a process that ran variant code: a malformed one reads as nothing.
std::string ledger_to_note(const Ledger& l);
std::optional<Ledger> ledger_from_note(const std::string& note);

// Device memory a candidate's calls may take beyond the original's before it counts: the driver
// allocates in pages and grows a kernel's local memory once, so small differences are noise. The
// API counts catch every allocation the calls make; this catches what no API call shows.
inline constexpr int64_t kFreeMemorySlackBytes = 64ll << 20;

struct LedgerComparison {
  std::vector<std::string> differences;  // "2 events created and never destroyed over 20 calls (the original: 0)"
  std::vector<std::string> skipped;      // a condition the original itself fails
};
LedgerComparison compare_ledgers(const Ledger& original, const Ledger& candidate);

}  // namespace kb::judge

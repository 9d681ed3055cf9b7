// Calling a variant's kb_launch and attributing what goes wrong to the right party. While a
// call is in progress the process-wide crash guard knows who is running and where (trial, size),
// so a signal, an exit() from the launcher or a sticky CUDA error is reported as "candidate
// crashed ... during trial 2 at size n=1048576" instead of a bare core dump.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include "core/errors.h"

namespace kb::judge {

// `variant`: the variant a server serves. A server is not told whose variant it is (server_identity.h);
// the judge, which started it, knows and attributes what it reports.
enum class Who { harness, baseline, candidate, variant };
const char* to_string(Who who);

// A variant failed: a launch error, a fault while its work ran, or a non-zero kb_launch return.
// `sticky` means the CUDA context is unusable (illegal address and the like): nothing more can
// run in this process.
struct VariantFault : Error {
  VariantFault(Who w, bool s, const std::string& what) : Error(what), who(w), sticky(s) {}
  Who who;
  bool sticky;
};

using EntryFn = int (*)(void**);

// Installs handlers for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT (the first CallScope adds an
// atexit hook for launchers that call exit()). Inside a variant's work (Who::variant, in a server)
// they end the process with the neutral exit code server_identity.h names for it, and the judge
// prints the crash line; elsewhere they print one "kb-harness: <who> crashed: ..." line and end
// the process with exit code 3 (the candidate), 4 (the baseline) or 1 (the harness).
void install_crash_guard();

// Exit codes of kernelbot-harness.
inline constexpr int kExitOk = 0;
inline constexpr int kExitHarnessError = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitCandidateCrashed = 3;
inline constexpr int kExitBaselineCrashed = 4;

// Marks the code between construction and destruction as "inside <who>'s work during <phase>".
class CallScope {
 public:
  CallScope(Who who, const std::string& phase);
  ~CallScope();
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

 private:
  Who previous_who_;
};

// Sets the description of what the harness is doing ("verification trial 2 at size n=1024"),
// used by crash messages.
void set_phase(const std::string& phase);
const std::string& current_phase();

// Calls `fn(args)` inside a CallScope and checks its return value and the launch error state.
// Throws VariantFault.
void call_variant(EntryFn fn, void** args, Who who);

// Classifies `e`, returned by a synchronizing call made right after a variant's work: success
// does nothing; an error throws VariantFault for `who` (sticky when the context is lost).
void check_variant_sync(cudaError_t e, Who who, const char* what);

// "kb-harness: candidate crashed: <what> during <phase>" on stderr.
void print_crash_line(Who who, const std::string& what);

}  // namespace kb::judge

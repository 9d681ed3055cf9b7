#include "profiler/judge/runtime/variant_call.h"

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "profiler/judge/runtime/cuda_check.h"
#include "profiler/judge/runtime/server_identity.h"

namespace kb::judge {
namespace {

// Read by signal handlers: plain storage, no allocation there.
volatile sig_atomic_t g_who = static_cast<int>(Who::harness);
char g_phase_buf[512] = "startup";
std::string g_phase = "startup";

void write_all(const char* s) {
  size_t n = std::strlen(s);
  while (n > 0) {
    const ssize_t w = ::write(STDERR_FILENO, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

int exit_code_for(Who who) {
  switch (who) {
    case Who::candidate: return kExitCandidateCrashed;
    case Who::baseline: return kExitBaselineCrashed;
    case Who::harness: return kExitHarnessError;
    case Who::variant: return kExitVariantCalledExit;
  }
  return kExitHarnessError;
}

// Async-signal-safe: only write() and _exit().
void on_fatal_signal(int sig) {
  const Who who = static_cast<Who>(g_who);
  // A server's variant: the judge reads the signal from the exit code and prints the line.
  if (who == Who::variant) _exit(server_exit_code_for_signal(sig));
  write_all(who == Who::harness ? "kb-harness: internal error: " : "kb-harness: ");
  if (who != Who::harness) {
    write_all(to_string(who));
    write_all(" crashed: ");
  }
  const char* name = fatal_signal_name(sig);
  write_all(name ? name : "a fatal signal");
  write_all(" during ");
  write_all(g_phase_buf);
  write_all("\n");
  _exit(exit_code_for(who));
}

// A launcher that calls exit() would otherwise end the harness with exit code 0 and no result.
void on_exit_during_call() {
  const Who who = static_cast<Who>(g_who);
  if (who == Who::harness) return;
  if (who == Who::variant) _exit(kExitVariantCalledExit);  // the judge prints the line
  write_all("kb-harness: ");
  write_all(to_string(who));
  write_all(" crashed: it called exit() during ");
  write_all(g_phase_buf);
  write_all("\n");
  _exit(exit_code_for(who));
}

}  // namespace

const char* to_string(Who who) {
  switch (who) {
    case Who::harness: return "harness";
    case Who::baseline: return "baseline";
    case Who::candidate: return "candidate";
    case Who::variant: return "variant";
  }
  return "unknown";
}

void install_crash_guard() {
  struct sigaction sa {};
  sa.sa_handler = on_fatal_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) sigaction(sig, &sa, nullptr);
}

void set_phase(const std::string& phase) {
  g_phase = phase;
  std::snprintf(g_phase_buf, sizeof g_phase_buf, "%s", phase.c_str());
}

const std::string& current_phase() { return g_phase; }

CallScope::CallScope(Who who, const std::string& phase) : previous_who_(static_cast<Who>(g_who)) {
  // Registered at the first call, after the CUDA runtime registered its own teardown: atexit
  // handlers run in reverse order, so this one reports before the runtime is torn down.
  static const bool exit_hook = std::atexit(on_exit_during_call) == 0;
  (void)exit_hook;
  if (!phase.empty()) set_phase(phase);
  g_who = static_cast<int>(who);
}

CallScope::~CallScope() { g_who = static_cast<int>(previous_who_); }

void check_variant_sync(cudaError_t e, Who who, const char* what) {
  if (e == cudaSuccess) return;
  // A non-sticky error is cleared by cudaGetLastError; a sticky one poisons every later call.
  (void)cudaGetLastError();
  const bool sticky = cudaDeviceSynchronize() != cudaSuccess;
  throw VariantFault(who, sticky, describe_cuda_error(e) + (what && *what ? std::string(" ") + what : ""));
}

void call_variant(EntryFn fn, void** args, Who who) {
  int rc;
  {
    CallScope scope(who, "");
    rc = fn(args);
  }
  const cudaError_t launch = cudaPeekAtLastError();
  if (launch != cudaSuccess) check_variant_sync(launch, who, "at launch");
  if (rc != 0) throw VariantFault(who, false, "kb_launch returned " + std::to_string(rc));
}

void print_crash_line(Who who, const std::string& what) {
  std::fprintf(stderr, "kb-harness: %s crashed: %s during %s\n", to_string(who), what.c_str(), g_phase.c_str());
  std::fflush(stderr);
}

}  // namespace kb::judge

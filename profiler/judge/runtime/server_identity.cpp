#include "profiler/judge/runtime/server_identity.h"

#include <csignal>

namespace kb::judge {

std::vector<std::string> server_arguments(int device, bool verbose) {
  std::vector<std::string> args = {"/proc/self/exe", "--serve", "--fd", "3", "--device", std::to_string(device)};
  if (verbose) args.push_back("--verbose");
  return args;
}

int server_exit_code_for_signal(int sig) { return kExitVariantSignalBase + (sig > 0 && sig < 64 ? sig : 0); }

const char* fatal_signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV (segmentation fault)";
    case SIGBUS: return "SIGBUS (bus error)";
    case SIGILL: return "SIGILL (illegal instruction)";
    case SIGFPE: return "SIGFPE (arithmetic exception)";
    case SIGABRT: return "SIGABRT (abort)";
    default: return nullptr;
  }
}

std::string describe_server_exit(int code) {
  if (code == kExitVariantCalledExit) return "it called exit()";
  if (code == kExitVariantContextLost) return "its CUDA context was lost";
  if (const char* name = fatal_signal_name(code - kExitVariantSignalBase)) return name;
  return "exit code " + std::to_string(code);
}

bool server_exit_is_crash(int code) {
  // Only the signals the crash guard catches: 127 (execve failed) is 100 + 27, and no crash.
  return code == kExitVariantCalledExit || code == kExitVariantContextLost ||
         fatal_signal_name(code - kExitVariantSignalBase) != nullptr;
}

}  // namespace kb::judge

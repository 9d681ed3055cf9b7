// What a variant server learns about itself when the judge starts it: nothing that says whose
// variant it serves or that it is being judged. Both servers of a job get the same argv (below),
// the same environment (variant_process.cpp) and the same working directory; the job's text they
// receive names only their own library. The judge knows which process is which (it started them)
// and attributes their crashes itself, so a server ends with a neutral exit code that says how
// (a signal, exit() during a call) and the judge prints "kb-harness: candidate crashed: ...".
// Host-only, unit-tested without a GPU.
#pragma once

#include <string>
#include <vector>

namespace kb::judge {

// `kernelbot-harness --serve --fd 3 --device N [--verbose]`, as the judge starts either server:
// executed as /proc/self/exe, the name compute-sanitizer's process filter picks the servers by
// ("exe", profiler/evaluate/verdict/sanitizer_pass.h).
std::vector<std::string> server_arguments(int device, bool verbose);

// A server's exit codes when its variant ended it. Apart from the judge's own (0-4): a variant
// may exit with anything, and nothing it chooses turns into a verdict better than "crashed".
inline constexpr int kExitVariantCalledExit = 96;   // the launcher called exit()
inline constexpr int kExitVariantContextLost = 97;  // a sticky CUDA error (reported on the socket first)
inline constexpr int kExitVariantSignalBase = 100;  // + the caught signal's number (SIGSEGV: 111)

// "SIGSEGV (segmentation fault)" for the fatal signals a variant's crash raises (those the crash
// guard catches), nullptr for any other. Async-signal-safe: the crash guard's handler reads it.
const char* fatal_signal_name(int sig);
// The exit code for a fatal signal `sig` caught in a server.
int server_exit_code_for_signal(int sig);
// How a server's exit code reads in a crash line: "SIGSEGV (segmentation fault)", "it called
// exit()", "its CUDA context was lost", else "exit code N".
std::string describe_server_exit(int code);
// Whether `code` says the variant crashed its server (a signal, exit(), a lost context).
bool server_exit_is_crash(int code);

}  // namespace kb::judge

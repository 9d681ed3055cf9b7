// The one-time setup a variant library may carry ([project] setup_source, [[kernel]]
// setup_source): a repository source, compiled into the original's library and every candidate's
// alike, that defines
//
//   extern "C" int kb_setup(void);
//
// A variant server calls it once, right after loading the library and before any call, on the
// server's own CUDA context: it creates what the program's main() would have (a device-properties
// global, a cuBLASLt handle, a workspace, a lookup table copied to __constant__ memory). It
// returns 0 on success; anything else, or a CUDA error left pending when it returns, is the setup's
// failure: the original's is an infrastructure error of the original (the judge stops, no
// candidate is blamed), a candidate's (whose original set up fine) is its library failing to load.
// Both servers run it the same way: neither is told whose library it serves.
#pragma once

namespace kb {

inline constexpr const char* kSetupSymbol = "kb_setup";
using SetupFn = int (*)();

}  // namespace kb

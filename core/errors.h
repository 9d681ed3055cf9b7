// One error vocabulary for the whole program, thrown by whoever detects the problem and caught once,
// in main(), which maps it to the exit code. A candidate's faults are never errors: they are
// verdicts (core/result_types.h), values the search reasons about.
#pragma once

#include <stdexcept>

namespace kb {

// Exit code 1: the work failed (a tool, the GPU, the network, the repository).
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Exit code 2: the command line or the config is wrong; the user must change what they typed or
// wrote. (A ConfigError is one, carrying every diagnostic of the file.)
struct UsageError : Error {
  using Error::Error;
};

}  // namespace kb

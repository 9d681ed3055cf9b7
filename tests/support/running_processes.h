// Which processes run now, found by a marker in their command line (an unusual sleep duration,
// a test's own temporary directory in a compiler's arguments): how a test finds what a sandboxed
// child left behind, whatever process group, session or pid namespace it moved to.
#pragma once

#include <string>

namespace kb::test {

// How many live processes (zombies aside) have `marker` in their command line.
int processes_with(const std::string& marker);

// processes_with(marker) once the dying have had up to `seconds` to go.
int processes_left_with(const std::string& marker, double seconds = 1);

}  // namespace kb::test

// Kernel targets: a [[kernel]] that names the __global__ function itself (`global = "..."`)
// instead of a host launcher, for code that launches inline (from main(), or from functions
// whose parameters kernelbot cannot drive). The harness launches the kernel through the entry
// shim (profiler/evaluate/compile/global_launch.h) as
//
//   global<template_args><<<grid, block, shared_bytes, the harness's stream>>>(args...)
//
// where every expression is C++ evaluated in the shim with each [[kernel.arg]] bound by its name
// to the value the harness passes (a buffer's device pointer, a size's or scalar's value), and
// the grid and shared bytes may also read the block's components as block_x, block_y, block_z:
// a grid written as ceil_div(n, block_x) follows the block when the tuner changes it. ceil_div,
// min and max are available as in the config's own expressions.
#pragma once

#include <string>
#include <vector>

#include "config/config.h"

namespace kb::config {

// The names the shim binds besides the arguments: no [[kernel.arg]] of a kernel target may take one.
const std::vector<std::string>& kernel_target_reserved_names();

// "ceil_div(n, 256), rows" -> {"ceil_div(n, 256)", "rows"}: split at the commas outside brackets,
// each part trimmed. An empty text gives no parts.
std::vector<std::string> launch_components(const std::string& expression);

// Whether the expression reads a name (as a whole identifier, not inside another).
bool expression_reads(const std::string& expression, const std::string& name);

// One problem of a [[kernel]]'s target fields: the key it is about and what is wrong.
struct TargetProblem {
  std::string key;  // "launcher", "global", "grid", "arg[2].name"...
  std::string message;
};

// Exactly one of launcher and global; a kernel target needs grid and block (1-3 components
// each), takes no stream argument (the harness passes its own), and names its arguments as C++
// identifiers the shim can bind; a launcher target takes none of grid, block, shared_bytes,
// template_args.
std::vector<TargetProblem> kernel_target_problems(const KernelSpec& spec);

}  // namespace kb::config

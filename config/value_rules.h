// The rules a single written value must keep to be usable later, checked by the loader where the
// value is written so that `config check` rejects it at its own line instead of a git command, a
// compiler or the GPU failing far from the cause: a kernel's name (it becomes a file name under
// .kernelbot/results/ and a git branch name), a URL, a GPU architecture for nvcc, a size or scalar
// value within its C++ type, a literal launch within the device's limits. Each function returns why
// the value is wrong, or "" when it is fine (or cannot be judged here: a name, an unknown size).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "config/config.h"
#include "config/kernel_target.h"

namespace kb::config {

// A [[kernel]] name: [A-Za-z_][A-Za-z0-9_.-]*, without "..", a trailing '.' or ".lock", at most
// 100 characters, so that it is one path component and one component of a git ref.
std::string kernel_name_problem(const std::string& name);

// An http:// or https:// URL with a host (an optional port, path and query after it).
std::string url_problem(const std::string& url);

// An architecture nvcc accepts for -arch: sm_NN, compute_NN or NN (optionally with a or f), of a
// compute capability nvcc has known (5.0 to 12.1).
std::string gpu_arch_problem(const std::string& arch);

// A size or scalar argument's `value` at one size set: within the range of its dtype (the C++
// type of the parameter it is passed as; the launcher check matches the two), and never negative
// for a size. "" where the value has names no size set defines or is not an expression (reported
// elsewhere) or is empty.
std::string value_range_problem(const ArgSpec& arg, const std::map<std::string, int64_t>& sizes);

// A kernel target's launch components written as literal numbers (no names) that no GPU runs:
// a block of 0 or over 1024 threads, a dimension over 1024/1024/64, a grid of 0 or over
// 2^31-1 / 65535 / 65535, shared bytes below 0 or above 227 KiB. Components with names are
// evaluated by the shim at run time and not judged here.
std::vector<TargetProblem> launch_literal_problems(const KernelSpec& spec);

}  // namespace kb::config

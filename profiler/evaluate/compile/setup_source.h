// What the compiler adds to a variant library that carries a setup source ([project] or
// [[kernel]] setup_source; the contract is core/setup_contract.h).
#pragma once

#include <string>

namespace kb::profiler {

// Appended to the entry shim of such a library: a reference to kb_setup, so that a setup source
// that does not define it as extern "C" int kb_setup(void) (a misspelt name, C++ linkage) makes
// the library fail to load with "undefined symbol: kb_setup" (which `check --compile` explains)
// instead of the setup silently never running.
std::string setup_reference();

// The sentence `check --compile` adds when a library does not load for want of kb_setup.
std::string setup_symbol_missing_hint(const std::string& setup_source);

}  // namespace kb::profiler

// A compiled variant loaded into the harness: dlopen(RTLD_NOW | RTLD_LOCAL) and its kb_launch.
// The library stays loaded until the process ends: unloading a library that registered CUDA
// modules while its kernels may still be referenced is asking for trouble.
#pragma once

#include <stdexcept>
#include <string>

#include "core/errors.h"
#include "core/setup_contract.h"
#include "profiler/judge/runtime/variant_call.h"

namespace kb::judge {

// The library could not be loaded or lacks the entry symbol.
struct LibraryError : Error {
  using Error::Error;
};

struct VariantLibrary {
  std::string path;
  EntryFn entry = nullptr;
  SetupFn setup = nullptr;  // kb_setup when the library defines one (setup_source), run once after loading
};

// Throws LibraryError with dlerror()'s text.
VariantLibrary load_variant_library(const std::string& path);

}  // namespace kb::judge

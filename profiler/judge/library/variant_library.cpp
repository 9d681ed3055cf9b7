#include "profiler/judge/library/variant_library.h"

#include <dlfcn.h>

#include "core/harness_job.h"

namespace kb::judge {

VariantLibrary load_variant_library(const std::string& path) {
  VariantLibrary lib;
  lib.path = path;
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    throw LibraryError("cannot load " + path + ": " + (why ? why : "unknown dlopen error"));
  }
  dlerror();
  void* sym = dlsym(handle, kEntrySymbol);
  if (!sym) {
    const char* why = dlerror();
    throw LibraryError(path + " does not export " + kEntrySymbol + ": " + (why ? why : "symbol not found"));
  }
  lib.entry = reinterpret_cast<EntryFn>(sym);
  lib.setup = reinterpret_cast<SetupFn>(dlsym(handle, kSetupSymbol));  // optional: null without a setup source
  dlerror();
  return lib;
}

}  // namespace kb::judge

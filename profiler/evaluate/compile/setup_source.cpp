#include "profiler/evaluate/compile/setup_source.h"

#include "core/setup_contract.h"

namespace kb::profiler {

std::string setup_reference() {
  const std::string name = kSetupSymbol;
  return "\n// The library's one-time setup (setup_source), run by the server after loading it, before any call.\n"
         "extern \"C\" int " +
         name + "(void);\nstatic int (*volatile kb_setup_required)(void) __attribute__((used)) = &" + name + ";\n";
}

std::string setup_symbol_missing_hint(const std::string& setup_source) {
  return "the setup source " + setup_source + " must define extern \"C\" int " + kSetupSymbol +
         "(void) (C linkage, exactly that name; it returns 0 when the setup succeeded)";
}

}  // namespace kb::profiler

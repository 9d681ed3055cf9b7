#include "profiler/original_variant.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kb::profiler {

Variant original_variant(const config::Config& config, const config::KernelSpec& spec) {
  const auto path = config.resolve(spec.source);
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("kernel '" + spec.name + "': cannot read its source " + path.string());
  std::ostringstream text;
  text << f.rdbuf();
  return Variant{text.str(), {}, {}, "original"};
}

}  // namespace kb::profiler

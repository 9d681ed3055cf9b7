#include "profiler/evaluate/original_variant.h"

#include "common/file_io.h"
#include "core/errors.h"

namespace kb::profiler {

Variant original_variant(const config::Config& config, const config::KernelSpec& spec) {
  const auto path = config.resolve(spec.source);
  auto text = try_read_text_file(path);
  if (!text) throw Error("kernel '" + spec.name + "': cannot read its source " + path.string());
  return Variant{std::move(*text), {}, {}, "original"};
}

}  // namespace kb::profiler

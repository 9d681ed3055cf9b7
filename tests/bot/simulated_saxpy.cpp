#include "tests/bot/simulated_saxpy.h"

#include <filesystem>
#include <stdexcept>

#include "bot/change/reverify.h"
#include "bot/change/source_splicer.h"

namespace kb::testing {

SimCost saxpy_cost(SimBehaviour winner) {
  return [winner](const Variant& v) {
    if (v.source.find("saxpy_vec4_kernel") != std::string::npos) return winner;
    return SimBehaviour{100, false, false, false};
  };
}

void add_simulated_reverification(const config::Config& config, search::SearchResult& result, const SimCost& cost,
                                  const std::string& by) {
  const auto* spec = config.find_kernel(result.kernel);
  if (!spec || !result.best()) throw std::logic_error("the fixture has no kernel " + result.kernel + " or no winner");
  auto path = std::filesystem::relative(config.resolve(spec->source), config.root).generic_string();
  auto change = bot::make_source_change(path, result.original_source(), spec->launcher, result.best()->variant);
  SimulatedEvaluator gpu(cost);
  result.reverification = bot::reverify_pr_text(config, *spec, change, result.best_id, gpu, by);
}

}  // namespace kb::testing

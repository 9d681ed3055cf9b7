// The builtin tuner on examples/production/, the production-style example that has no macro for
// it: every op must offer the knob its launcher really has (the issue's "tuner that needs no
// annotations"), and a point's source must still compile as the op's file (checked by nvcc).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include "config/config_loader.h"
#include "profiler/evaluate/original_variant.h"
#include "search/builtin/tuning_space.h"

using namespace kb;
using namespace kb::search;

namespace {

const config::Config& production_config() {
  static const config::Config c = config::load_config(std::filesystem::path(KB_SOURCE_DIR) /
                                                      "examples/production/kernelbot.toml");
  return c;
}

// The dimension of `kind` the space of kernel `name` has (the first), or null.
std::optional<TuningDimension> knob(const std::string& name, TuningDimension::Kind kind,
                                    std::optional<TuningSpace>* out = nullptr) {
  const auto& c = production_config();
  const auto* spec = c.find_kernel(name);
  EXPECT_NE(spec, nullptr) << name;
  if (!spec) return std::nullopt;
  TuningSpaceOptions options;
  options.launch_bounds = false;
  auto space = TuningSpace::build(profiler::original_variant(c, *spec), *spec, options);
  if (out) *out = space;
  for (const auto& d : space.dimensions())
    if (d.kind == kind) return d;
  return std::nullopt;
}

}  // namespace

TEST(ProductionExampleSpace, TheLiteralBlockSizeOfBiasGelu) {
  auto d = knob("bias_gelu", TuningDimension::Kind::literal);
  ASSERT_TRUE(d) << "const int block_size = 32 was not offered";
  EXPECT_EQ(d->values[d->default_index], "32");
  EXPECT_GT(d->values.size(), 3u);
}

TEST(ProductionExampleSpace, TheDim3ShapeOfAddBias) {
  std::optional<TuningSpace> space;
  auto d = knob("add_bias", TuningDimension::Kind::literal, &space);
  ASSERT_TRUE(d) << "dim3 block(1, 256) was not offered";
  // Some valid point puts 32 or more threads along x: the shape that coalesces.
  bool coalescing_shape = false;
  for (const auto& p : space->enumerate(5000)) {
    Variant v = space->variant(p);
    if (v.source.find("dim3 block(32,") != std::string::npos || v.source.find("dim3 block(64,") != std::string::npos ||
        v.source.find("dim3 block(128,") != std::string::npos || v.source.find("dim3 block(256,") != std::string::npos)
      coalescing_shape = true;
  }
  EXPECT_TRUE(coalescing_shape);
}

TEST(ProductionExampleSpace, TheConstexprTemplateArgumentOfSoftmax) {
  auto d = knob("softmax", TuningDimension::Kind::literal);
  ASSERT_TRUE(d) << "constexpr int threads = 32 was not offered";
  EXPECT_EQ(d->values[d->default_index], "32");
}

TEST(ProductionExampleSpace, TheCallerChosenThreadsOfEmbeddingIsAnAdvisoryProbe) {
  auto d = knob("embedding", TuningDimension::Kind::argument);
  ASSERT_TRUE(d) << "the caller's `threads` (default argument 32) was not offered as a probe";
  EXPECT_EQ(d->values[d->default_index], "32");
  EXPECT_FALSE(knob("embedding", TuningDimension::Kind::literal)) << "nothing in the header is a PR-able literal";
}

TEST(ProductionExampleSpace, EveryKnobsEditedSourceCompiles) {
  const std::string compiler = KB_NVCC;
  const auto& c = production_config();
  for (const char* name : {"bias_gelu", "add_bias", "softmax", "embedding"}) {
    const auto* spec = c.find_kernel(name);
    ASSERT_NE(spec, nullptr);
    TuningSpaceOptions options;
    auto space = TuningSpace::build(profiler::original_variant(c, *spec), *spec, options);
    ASSERT_FALSE(space.empty()) << name;
    // One step from the original along every dimension.
    for (const auto& p : space.neighbours(space.default_point())) {
      Variant v = space.variant(p);
      auto dir = std::filesystem::temp_directory_path() / "kb_production_space";
      std::filesystem::create_directories(dir);
      // Written outside the repository (other tests scan examples/ in parallel); the ops
      // include their headers through -I, so the file's own directory does not matter.
      auto file = dir / ("probe_" + std::string(name) + ".cu");
      std::ofstream(file) << v.source;
      std::string cmd = compiler + " -std=c++17 -c -o " + (dir / "probe.o").string() + " -I" +
                        c.resolve("include").string() + " " + file.string();
      for (const auto& d : v.defines) cmd += " -D" + d;
      for (const auto& f : v.nvcc_flags) cmd += " " + f;
      int rc = std::system((cmd + " 2>" + (dir / "log.txt").string()).c_str());
      std::filesystem::remove(file);
      EXPECT_EQ(rc, 0) << name << ": " << space.describe(p) << "\n" << cmd;
    }
  }
}

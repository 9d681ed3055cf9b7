#include "config/config_writer.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config/config_loader.h"

TEST(ConfigWriter, ShowRoundTripsThroughTheLoader) {
  const char* text = R"([search]
rounds = 2
[github]
repository = "acme/gpu"
labels = ["perf"]
[[kernel]]
name = "k"
source = "k.cu"
launcher = "launch_k"
sizes = [{ n = 64 }]
tunables = { BLOCK = [64, 128] }
  [[kernel.arg]]
  name = "y"
  role = "output"
  dtype = "float16"
  count = "n"
  error_scale = "abs_inputs"
)";
  auto c = kb::config::load_config_text(text, "kernelbot.toml", "");
  std::string shown = kb::config::to_toml_text(c);
  // What `config show` prints is itself a valid config that means the same thing.
  auto again = kb::config::load_config_text(shown, "shown.toml", "");
  EXPECT_EQ(again.search.rounds, 2);
  EXPECT_EQ(again.github.repository, "acme/gpu");
  EXPECT_EQ(again.github.labels, std::vector<std::string>{"perf"});
  ASSERT_EQ(again.kernels.size(), 1u);
  EXPECT_EQ(again.kernels[0].args[0].dtype, kb::DType::float16);
  EXPECT_EQ(again.kernels[0].args[0].error_scale, "abs_inputs");
  EXPECT_EQ(again.kernels[0].tunables.at("BLOCK").size(), 2u);
  EXPECT_EQ(again.bench.max_noise, c.bench.max_noise);
  EXPECT_NE(shown.find("max_noise = 0.005"), std::string::npos) << shown;

  auto json = nlohmann::json::parse(kb::config::to_json_text(c));
  EXPECT_EQ(json["search"]["rounds"], 2);
  EXPECT_EQ(json["kernel"][0]["arg"][0]["dtype"], "float16");
}

TEST(ConfigWriter, ShowOfAConfigWithoutKernelsLoadsToo) {
  // Without kernels, show prints `kernel = []` (toml++ cannot tell an empty array of tables).
  std::string shown = kb::config::to_toml_text(kb::config::load_config_text("[search]\nrounds = 2\n", "k.toml", ""));
  EXPECT_NE(shown.find("kernel = []"), std::string::npos) << shown;
  EXPECT_EQ(kb::config::load_config_text(shown, "shown.toml", "").search.rounds, 2);
}

// The HarnessJob's JSON: typed roles, dtypes and modes travel under the names both sides know.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "core/harness_job.h"

namespace kb {
namespace {

using ::testing::HasSubstr;

TEST(HarnessJobJson, ModesTravelAsTheirNames) {
  for (JobMode mode : {JobMode::verify_and_time, JobMode::verify, JobMode::time_baseline, JobMode::metrics}) {
    HarnessJob job;
    job.mode = mode;
    const nlohmann::json j = job;
    EXPECT_EQ(j["mode"], to_string(mode));
    EXPECT_EQ(j.get<HarnessJob>().mode, mode);
  }
  EXPECT_STREQ(to_string(JobMode::time_baseline), "time_baseline");
  EXPECT_TRUE(mode_compares_candidate(JobMode::verify));
  EXPECT_FALSE(mode_compares_candidate(JobMode::metrics));
  EXPECT_EQ(nlohmann::json::object().get<HarnessJob>().mode, JobMode::verify_and_time) << "the default";
}

TEST(HarnessJobJson, AnUnknownModeNamesTheField) {
  try {
    nlohmann::json{{"mode", "benchmark"}}.get<HarnessJob>();
    ADD_FAILURE() << "no error";
  } catch (const nlohmann::json::exception& e) {
    EXPECT_THAT(e.what(), HasSubstr("job field mode: unknown mode 'benchmark' (expected verify_and_time, verify, "
                                    "time_baseline or metrics)"));
  }
}

TEST(HarnessJobJson, ArgumentsKeepTheirRoleAndDtype) {
  HarnessArg a;
  a.name = "y";
  a.role = ArgRole::inout;
  a.dtype = DType::bfloat16;
  a.counts = {4, 8};
  a.rtol = 1e-2;
  a.ranges = {{0, 3}};
  const nlohmann::json j = a;
  EXPECT_EQ(j["role"], "inout");
  EXPECT_EQ(j["dtype"], "bfloat16");
  const HarnessArg back = j.get<HarnessArg>();
  EXPECT_EQ(back.name, "y");
  EXPECT_EQ(back.role, ArgRole::inout);
  EXPECT_EQ(back.dtype, DType::bfloat16);
  EXPECT_EQ(back.counts, a.counts);
  EXPECT_EQ(back.rtol, 1e-2);
  EXPECT_EQ(back.ranges, a.ranges);

  HarnessArg stream;
  stream.name = "s";
  stream.role = ArgRole::stream;
  EXPECT_EQ(nlohmann::json(stream)["dtype"], "") << "a stream has no dtype on the wire";
  EXPECT_FALSE(nlohmann::json(stream).get<HarnessArg>().dtype.has_value());
}

TEST(HarnessJobJson, AnUnknownRoleOrDtypeNamesTheArgument) {
  auto error_of = [](const nlohmann::json& j) -> std::string {
    try {
      j.get<HarnessArg>();
    } catch (const nlohmann::json::exception& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_THAT(error_of({{"name", "y"}, {"role", "input"}, {"dtype", "float8"}}),
              HasSubstr("job field args ('y').dtype: unknown dtype 'float8'"));
  EXPECT_THAT(error_of({{"name", "s"}, {"role", "river"}}),
              HasSubstr("job field args ('s').role: unknown role 'river' (expected input, output, inout, scalar, "
                        "size, stream or workspace)"));
}

}  // namespace
}  // namespace kb

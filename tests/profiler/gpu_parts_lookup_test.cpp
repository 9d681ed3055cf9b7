// Finding the GPU parts kernelbot runs (kernelbot-harness, the CUPTI injection library): an
// override that is wrong is named, and when nothing is found the error says what to do, which
// for a build without CUPTI is to install it and rebuild, not to go looking for the file.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "core/errors.h"
#include "profiler/evaluate/jobs/harness_process.h"
#include "profiler/workload/workload_run.h"
#include "tests/support/scoped_env.h"

namespace {

using kb::testing::ScopedEnv;

// The error's message; "usage: " before it when it is a kb::UsageError (exit 2: the user set a
// variable wrong), nothing when it is a kb::Error (exit 1: the part is missing from this machine).
std::string error_of(std::string (*find)()) {
  try {
    return "found " + find();
  } catch (const kb::UsageError& e) {
    return std::string("usage: ") + e.what();
  } catch (const kb::Error& e) {
    return e.what();
  }
}

TEST(GpuPartsLookup, HarnessOverrideIsUsedOrNamedWhenWrong) {
  {
    ScopedEnv harness("KERNELBOT_HARNESS", "/bin/true");
    EXPECT_EQ(kb::profiler::find_harness(), "/bin/true");
  }
  ScopedEnv harness("KERNELBOT_HARNESS", "/no/such/kernelbot-harness");
  EXPECT_EQ(error_of(kb::profiler::find_harness),
            "usage: KERNELBOT_HARNESS=/no/such/kernelbot-harness is not an executable");
}

TEST(GpuPartsLookup, InjectLibraryOverrideIsUsedOrNamedWhenWrong) {
  {
    ScopedEnv inject("KERNELBOT_INJECT_LIBRARY", "/bin/true");
    EXPECT_EQ(kb::profiler::find_inject_library(), "/bin/true");
  }
  ScopedEnv inject("KERNELBOT_INJECT_LIBRARY", "/no/such/libkernelbot_inject.so");
  EXPECT_EQ(error_of(kb::profiler::find_inject_library),
            "usage: KERNELBOT_INJECT_LIBRARY=/no/such/libkernelbot_inject.so does not exist");
}

TEST(GpuPartsLookup, NothingFoundSaysWhatToDo) {
  // The test binary has no harness or injection library beside it, and PATH has none either.
  ScopedEnv harness("KERNELBOT_HARNESS", std::nullopt);
  ScopedEnv inject("KERNELBOT_INJECT_LIBRARY", std::nullopt);
  ScopedEnv path("PATH", "/nonexistent");
  const std::string no_harness = error_of(kb::profiler::find_harness);
  const std::string no_inject = error_of(kb::profiler::find_inject_library);
  EXPECT_EQ(no_harness.rfind("kernelbot-harness (the judge) not found", 0), 0u) << no_harness;  // exit 1
  EXPECT_EQ(no_inject.rfind("libkernelbot_inject.so (the CUPTI injection library) not found", 0), 0u) << no_inject;
  if (KB_HAVE_CUPTI) {
    EXPECT_NE(no_harness.find("set KERNELBOT_HARNESS"), std::string::npos) << no_harness;
    EXPECT_NE(no_inject.find("set KERNELBOT_INJECT_LIBRARY"), std::string::npos) << no_inject;
  } else {
    EXPECT_NE(no_harness.find("built without CUPTI"), std::string::npos) << no_harness;
    EXPECT_NE(no_inject.find("built without CUPTI"), std::string::npos) << no_inject;
  }
}

}  // namespace

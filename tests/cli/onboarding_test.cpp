// `kernelbot init` and `config check` as a new user meets them on a production-style codebase
// (tests/fixtures/production_style) and on the shipped examples: the generated file passes its
// own check with only TODOs to fill, and each mistake a hand-edited config can have against the
// source is reported with the config's and the source's file:line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "tests/support/kernelbot_process.h"

namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class Onboarding : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kb_onboard_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    fs::copy(fs::path(KB_SOURCE_DIR) / "tests/fixtures/production_style", dir_, fs::copy_options::recursive);
  }
  void TearDown() override { fs::remove_all(dir_); }
  kb::testing::KernelbotRun kernelbot(const std::string& args) { return kb::testing::run_kernelbot(args, dir_); }
  void write_config(const std::string& text) { std::ofstream(dir_ / "kernelbot.toml") << text; }
  fs::path dir_;
};

// A config for the fixture's ops::scale (float overload) with one line replaced.
std::string scale_config(const std::string& from = "", const std::string& to = "") {
  std::string text = R"([[kernel]]
name = "scale"
source = "ops.cu"
launcher = "ops::scale"
sizes = [{ n = 1048576 }]
  [[kernel.arg]]
  name = "x"
  role = "input"
  dtype = "float32"
  count = "n"
  [[kernel.arg]]
  name = "y"
  role = "output"
  dtype = "float32"
  count = "n"
  [[kernel.arg]]
  name = "s"
  role = "scalar"
  dtype = "float32"
  value = 2.0
  [[kernel.arg]]
  name = "n"
  role = "size"
  dtype = "int32"
  value = "n"
  [[kernel.arg]]
  name = "stream"
  role = "stream"
)";
  if (!from.empty()) {
    auto at = text.find(from);
    if (at == std::string::npos) ADD_FAILURE() << "no '" << from << "' in the config";
    else text.replace(at, from.size(), to);
  }
  return text;
}

}  // namespace

TEST_F(Onboarding, InitOnAProductionStyleCodebasePassesItsOwnCheckWithOnlyTodos) {
  auto r = kernelbot("init");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string text = read_file(dir_ / "kernelbot.toml");
  // 5 launcher tables, and kernel targets for the 2 kernels launched where no function can drive
  // them: main()'s and the one behind the struct-taking copy_with_workspace.
  EXPECT_NE(r.err.find(
                "7 kernel table(s) for 8 of the 6 launcher(s) and 2 kernel target(s) found (1 written commented out"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("2 of the tables are kernel targets"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--kernel PATTERN"), std::string::npos) << r.err;  // says how to narrow
  EXPECT_NE(r.err.find("macro defines a kernel or a launch"), std::string::npos) << r.err;

  // main() launches but is no launcher; launchers with default arguments and both overloads are.
  EXPECT_EQ(text.find("launcher = \"main\""), std::string::npos) << text;
  EXPECT_NE(text.find("global = \"fill_kernel\""), std::string::npos) << text;
  EXPECT_NE(text.find("global = \"copy_kernel\""), std::string::npos) << text;
  EXPECT_EQ(occurrences(text, "launcher = \"ops::scale\""), 2u) << text;
  EXPECT_NE(text.find("launcher = \"gather\""), std::string::npos);
  EXPECT_NE(text.find("launcher = \"transpose\""), std::string::npos);
  EXPECT_NE(text.find("launcher = \"relu\""), std::string::npos);
  // Counts from the indexing, never the product of every integer; TODO where it cannot tell.
  EXPECT_NE(text.find("count = \"rows*cols\""), std::string::npos) << text;
  EXPECT_NE(text.find("count = \"n*dim\""), std::string::npos) << text;
  EXPECT_EQ(text.find("n*dim*block_size"), std::string::npos);
  EXPECT_EQ(occurrences(text, "count = \"TODO\""), 2u) << text;  // gather's table, relu's x (a lambda's count)
  // Launch settings: the default argument, role scalar; streams get role stream.
  EXPECT_TRUE(
      std::regex_search(text,
                        std::regex("name = \"threads\"\n  role = \"scalar\"\n  dtype = \"int32\"\n  value = 256")))
      << text;
  EXPECT_TRUE(
      std::regex_search(text,
                        std::regex("name = \"block_size\"\n  role = \"scalar\"\n  dtype = \"int32\"\n  value = 128")));
  EXPECT_EQ(occurrences(text, "role = \"stream\""), 3u);
  // floatX resolved through the header's typedef, with the alternative named.
  EXPECT_NE(text.find("floatX is float at common.cuh:9 (#else of #if defined(ENABLE_BF16)); also defined as: "
                      "__nv_bfloat16"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("integer indices?"), std::string::npos);  // ids: a hint, not a field
  // The struct passed by value: the table is there, commented out, with the reason.
  EXPECT_NE(text.find("# Not written: parameter 'ws' (Workspace) cannot be driven"), std::string::npos) << text;
  EXPECT_NE(text.find("# launcher = \"copy_with_workspace\""), std::string::npos);

  auto check = kernelbot("config check");
  EXPECT_EQ(check.exit_code, 0) << check.err << "\n" << text;
  EXPECT_NE(check.out.find("ok (7 kernels); 2 fields still TODO"), std::string::npos) << check.out;
  EXPECT_TRUE(std::regex_search(
      check.out, std::regex(R"(kernelbot\.toml:\d+:\d+: TODO: kernel\[\d\]\.arg\[0\]\.count \(kernel 'gather'\))")))
      << check.out;

  // Commands that would run a kernel refuse the unfinished one, naming the field (before any GPU).
  for (const char* cmd : {"profile --kernel gather", "run --kernel gather", "search --kernel relu",
                          "eval --kernel relu --candidate ops.cu"}) {
    auto refused = kernelbot(cmd);
    EXPECT_EQ(refused.exit_code, 2) << cmd << "\n" << refused.err;
    EXPECT_NE(refused.err.find("still \"TODO\""), std::string::npos) << cmd << "\n" << refused.err;
    EXPECT_NE(refused.err.find(".count"), std::string::npos) << refused.err;
  }
}

TEST_F(Onboarding, InitKernelAndFileChooseTheTables) {
  auto r = kernelbot("init --stdout --kernel '*gath*'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(occurrences(r.out, "\n[[kernel]]\n"), 1u) << r.out;
  EXPECT_NE(r.out.find("launcher = \"gather\""), std::string::npos);
  r = kernelbot("init --stdout --kernel scale --kernel transpose");  // substrings, repeatable
  EXPECT_EQ(occurrences(r.out, "\n[[kernel]]\n"), 3u) << r.out;
  r = kernelbot("init --stdout --file app.cu");  // only main() there: its kernel as a kernel target
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(occurrences(r.out, "\n[[kernel]]\n"), 1u) << r.out;
  EXPECT_NE(r.out.find("global = \"fill_kernel\""), std::string::npos) << r.out;
  r = kernelbot("init --stdout --kernel no_such_thing");  // a choice that matches nothing
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("--kernel/--file matched none of the"), std::string::npos) << r.err;
  EXPECT_EQ(kernelbot("init --file no/such.cu").exit_code, 2);
}

// Nothing lost: a --force whose choice matches nothing leaves the file as it was; an overwrite
// keeps the previous file as kernelbot.toml.bak (then .bak.1, ...) and says so.
TEST_F(Onboarding, InitForceNeverLosesTheConfig) {
  write_config(scale_config());
  const std::string mine = read_file(dir_ / "kernelbot.toml");
  for (const char* narrowing :
       {"--kernel nosuchkernel", "--kernel scale --file app.cu", "--kernel '*zzz*' --file ops.cu"}) {
    auto r = kernelbot(std::string("init --force ") + narrowing);
    EXPECT_EQ(r.exit_code, 2) << narrowing << "\n" << r.err;
    EXPECT_NE(r.err.find("matched none of the"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("nothing was written"), std::string::npos) << r.err;
    EXPECT_EQ(read_file(dir_ / "kernelbot.toml"), mine) << narrowing;
    EXPECT_FALSE(fs::exists(dir_ / "kernelbot.toml.bak")) << narrowing;
  }
  auto r = kernelbot("init --force --kernel gather");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(dir_ / "kernelbot.toml.bak"), mine);
  EXPECT_NE(read_file(dir_ / "kernelbot.toml"), mine);
  EXPECT_NE(r.err.find("the previous kernelbot.toml is kept as"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kernelbot.toml.bak"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "kernelbot.toml.new"));
  // A second overwrite keeps the file it replaces (the one just written) in the next free name,
  // and the first backup stays.
  const std::string second = read_file(dir_ / "kernelbot.toml");
  ASSERT_EQ(kernelbot("init --force --kernel transpose").exit_code, 0);
  EXPECT_EQ(read_file(dir_ / "kernelbot.toml.bak"), mine);
  EXPECT_EQ(read_file(dir_ / "kernelbot.toml.bak.1"), second);
}

// An empty config, or a kernelbot.toml that is a directory, is an error for every command that
// reads one, not "ok (0 kernels)".
TEST_F(Onboarding, EmptyConfigOrADirectoryIsAnError) {
  for (const char* text : {"", "[search]\nrounds = 2\n", "# [[kernel]]\n# name = \"k\"\n"}) {
    write_config(text);
    for (const char* cmd : {"config check", "check", "check --compile"}) {
      auto r = kernelbot(cmd);
      EXPECT_EQ(r.exit_code, 2) << cmd << " on '" << text << "'\n" << r.out << r.err;
      EXPECT_EQ(r.out.find("ok ("), std::string::npos) << cmd << "\n" << r.out;
      EXPECT_NE(r.err.find("error: kernel: no [[kernel]] table"), std::string::npos) << cmd << "\n" << r.err;
    }
  }
  fs::remove(dir_ / "kernelbot.toml");
  fs::create_directories(dir_ / "kernelbot.toml");
  for (const char* cmd : {"config check", "check", "check --compile", "profile", "run --dry-run"}) {
    auto r = kernelbot(cmd);
    EXPECT_EQ(r.exit_code, 2) << cmd << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find("kernelbot.toml: error: is a directory, not a config file"), std::string::npos) << cmd << "\n"
                                                                                                         << r.err;
  }
  auto init = kernelbot("init --force");
  EXPECT_EQ(init.exit_code, 2) << init.err;
  EXPECT_NE(init.err.find("is a directory"), std::string::npos) << init.err;
  EXPECT_TRUE(fs::is_directory(dir_ / "kernelbot.toml"));
}

TEST_F(Onboarding, InitOnTheExamplesPassesConfigCheck) {
  fs::path examples = dir_ / "examples";
  fs::copy(fs::path(KB_SOURCE_DIR) / "examples", examples, fs::copy_options::recursive);
  fs::remove_all(examples / "production");  // the other example project: its own test below
  fs::remove_all(examples / ".kernelbot");
  auto r = kb::testing::run_kernelbot("init --force", examples);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string text = read_file(examples / "kernelbot.toml");
  EXPECT_NE(text.find("count = \"rows*cols\""), std::string::npos) << text;  // transpose, layernorm's row pointers
  EXPECT_EQ(text.find("count = \"TODO\""), std::string::npos)
      << text;  // every count of the examples is in their indexing
  // row_sum: out[idx / cols], zeroed by the launcher before the kernel's atomicAdd reads it.
  EXPECT_TRUE(std::regex_search(text, std::regex("name = \"out\"\n  role = \"output\"   # set by the launcher first: "
                                                 "[^\n]*\n  dtype = \"float32\"\n  count = \"rows\"")))
      << text;
  auto check = kb::testing::run_kernelbot("config check", examples);
  EXPECT_EQ(check.exit_code, 0) << check.err << "\n" << text;
  EXPECT_NE(check.out.find("ok (4 kernels)"), std::string::npos) << check.out;
}

// The issue's bar: init on a production-style codebase (streams, a bf16 typedef under a macro in
// a header found through an include directory, default arguments, overloads, a main() that
// launches) writes a file config check passes with only TODO counts to fill.
TEST_F(Onboarding, InitOnTheProductionExampleLeavesOnlyATodoCount) {
  fs::path prod = dir_ / "production";
  fs::copy(fs::path(KB_SOURCE_DIR) / "examples/production", prod, fs::copy_options::recursive);
  fs::remove(prod / "kernelbot.toml");
  fs::remove_all(prod / ".kernelbot");
  auto r = kb::testing::run_kernelbot("init", prod);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string text = read_file(prod / "kernelbot.toml");
  EXPECT_NE(text.find("include_dirs = [\"include\"]"), std::string::npos) << text;  // prod/ops.h lives in include/
  EXPECT_EQ(text.find("launcher = \"main\""), std::string::npos) << "main() is the program, not a launcher";
  EXPECT_EQ(occurrences(text, "launcher = \"softmax_forward\""), 2u) << "one table per overload";
  EXPECT_NE(text.find("dtype = \"bfloat16\""), std::string::npos) << "floatX resolved through its typedef";
  EXPECT_NE(text.find("check: floatX is __nv_bfloat16"), std::string::npos) << "the alias guess is noted";
  EXPECT_NE(text.find("name = \"stream\"\n  role = \"stream\""), std::string::npos);
  EXPECT_NE(text.find("name = \"threads\"\n  role = \"scalar\"\n  dtype = \"int32\"\n  value = 32"), std::string::npos)
      << "a launch setting gets its default argument, not a size";
  EXPECT_TRUE(std::regex_search(
      text,
      std::regex("name = \"bias\"\n  role = \"input\"   # read only: [^\n]*\n  dtype = \"bfloat16\"\n  count = \"C\"")))
      << "bias[i % C] holds C elements\n"
      << text;
  auto check = kb::testing::run_kernelbot("config check", prod);
  EXPECT_EQ(check.exit_code, 0) << check.err << "\n" << text;
  EXPECT_NE(check.out.find("1 field still TODO"), std::string::npos) << check.out;  // the table's rows (vocab)
  EXPECT_NE(check.out.find("kernel[0].arg[2].count (kernel 'embedding_forward')"), std::string::npos) << check.out;
}

TEST_F(Onboarding, AHandWrittenConfigThatFitsTheSourcePasses) {
  write_config(scale_config());
  auto r = kernelbot("config check");
  EXPECT_EQ(r.exit_code, 0) << r.err;  // threads (defaulted, at the end) may be left out
  EXPECT_EQ(r.out.find("TODO"), std::string::npos);
}

TEST_F(Onboarding, ConfigCheckFindsEachMismatchWithTheSource) {
  struct Case {
    std::string from, to, expected;
  };
  std::vector<Case> cases = {
      {"launcher = \"ops::scale\"", "launcher = \"ops::scael\"",
       "kernelbot.toml:4:12: error: kernel[0].launcher: no function 'ops::scael' is defined in ops.cu (did you mean "
       "'ops::scale'?)"},
      {"  [[kernel.arg]]\n  name = \"n\"\n  role = \"size\"\n  dtype = \"int32\"\n  value = \"n\"\n", "",
       "missing [[kernel.arg]] for parameter #4 'n' of ops::scale (ops.cu:11: `int n`)"},
      {"name = \"x\"\n  role = \"input\"\n  dtype = \"float32\"",
       "name = \"x\"\n  role = \"output\"\n  dtype = \"float32\"",
       "kernelbot.toml:8:10: error: kernel[0].arg[0].role: role \"output\" on a const pointer: the kernel cannot write "
       "through it (ops.cu:11: `const floatX* x`)"},
      {"name = \"stream\"\n  role = \"stream\"", "name = \"stream\"\n  role = \"scalar\"\n  dtype = \"int32\"",
       "kernel[0].arg[4].role: a cudaStream_t parameter needs role = \"stream\", not \"scalar\" (ops.cu:11"},
      {"name = \"s\"\n  role = \"scalar\"\n  dtype = \"float32\"\n  value = 2.0", "name = \"s\"\n  role = \"stream\"",
       "kernel[0].arg[2].role: role \"stream\" needs a cudaStream_t parameter (ops.cu:11: `float s`)"},
      // A count past the GPU's memory: n itself fits the launcher's `int n`, the count is the config's.
      {"sizes = [{ n = 1048576 }]\n  [[kernel.arg]]\n  name = \"x\"\n  role = \"input\"\n  dtype = \"float32\"\n"
       "  count = \"n\"",
       "sizes = [{ n = 1048576 }, { n = 40000000 }]\n  [[kernel.arg]]\n  name = \"x\"\n  role = \"input\"\n"
       "  dtype = \"float32\"\n  count = \"n * 1000\"",
       "kernel[0].sizes[1]: the buffers of size set n=40000000 take 149.2 GiB, more than"},
      // A size the launcher's `int n` cannot hold.
      {"sizes = [{ n = 1048576 }]", "sizes = [{ n = 1048576 }, { n = 40000000000 }]",
       "kernel[0].arg[3].value: \"n\" is 40000000000, outside the range of int32 (int)"},
      {"name = \"x\"\n  role = \"input\"\n  dtype = \"float32\"\n  count = \"n\"\n  [[kernel.arg]]\n  name = \"y\"",
       "name = \"y\"\n  role = \"input\"\n  dtype = \"float32\"\n  count = \"n\"\n  [[kernel.arg]]\n  name = \"x\"",
       "kernelbot.toml:7:10: error: kernel[0].arg[0].name: 'y' is parameter #2 of ops::scale, but it stands at #1"},
  };
  for (const auto& c : cases) {
    write_config(scale_config(c.from, c.to));
    auto r = kernelbot("config check");
    EXPECT_EQ(r.exit_code, 2) << c.expected << "\n" << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << "expected: " << c.expected << "\ngot:\n" << r.err;
  }
}

TEST_F(Onboarding, ConfigCheckMatchesDtypesThroughTypedefsAndPicksTheOverload) {
  // The int overload of ops::scale: float32 for its int* is an error naming the element type.
  std::string ints = R"([[kernel]]
name = "scale_int"
source = "ops.cu"
launcher = "ops::scale"
sizes = [{ n = 1024 }]
  [[kernel.arg]]
  name = "x"
  role = "input"
  dtype = "int32"
  count = "n"
  [[kernel.arg]]
  name = "y"
  role = "output"
  dtype = "DTYPE"
  count = "n"
  [[kernel.arg]]
  name = "s"
  role = "scalar"
  dtype = "int32"
  value = 3
  [[kernel.arg]]
  name = "n"
  role = "size"
  dtype = "int32"
  value = "n"
)";
  std::string good = std::regex_replace(ints, std::regex("DTYPE"), "int32");
  write_config(good);
  auto r = kernelbot("config check");
  EXPECT_EQ(r.exit_code, 0) << r.err;  // four arguments fit both overloads; the types pick the int one
  write_config(std::regex_replace(ints, std::regex("DTYPE"), "float32"));
  r = kernelbot("config check");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("kernelbot.toml:14:11: error: kernel[0].arg[1].dtype: dtype \"float32\" does not match the "
                       "parameter's element type 'int' (int32) (ops.cu:20: `int* y`)"),
            std::string::npos)
      << r.err;

  // Through the typedef: floatX is float in a plain build, so bfloat16 does not match it.
  write_config(scale_config("name = \"y\"\n  role = \"output\"\n  dtype = \"float32\"",
                            "name = \"y\"\n  role = \"output\"\n  dtype = \"bfloat16\""));
  r = kernelbot("config check");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("kernel[0].arg[1].dtype: dtype \"bfloat16\" does not match the parameter's element type "
                       "'float' (float32); floatX is float at common.cuh:9"),
            std::string::npos)
      << r.err;
}

TEST_F(Onboarding, DiscoverListsLaunchersWithDefaultArgumentsAndOverloads) {
  auto r = kernelbot("--json discover .");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  size_t scales = 0;
  for (const auto& l : j["launchers"]) {
    if (l["name"] == "ops::scale") ++scales;
    if (l["name"] == "ops::scale" && l["params"].size() == 6) {
      EXPECT_EQ(l["params"][4]["type"], "cudaStream_t");
      EXPECT_EQ(l["params"][4]["default"], "0");
      EXPECT_EQ(l["params"][5]["default"], "256");
    }
  }
  EXPECT_EQ(scales, 2u) << r.out;
  for (const auto& s : j["skipped"])
    EXPECT_EQ(s["message"].get<std::string>().find("outside any function"), std::string::npos) << s;
  auto text = kernelbot("discover .");
  EXPECT_NE(text.out.find("cudaStream_t stream = 0, int threads = 256"), std::string::npos) << text.out;
}

// One validation: every command that acts on the kernels rejects what `config check` rejects,
// with the same message, before compiling or looking for a GPU.
TEST_F(Onboarding, EveryCommandAppliesTheSameValidation) {
  struct Case {
    std::string from, to, expected;
  };
  const std::vector<Case> cases = {
      {"launcher = \"ops::scale\"", "launcher = \"ops::scael\"",
       "kernelbot.toml:4:12: error: kernel[0].launcher: no function 'ops::scael' is defined in ops.cu"},
      {"name = \"x\"\n  role = \"input\"", "name = \"x\"\n  role = \"output\"",
       "kernel[0].arg[0].role: role \"output\" on a const pointer"},
      {"  count = \"n\"\n  [[kernel.arg]]\n  name = \"y\"", "  count = \"n - 2*n\"\n  [[kernel.arg]]\n  name = \"y\"",
       "kernelbot.toml:10:11: error: kernel[0].arg[0].count: expression \"n - 2*n\" is negative (-1048576) at size set "
       "n=1048576"},
  };
  for (const auto& c : cases) {
    write_config(scale_config(c.from, c.to));
    for (const char* cmd : {"config check", "check", "check --compile", "profile", "run --dry-run"}) {
      auto r = kernelbot(cmd);
      EXPECT_EQ(r.exit_code, 2) << cmd << "\n" << r.out << r.err;
      EXPECT_NE(r.err.find(c.expected), std::string::npos) << cmd << "\nexpected: " << c.expected << "\n" << r.err;
      EXPECT_EQ(r.out.find("ok ("), std::string::npos) << cmd << "\n" << r.out;
      EXPECT_EQ(r.err.find("compiling"), std::string::npos) << cmd << ": validated before compiling\n" << r.err;
    }
  }
  write_config(scale_config());
  auto ok = kernelbot("check");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("ok (1 kernel)"), std::string::npos) << ok.out;
}

// A buffer's count must be a positive element count whose bytes fit in 64 bits at every size set;
// the error names the field and the count's own line, not the [[kernel.arg]] header.
TEST_F(Onboarding, ConfigCheckRejectsCountsThatAreNotElementCounts) {
  struct Case {
    std::string count, sizes, expected;
  };
  const std::vector<Case> cases = {
      {"-4", "{ n = 1024 }", "expression \"-4\" is negative (-4) at size set n=1024"},
      {"n - 1024", "{ n = 4096 }, { n = 1024 }",
       "\"n - 1024\" is 0 elements: a buffer needs at least one at size "
       "set n=1024"},
      {"0", "{ n = 1024 }", "\"0\" is 0 elements"},
      {"n*n*n*n", "{ n = 1024 }, { n = 70000 }",
       "in expression \"n*n*n*n\" at column 8: integer overflow at size set "
       "n=70000"},
      {"2*n*n*n", "{ n = 1048576 }",
       "\"2*n*n*n\" is 2305843009213693952 elements, whose bytes overflow 64 bits at size set n=1048576"},
  };
  for (const auto& c : cases) {
    std::string text = scale_config("  count = \"n\"\n  [[kernel.arg]]\n  name = \"y\"",
                                    "  count = \"" + c.count + "\"\n  [[kernel.arg]]\n  name = \"y\"");
    const std::string one_set = "sizes = [{ n = 1048576 }]";
    write_config(text.replace(text.find(one_set), one_set.size(), "sizes = [" + c.sizes + "]"));
    auto r = kernelbot("config check");
    EXPECT_EQ(r.exit_code, 2) << c.count << "\n" << r.err;
    EXPECT_NE(r.err.find("kernelbot.toml:10:11: error: kernel[0].arg[0].count: " + c.expected), std::string::npos)
        << c.count << "\nexpected: " << c.expected << "\n"
        << r.err;
  }
}

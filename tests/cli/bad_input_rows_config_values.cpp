// Rows of the bad-input table: values in kernelbot.toml, every kind the loader judges (names,
// sizes, URLs, architectures, tunables, template_args, launch dimensions, numbers with bounds,
// choices, arguments, paths), each refused by `config check` at its line and field.
#include "tests/cli/bad_input_case.h"

namespace kb::testing {
namespace {

// The valid config with `old` replaced by `bad`: refused at the line of `bad`, naming `field`,
// saying `why`.
BadInputRow kernel_value(std::string name, const std::string& old, const std::string& bad, const std::string& field,
                         const std::string& why) {
  const std::string text = config_with(old, bad);
  return {std::move(name),
          "config check",
          {text_file("kernelbot.toml", text)},
          2,
          {position_of(text, bad), field + ": ", why}};
}

// The same, where the error's line is not the one `bad` starts on (a table's header, a later line).
BadInputRow kernel_value_at(std::string name, int line, const std::string& old, const std::string& bad,
                            const std::string& field, const std::string& why) {
  BadInputRow row = kernel_value(std::move(name), old, bad, field, why);
  row.messages.front() = "kernelbot.toml:" + std::to_string(line) + ":";
  return row;
}

// `section` ("[llm]") with the one line `bad` before the valid config: refused at line 2.
BadInputRow section_value(std::string name, const std::string& section, const std::string& bad,
                          const std::string& field, const std::string& why) {
  const std::string text = config_with_section(section + "\n" + bad + "\n");
  return {std::move(name),
          "config check",
          {text_file("kernelbot.toml", text)},
          2,
          {"kernelbot.toml:2:", field + ": ", why}};
}

// A section-level error about a key that is not written (or a section itself): at the header.
BadInputRow section_value_at(std::string name, int line, const std::string& section, const std::string& bad,
                             const std::string& field, const std::string& why) {
  BadInputRow row = section_value(std::move(name), section, bad, field, why);
  row.messages.front() = "kernelbot.toml:" + std::to_string(line) + ":";
  return row;
}

std::vector<BadInputRow> name_rows() {
  const std::string old = "name = \"relu\"";
  const std::string rule = "a kernel's name names its results directory";
  return {
      kernel_value("NameLeavesTheRepository", old, "name = \"../../tmp/evil\"", "kernel[0].name", rule),
      kernel_value("NameEmpty", old, "name = \"\"", "kernel[0].name", "must not be empty"),
      kernel_value("NameWithASpace", old, "name = \"relu fast\"", "kernel[0].name", "contains ' '"),
      kernel_value("NameOutsideAscii", old, "name = \"relu\u2713\"", "kernel[0].name", "a character outside ASCII"),
      kernel_value("NameStartsWithADigit", old, "name = \"1relu\"", "kernel[0].name",
                   "must start with a letter or '_'"),
      kernel_value("NameEndsInLock", old, "name = \"relu.lock\"", "kernel[0].name",
                   "which git refuses in a branch name"),
      kernel_value("NameEndsInADot", old, "name = \"relu.\"", "kernel[0].name", "ends in '.'"),
      kernel_value("NameTooLong", old, "name = \"" + std::string(101, 'r') + "\"", "kernel[0].name",
                   "is 101 characters long; at most 100"),
      kernel_value("NameNotAString", old, "name = 7", "kernel[0].name", "expected a string, got an integer"),
      kernel_value_at("NameTwice", 21, "name = \"scale\"", "name = \"relu\"", "kernel[1].name",
                      "duplicate kernel name 'relu'"),
  };
}

std::vector<BadInputRow> size_rows() {
  const std::string old = "sizes = [{ n = 4096 }]\ntunables";
  auto sizes = [&](const std::string& name, const std::string& bad, const std::string& field, const std::string& why) {
    return kernel_value(name, old, bad + "\ntunables", field, why);
  };
  auto sizes_at = [&](const std::string& name, int line, const std::string& bad, const std::string& field,
                      const std::string& why) {
    return kernel_value_at(name, line, old, bad + "\ntunables", field, why);
  };
  return {
      sizes("SizeZero", "sizes = [{ n = 0 }]", "kernel[0].sizes[0].n", "expected a positive integer"),
      sizes("SizeNegative", "sizes = [{ n = -4 }]", "kernel[0].sizes[0].n", "expected a positive integer"),
      sizes("SizeAString", "sizes = [{ n = \"big\" }]", "kernel[0].sizes[0].n", "expected a positive integer"),
      sizes("SizeAFraction", "sizes = [{ n = 1.5 }]", "kernel[0].sizes[0].n", "expected a positive integer"),
      sizes("SizesNotAnArray", "sizes = 4096", "kernel[0].sizes", "expected an array of tables"),
      sizes("SizeSetNotATable", "sizes = [4096]", "kernel[0].sizes[0]", "expected a table of sizes, got an integer"),
      // Said at the field whose expression names it, not at the size set.
      sizes_at("SizeSetWithoutTheName", 11, "sizes = [{ m = 4096 }]", "kernel[0].arg[0].count",
               "\"n\" names n, which no size set defines (the sizes: m)"),
      sizes_at("SizeOverInt32", 16, "sizes = [{ n = 4294967296 }]", "kernel[0].arg[1].value",
               "outside the range of int32"),
      sizes_at("SizeRuleBroken", 6, "sizes = [{ n = 4096 }]\nsize_rules = { n = { multiple_of = 3 } }",
               "kernel[0].sizes[0].n", "n = 4096"),
      sizes_at("SizeRuleMinAboveMax", 6, "sizes = [{ n = 4096 }]\nsize_rules = { n = { min = 64, max = 32 } }",
               "kernel[0].size_rules.n", "min = 64 is above max = 32"),
      sizes_at("SizeRuleForNoSize", 6, "sizes = [{ n = 4096 }]\nsize_rules = { m = { multiple_of = 2 } }",
               "kernel[0].size_rules.m", "no size set defines 'm'"),
  };
}

std::vector<BadInputRow> url_rows() {
  const std::string llm = "[llm]\nprovider = \"openai-compatible\"\nmodel = \"m\"\napi_key_env = \"\"";
  auto base_url = [&](const std::string& name, const std::string& url, const std::string& why) {
    const std::string text = config_with_section(llm + "\nbase_url = \"" + url + "\"\n");
    return BadInputRow{
        name, "config check", {text_file("kernelbot.toml", text)}, 2, {"kernelbot.toml:5:", "llm.base_url: ", why}};
  };
  return {
      base_url("UrlWithoutScheme", "localhost:8000/v1", "is not a URL"),
      base_url("UrlFtp", "ftp://models.example.com/v1", "has the scheme 'ftp'"),
      base_url("UrlWithoutHost", "http:///v1", "has no host"),
      base_url("UrlWithSpace", "http://models example.com/v1", "contains white space"),
      base_url("UrlPortTooLarge", "http://localhost:99999/v1", "has a port that is not a number from 1 to 65535"),
      base_url("UrlBadHost", "http://mod$els/v1", "has a host with characters no host name has"),
      section_value("GithubApiUrlNotAUrl", "[github]", "api_url = \"github.example.com/api/v3\"", "github.api_url",
                    "is not a URL"),
  };
}

std::vector<BadInputRow> arch_rows() {
  const std::string forms = "write it as sm_80, sm_90a, compute_86 or 86";
  return {
      section_value("ArchNative", "[project]", "cuda_arch = \"native\"", "project.cuda_arch",
                    "is an nvcc keyword, not an architecture"),
      section_value("ArchGibberish", "[project]", "cuda_arch = \"ampere\"", "project.cuda_arch",
                    "\"ampere\" is not a GPU architecture"),
      section_value("ArchTooOld", "[project]", "cuda_arch = \"sm_30\"", "project.cuda_arch",
                    "which nvcc has no code generator for"),
      section_value("ArchSpecificBeforeHopper", "[project]", "cuda_arch = \"sm_80a\"", "project.cuda_arch",
                    "architecture-specific ('a') targets begin with sm_90a"),
      section_value("ArchFamilyBeforeBlackwell", "[project]", "cuda_arch = \"sm_90f\"", "project.cuda_arch",
                    "family ('f') targets begin with sm_100f"),
      section_value("TargetArchAll", "[project]", "target_archs = [\"sm_80\", \"all\"]", "project.target_archs[1]",
                    "is an nvcc keyword"),
      section_value("TargetArchNotAString", "[project]", "target_archs = [80]", "project.target_archs[0]",
                    "expected a string, got an integer"),
      section_value("TargetArchTypo", "[project]", "target_archs = [\"sm80\"]", "project.target_archs[0]", forms),
  };
}

std::vector<BadInputRow> tunable_rows() {
  const std::string old = "tunables = { BLOCK = [128, 256] }";
  return {
      kernel_value("TunableTheSourceNeverReads", old, "tunables = { BLOCK = [128], TILE = [4, 8] }",
                   "kernel[0].tunables.TILE", "TILE appears nowhere in src/relu.cu"),
      kernel_value("TunableEmpty", old, "tunables = { BLOCK = [] }", "kernel[0].tunables.BLOCK",
                   "expected a non-empty array of values"),
      kernel_value("TunableNotAnArray", old, "tunables = { BLOCK = 128 }", "kernel[0].tunables.BLOCK",
                   "expected a non-empty array of values"),
      kernel_value("TunableAFraction", old, "tunables = { BLOCK = [128, 0.5] }", "kernel[0].tunables.BLOCK",
                   "expected integers or strings, got a number"),
      kernel_value("TunablesNotATable", old, "tunables = [\"BLOCK\"]", "kernel[0].tunables",
                   "expected a table, got an array"),
  };
}

std::vector<BadInputRow> launch_rows() {
  return {
      kernel_value("TemplateArgsOnALauncher", "tunables = { BLOCK = [128, 256] }", "template_args = \"float\"",
                   "kernel[0].template_args", "applies to kernel targets"),
      kernel_value("TemplateArgsTooMany", "template_args = \"float, 256\"", "template_args = \"float, 256, 3\"",
                   "kernel[1].template_args", "takes 2"),
      kernel_value("TemplateArgsNotAString", "template_args = \"float, 256\"", "template_args = [\"float\"]",
                   "kernel[1].template_args", "expected a string, got an array"),
      kernel_value("BlockZero", "block = \"256\"", "block = \"0\"", "kernel[1].block",
                   "block.x = 0: each block dimension is 1 to 1024"),
      kernel_value("BlockTooLarge", "block = \"256\"", "block = \"2048\"", "kernel[1].block",
                   "block.x = 2048: each block dimension is 1 to 1024"),
      kernel_value("BlockTooManyThreads", "block = \"256\"", "block = \"64, 64\"", "kernel[1].block",
                   "is 4096 threads per block; a GPU runs at most 1024"),
      kernel_value("BlockZTooLarge", "block = \"256\"", "block = \"1, 1, 128\"", "kernel[1].block",
                   "block.z = 128: each block dimension is 1 to 64"),
      kernel_value("BlockFourComponents", "block = \"256\"", "block = \"1, 1, 1, 1\"", "kernel[1].block",
                   "expected 1-3 components \"x, y, z\", got 4"),
      kernel_value("BlockEmptyComponent", "block = \"256\"", "block = \"256,\"", "kernel[1].block",
                   "a component is empty"),
      kernel_value("GridZero", "grid = \"ceil_div(n, 256)\"", "grid = \"0\"", "kernel[1].grid",
                   "grid.x = 0: the grid's x dimension is 1 to 2147483647"),
      kernel_value("GridYTooLarge", "grid = \"ceil_div(n, 256)\"", "grid = \"1, 70000\"", "kernel[1].grid",
                   "grid.y = 70000: the grid's y dimension is 1 to 65535"),
      kernel_value("SharedBytesNegative", "shared_bytes = \"0\"", "shared_bytes = \"-1\"", "kernel[1].shared_bytes",
                   "dynamic shared memory is 0 to 232448 (227 KiB) per block"),
      kernel_value("SharedBytesTooLarge", "shared_bytes = \"0\"", "shared_bytes = \"300000\"", "kernel[1].shared_bytes",
                   "\"300000\" bytes: dynamic shared memory is 0 to 232448"),
      kernel_value("SharedBytesTwoExpressions", "shared_bytes = \"0\"", "shared_bytes = \"1, 2\"",
                   "kernel[1].shared_bytes", "expected one expression (bytes of dynamic shared memory)"),
      kernel_value("GlobalAndLauncher", "global = \"scale_kernel\"",
                   "global = \"scale_kernel\"\nlauncher = \"launch_relu\"", "kernel[1].global",
                   "give either 'launcher'"),
      kernel_value("GlobalNotInTheSource", "global = \"scale_kernel\"", "global = \"scale_kernl\"", "kernel[1].global",
                   "no __global__ function 'scale_kernl' is defined in src/relu.cu (did you mean 'scale_kernel'?)"),
      kernel_value("LauncherNotInTheSource", "launcher = \"launch_relu\"", "launcher = \"launch_rleu\"",
                   "kernel[0].launcher",
                   "no function 'launch_rleu' is defined in src/relu.cu (did you mean 'launch_relu'?)"),
  };
}

// Numbers with bounds and strings with a fixed set of values, in the fixed sections.
std::vector<BadInputRow> setting_rows() {
  return {
      section_value("LlmTimeoutText", "[llm]", "timeout_s = \"fast\"", "llm.timeout_s",
                    "expected a number, got a string"),
      section_value("LlmTimeoutZero", "[llm]", "timeout_s = 0", "llm.timeout_s", "must be greater than zero"),
      section_value("LlmConcurrencyNegative", "[llm]", "concurrency = -1", "llm.concurrency",
                    "must be greater than zero"),
      section_value("LlmMaxRetriesNegative", "[llm]", "max_retries = -1", "llm.max_retries", "must be zero or more"),
      section_value("LlmContextTooSmall", "[llm]", "context_tokens = 100", "llm.context_tokens",
                    "must be 0 (unknown) or at least 4096"),
      section_value("LlmProviderUnknown", "[llm]", "provider = \"anthropic\"", "llm.provider",
                    "'anthropic' is not one of: openai-compatible, none"),
      section_value("LlmApiKeyHeaderWithSpace", "[llm]", "api_key_header = \"api key\"", "llm.api_key_header",
                    "must be a header name"),
      section_value("LlmSendTemperatureUnknown", "[llm]", "send_temperature = \"sometimes\"", "llm.send_temperature",
                    "is not one of: auto, true, false"),
      section_value("LlmStreamNotABoolean", "[llm]", "stream = \"yes\"", "llm.stream",
                    "expected a boolean, got a string"),
      section_value("LlmExtraHeadersNotStrings", "[llm]", "extra_headers = { X-Retry = 3 }",
                    "llm.extra_headers.X-Retry", "expected a string, got an integer"),
      section_value("SearchRoundsZero", "[search]", "rounds = 0", "search.rounds", "must be greater than zero"),
      section_value("SearchRoundsAFraction", "[search]", "rounds = 1.5", "search.rounds",
                    "expected an integer, got a number"),
      section_value("SearchMaxCandidatesZero", "[search]", "max_candidates = 0", "search.max_candidates",
                    "0 does not mean unlimited here"),
      section_value("SearchMaxWallTimeZero", "[search]", "max_wall_time_s = 0", "search.max_wall_time_s",
                    "0 does not mean unlimited here"),
      section_value("SearchMaxTokensNegative", "[search]", "max_tokens = -5", "search.max_tokens",
                    "must be zero or more"),
      section_value("SearchProposerUnknown", "[search]", "proposer = \"magic\"", "search.proposer",
                    "'magic' is not one of: auto, llm, builtin, replay"),
      section_value_at("SearchReplayWithoutFile", 1, "[search]", "proposer = \"replay\"", "search.replay_file",
                       "missing required field 'replay_file'"),
      section_value("SearchScreenMarginBelowOne", "[search]", "screen_margin = 0.5", "search.screen_margin",
                    "must be 1.0 or more"),
      section_value("SearchUnknownKeyWithSuggestion", "[search]", "roundz = 3", "search.roundz",
                    "unknown key 'roundz' in [search] (did you mean 'rounds'?)"),
      section_value("VerifyTrialsZero", "[verify]", "trials = 0", "verify.trials", "must be greater than zero"),
      section_value("VerifySandboxUnknown", "[verify]", "sandbox = \"docker\"", "verify.sandbox",
                    "'docker' is not one of: namespaces, process"),
      section_value("VerifyNoDistributions", "[verify]", "distributions = []", "verify.distributions",
                    "needs at least one distribution"),
      section_value("VerifyDistributionUnknown", "[verify]", "distributions = [\"gaussian\"]", "verify.distributions",
                    "'gaussian' is not one of"),
      section_value("VerifyToleranceBadDtype", "[verify]", "tolerance = { float33 = { rtol = 1e-3 } }",
                    "verify.tolerance.float33", "'float33' is not a dtype"),
      section_value("VerifyToleranceNegative", "[verify]", "tolerance = { float32 = { rtol = -1.0 } }",
                    "verify.tolerance.float32", "rtol and atol must not be negative"),
      section_value("BenchMinSpeedupBelowOne", "[bench]", "min_speedup = 0.9", "bench.min_speedup",
                    "must be 1.0 or more"),
      section_value("BenchMaxSamplesBelowMin", "[bench]", "max_samples = 1", "bench.max_samples",
                    "must be at least min_samples"),
      section_value("BenchTimeoutNegative", "[bench]", "timeout_s = -2", "bench.timeout_s",
                    "must be greater than zero"),
      section_value("GithubRepositoryWithoutOwner", "[github]", "repository = \"kernelbot\"", "github.repository",
                    "expected \"owner/name\", got \"kernelbot\""),
      section_value("GithubMaxOpenPrsZero", "[github]", "max_open_prs = 0", "github.max_open_prs",
                    "must be greater than zero"),
      section_value("GithubLabelsNotStrings", "[github]", "labels = [1, 2]", "github.labels[0]",
                    "expected a string, got an integer"),
      section_value("ProjectUnknownKey", "[project]", "include_dir = [\"src\"]", "project.include_dir",
                    "did you mean 'include_dirs'?"),
      section_value("ProjectIncludeDirMissing", "[project]", "include_dirs = [\"no_such_dir\"]",
                    "project.include_dirs[0]", "directory not found"),
      section_value("ProjectIncludeDirIsAFile", "[project]", "include_dirs = [\"src/relu.cu\"]",
                    "project.include_dirs[0]", "not a directory"),
      section_value("ProjectPreludeMissing", "[project]", "prelude = [\"no_such.h\"]", "project.prelude[0]",
                    "file not found"),
      section_value("ProjectSetupSourceMissing", "[project]", "setup_source = \"no_setup.cu\"", "project.setup_source",
                    "file not found"),
      section_value("ProjectCompileCommandsMissing", "[project]", "compile_commands = \"build/cc.json\"",
                    "project.compile_commands", "file not found"),
      section_value_at("UnknownSection", 1, "[serach]", "rounds = 3", "serach", "unknown key 'serach'"),
  };
}

// [[kernel.arg]] tables.
std::vector<BadInputRow> arg_rows() {
  return {
      kernel_value("ArgRoleUnknown", "role = \"inout\"", "role = \"inplace\"", "kernel[0].arg[0].role",
                   "'inplace' is not one of"),
      kernel_value("ArgDtypeUnknown", "dtype = \"float32\"", "dtype = \"float33\"", "kernel[0].arg[0].dtype",
                   "'float33' is not one of"),
      kernel_value_at("ArgCountMissing", 7, "  count = \"n\"\n", "  distribution = \"normal\"\n",
                      "kernel[0].arg[0].count", "missing required field 'count'"),
      kernel_value("ArgCountSyntax", "count = \"n\"", "count = \"n *\"", "kernel[0].arg[0].count", "n *"),
      kernel_value_at("ArgSizeWithAFloatDtype", 15, "dtype = \"int32\"", "dtype = \"float32\"",
                      "kernel[0].arg[1].dtype", "a size argument needs an integer dtype"),
      kernel_value("ArgValueOutOfRange", "value = \"n\"", "value = \"n * 1048576\"", "kernel[0].arg[1].value",
                   "outside the range of int32 (int)"),
      kernel_value_at("ArgStreamWithADtype", 20, "role = \"stream\"", "role = \"stream\"\n  dtype = \"float32\"",
                      "kernel[0].arg[2].dtype", "a stream argument takes no 'dtype'"),
      kernel_value_at("ArgDuplicateName", 12, "name = \"n\"", "name = \"x\"", "kernel[0].arg[1].name",
                      "duplicate argument name 'x'"),
      kernel_value_at("ArgRangeOnAFloat", 12, "count = \"n\"", "count = \"n\"\n  range = [0, 10]",
                      "kernel[0].arg[0].range", "range applies to integer inputs"),
      kernel_value_at("ArgErrorScaleOnASize", 17, "value = \"n\"", "value = \"n\"\n  error_scale = \"abs_inputs\"",
                      "kernel[0].arg[1].error_scale", "error_scale applies to outputs"),
      kernel_value_at("ArgNoOutput", 1, "role = \"inout\"", "role = \"input\"", "kernel[0].arg",
                      "needs at least one argument "
                      "with role \"output\" or \"inout\""),
      {"ArgStreamOnAKernelTarget",
       "config check",
       {text_file("kernelbot.toml", valid_config() + "  [[kernel.arg]]\n  name = \"s\"\n  role = \"stream\"\n")},
       2,
       {"kernel[1].arg[2].role: ", "a kernel target takes no stream argument"}},
  };
}

std::vector<BadInputRow> config_value_rows() {
  std::vector<BadInputRow> rows;
  for (auto part :
       {name_rows(), size_rows(), url_rows(), arch_rows(), tunable_rows(), launch_rows(), setting_rows(), arg_rows()})
    rows.insert(rows.end(), part.begin(), part.end());
  return rows;
}

}  // namespace

INSTANTIATE_TEST_SUITE_P(ConfigValues, BadInputTable, ::testing::ValuesIn(config_value_rows()), row_name);

}  // namespace kb::testing

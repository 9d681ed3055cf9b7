// Rows of the bad-input table: files that are not what they seem. A config, source, extra source,
// candidate or program that is a FIFO, a device, a directory, a symlink out of the repository or
// nowhere, unreadable or huge; bad TOML; stdout on a full disk or a closed pipe; writes refused.
#include "tests/cli/bad_input_case.h"

namespace kb::testing {
namespace {

constexpr std::uintmax_t kMiB = std::uintmax_t{1} << 20;

// The config's own failures, for each command that reads it: none blocks, none reads a device.
std::vector<BadInputRow> config_file_rows() {
  const std::vector<std::pair<std::string, std::string>> commands = {
      {"ConfigCheck", "config check"},
      {"ConfigShow", "config show"},
      {"Check", "check"},
      {"CheckCompile", "check --compile"},
      {"Eval", "eval --kernel relu --candidate src/relu.cu"},
      {"Profile", "profile"},
      {"Search", "search --kernel relu"},
      {"Run", "run --dry-run"},
      {"Pr", "pr --kernel relu --dry-run"},
  };
  std::vector<BadInputRow> rows;
  // Every command meets a FIFO (the one input that could hang it); the other kinds take turns.
  for (size_t i = 0; i < commands.size(); ++i) {
    const auto& [name, args] = commands[i];
    rows.push_back({"FifoConfig" + name,
                    args,
                    {fifo_file("kernelbot.toml")},
                    2,
                    {"kernelbot.toml: error: cannot read", "it is a FIFO (named pipe), not a regular file"}});
    if (i % 2 == 0)
      rows.push_back({"UnreadableConfig" + name,
                      args,
                      {unreadable_file("kernelbot.toml", valid_config())},
                      2,
                      {"kernelbot.toml: error: cannot read", "Permission denied"}});
    else
      rows.push_back({"BadTomlConfig" + name,
                      args,
                      {text_file("kernelbot.toml", "[[kernel]\nname = \"relu\"\n")},
                      2,
                      {"kernelbot.toml:1:"}});
  }
  for (const auto& [name, args] : std::vector<std::pair<std::string, std::string>>{{"ConfigCheck", "config check"},
                                                                                   {"Eval", commands[4].second}}) {
    rows.push_back({"DevZeroConfig" + name,
                    args,
                    {symlink_file("kernelbot.toml", "/dev/zero")},
                    2,
                    {"(a symlink to /dev/zero): it is a character device, not a regular file"}});
    rows.push_back(
        {"DirectoryConfig" + name, args, {directory_file("kernelbot.toml")}, 2, {"is a directory, not a config file"}});
    rows.push_back({"HugeConfig" + name,
                    args,
                    {huge_file("kernelbot.toml", valid_config() + "# ", 65 * kMiB)},
                    2,
                    {"it is larger than the 64 MiB limit for this file"}});
  }
  rows.push_back({"ConfigFlagNamesDevZero",
                  "--config /dev/zero config check",
                  {},
                  2,
                  {"/dev/zero: error: cannot read", "it is a character device, not a regular file"}});
  rows.push_back({"ConfigFlagNamesAFifo",
                  "--config ci.fifo check",
                  {fifo_file("ci.fifo")},
                  2,
                  {"it is a FIFO (named pipe), not a regular file"}});
  rows.push_back({"ConfigSymlinkLoop",
                  "config check",
                  {symlink_file("kernelbot.toml", "loop.toml"), symlink_file("loop.toml", "kernelbot.toml")},
                  2,
                  {"Too many levels of symbolic links"}});
  rows.push_back({"ConfigSymlinkToNowhere",
                  "--config kernelbot.toml config check",
                  {symlink_file("kernelbot.toml", "gone.toml")},
                  2,
                  {"cannot read the config file: no such file"}});
  return rows;
}

// TOML that does not parse: each names its line.
std::vector<BadInputRow> bad_toml_rows() {
  const std::vector<std::tuple<std::string, std::string, std::string>> texts = {
      {"UnclosedString", "[search]\nrounds = 3\nproposer = \"builtin\n", "kernelbot.toml:3:"},
      {"DuplicateKey", "[search]\nrounds = 3\nrounds = 4\n", "kernelbot.toml:3:"},
      {"KeyWithoutValue", "[search]\nrounds =\n", "kernelbot.toml:2:"},
      {"ValueWithoutKey", "[search]\n= 3\n", "kernelbot.toml:2:"},
      {"UnclosedArray", "[project]\nnvcc_flags = [\"-O3\"\n\n[search]\n", "kernelbot.toml:"},
      {"TableTwice", "[search]\nrounds = 3\n[search]\nrounds = 4\n", "kernelbot.toml:3:"},
      {"NulBytes", std::string("[search]\nrounds = 3\0\0\n", 22), "kernelbot.toml:2:"},
      {"InvalidUtf8", "[search]\nproposer = \"\xff\xfe\"\n", "kernelbot.toml:2:"},
  };
  std::vector<BadInputRow> rows;
  for (const auto& [name, text, where] : texts)
    rows.push_back({"Toml" + name, "config check", {text_file("kernelbot.toml", text)}, 2, {where}});
  return rows;
}

// Sources, extra sources, candidates and programs that cannot be read as files.
std::vector<BadInputRow> source_rows() {
  const std::string opted_in = "[project]\nsources_outside_root = true\n\n";
  auto source_is = [&](const std::string& source) {
    return opted_in + replaced(valid_config(), "source = \"src/relu.cu\"", "source = \"" + source + "\"");
  };
  return {
      {"SourceIsAFifo",
       "config check",
       {fifo_file("src/fifo.cu"), text_file("kernelbot.toml", source_is("src/fifo.cu"))},
       2,
       {"kernel[0].source: cannot read", "it is a FIFO (named pipe), not a regular file"}},
      {"SourceIsDevZero",
       "config check",
       {symlink_file("src/zero.cu", "/dev/zero"), text_file("kernelbot.toml", source_is("src/zero.cu"))},
       2,
       {"kernel[0].source: cannot read", "it is a character device"}},
      {"SourceIsADirectory",
       "config check",
       {directory_file("src/dir.cu"), text_file("kernelbot.toml", source_is("src/dir.cu"))},
       2,
       {"kernel[0].source: cannot read", "it is a directory, not a regular file"}},
      {"SourceIsUnreadable",
       "config check",
       {unreadable_file("src/secret.cu", "// x\n"), text_file("kernelbot.toml", source_is("src/secret.cu"))},
       2,
       {"kernel[0].source: cannot read", "Permission denied"}},
      {"SourceIsHuge",
       "config check",
       {huge_file("src/huge.cu", "// x\n", 17 * kMiB), text_file("kernelbot.toml", source_is("src/huge.cu"))},
       2,
       {"kernel[0].source: cannot read", "it is larger than the 16 MiB limit for this file"}},
      {"SourceIsMissing",
       "config check",
       {text_file("kernelbot.toml", config_with("source = \"src/relu.cu\"", "source = \"src/gone.cu\""))},
       2,
       {"kernelbot.toml:3:", "kernel[0].source: ", "file not found"}},
      {"SourceOutsideByDotDot",
       "config check",
       {text_file("kernelbot.toml", config_with("source = \"src/relu.cu\"", "source = \"../outside.cu\""))},
       2,
       {"kernel[0].source: \"../outside.cu\" resolves outside the repository", "sources_outside_root = true"}},
      {"SourceOutsideBySymlink",
       "config check",
       {symlink_file("src/link.cu", "{outside}/outside.cu"),
        text_file("kernelbot.toml", config_with("source = \"src/relu.cu\"", "source = \"src/link.cu\""))},
       2,
       {"kernel[0].source: ", "\"src/link.cu\" resolves outside the repository"}},
      {"SourceLinkedToDevZeroIsOutside",
       "check",
       {symlink_file("src/zero.cu", "/dev/zero"),
        text_file("kernelbot.toml", config_with("source = \"src/relu.cu\"", "source = \"src/zero.cu\""))},
       2,
       {"resolves outside the repository (/dev/zero)"}},
      {"ExtraSourceIsAFifo",
       "config check",
       {fifo_file("src/extra.cu"),
        text_file("kernelbot.toml", config_with("launcher = \"launch_relu\"",
                                                "launcher = \"launch_relu\"\nextra_sources = [\"src/extra.cu\"]"))},
       2,
       {"kernel[0].extra_sources: cannot read", "FIFO"}},
      {"ExtraSourceOutside",
       "config check",
       {text_file("kernelbot.toml", config_with_section("[project]\nextra_sources = [\"../outside.cu\"]\n"))},
       2,
       {"kernelbot.toml:2:", "project.extra_sources[0]: ", "\"../outside.cu\" resolves outside the repository"}},
      {"CandidateIsAFifo",
       "eval --kernel relu --candidate cand.cu",
       {fifo_file("cand.cu")},
       2,
       {"the candidate: cannot read cand.cu", "it is a FIFO (named pipe)"}},
      {"CandidateIsDevZero",
       "eval --kernel relu --candidate zero.cu",
       {symlink_file("zero.cu", "/dev/zero")},
       2,
       {"the candidate: cannot read zero.cu", "it is a character device"}},
      {"CandidateIsUnreadable",
       "eval --kernel relu --candidate cand.cu",
       {unreadable_file("cand.cu", "// x\n")},
       2,
       {"--candidate cand.cu: not a file it can read", "Permission denied"}},
      {"CandidateIsHuge",
       "eval --kernel relu --candidate cand.cu",
       {huge_file("cand.cu", "// x\n", 17 * kMiB)},
       2,
       {"--candidate cand.cu: not a file it can read", "16 MiB"}},
      {"CandidateDanglingSymlink",
       "eval --kernel relu --candidate cand.cu",
       {symlink_file("cand.cu", "gone.cu")},
       2,
       {"--candidate cand.cu: no such file"}},
      {"ReplayIsAFifo",
       "search --kernel relu --replay replies.jsonl",
       {fifo_file("replies.jsonl")},
       2,
       {"the replay file for kernel 'relu': cannot read", "it is a FIFO (named pipe), not a regular file"}},
      {"ReplayIsNotJson",
       "search --kernel relu --replay replies.jsonl",
       {text_file("replies.jsonl", "{\"step\": \"ideas\", \"key\": \"k\", \"reply\": \"x\"}\nnot json\n")},
       2,
       {"replies.jsonl:2: not valid JSON"}},
      {"ReplayExchangeWithoutItsFields",
       "search --kernel relu --replay replies.jsonl",
       {text_file("replies.jsonl", "{\"step\": \"ideas\"}\n")},
       2,
       {"replies.jsonl:1: an exchange needs string fields step, key and reply"}},
      {"ProfileProgramIsAFifo", "profile -- ./app", {fifo_file("app")}, 2, {"profile -- ./app: not executable"}},
  };
}

// Output that cannot be written, and files init must not write through.
std::vector<BadInputRow> write_rows() {
  std::vector<BadInputRow> rows;
  for (const auto& [name, args] : std::vector<std::pair<std::string, std::string>>{{"ConfigShow", "config show"},
                                                                                   {"ConfigCheck", "config check"},
                                                                                   {"Check", "check"},
                                                                                   {"Discover", "discover"},
                                                                                   {"InitStdout", "init --stdout"},
                                                                                   {"Version", "version"}}) {
    rows.push_back({"FullDisk" + name,
                    args,
                    {},
                    1,
                    {"kernelbot: error: cannot write to standard output: No space left on device"},
                    RowStdout::dev_full});
    rows.push_back({"ClosedPipe" + name,
                    args,
                    {},
                    1,
                    {"kernelbot: error: cannot write to standard output: Broken pipe"},
                    RowStdout::closed_pipe});
  }
  rows.push_back({"InitForceOverASymlinkedConfig",
                  "init --force",
                  {symlink_file("kernelbot.toml", "{outside}/outside.toml")},
                  1,
                  {"kernelbot.toml: it is a symlink"}});
  rows.push_back({"InitWithoutForceKeepsTheConfig",
                  "init --kernel launch_relu",
                  {text_file("kernelbot.toml", "# my own config\n")},
                  2,
                  {"exists already; pass --force to overwrite it"}});
  return rows;
}

std::vector<BadInputRow> file_rows() {
  std::vector<BadInputRow> rows;
  for (auto part : {config_file_rows(), bad_toml_rows(), source_rows(), write_rows()})
    rows.insert(rows.end(), part.begin(), part.end());
  return rows;
}

}  // namespace

INSTANTIATE_TEST_SUITE_P(Files, BadInputTable, ::testing::ValuesIn(file_rows()), row_name);

}  // namespace kb::testing

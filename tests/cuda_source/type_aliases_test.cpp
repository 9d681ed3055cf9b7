#include "cuda_source/reading/type_aliases.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using kb::cuda_source::AliasReader;
using kb::cuda_source::resolve_type;

namespace {

AliasReader read(const std::string& text, std::set<std::string> defined = {}) {
  AliasReader r;
  r.defined = std::move(defined);
  r.read_text(text, "t.cuh");
  return r;
}

const char* const bf16_switch = R"(
#if defined(ENABLE_BF16)
typedef __nv_bfloat16 floatX;   // bf16 builds
#else
typedef float floatX;
#endif
)";

}  // namespace

TEST(TypeAliases, TakesTheBranchAPlainBuildTakesAndKeepsTheAlternatives) {
  auto r = read(bf16_switch);
  const auto& a = r.aliases.at("floatX");
  EXPECT_EQ(a.chosen, "float");
  EXPECT_TRUE(a.in_default_build);
  EXPECT_TRUE(a.branch_known);
  EXPECT_EQ(a.line, 5);
  EXPECT_NE(a.condition.find("#else of #if defined(ENABLE_BF16)"), std::string::npos) << a.condition;
  EXPECT_EQ(a.alternatives, (std::vector<std::string>{"__nv_bfloat16", "float"}));
  EXPECT_EQ(resolve_type("const floatX *", r.aliases), "const float *");
}

TEST(TypeAliases, ADefineBeforeTheSwitchSelectsTheOtherBranch) {
  auto r = read("#define ENABLE_BF16\n" + std::string(bf16_switch));
  EXPECT_EQ(r.aliases.at("floatX").chosen, "__nv_bfloat16");
  auto d = read(bf16_switch, {"ENABLE_BF16"});  // as from -DENABLE_BF16
  EXPECT_EQ(d.aliases.at("floatX").chosen, "__nv_bfloat16");
}

TEST(TypeAliases, UsingDefineAndChainsResolve) {
  auto r = read(R"(
#define real_t double
using scalar_t = real_t;
typedef scalar_t acc_t;
#define BLOCK 256
// typedef int commented_out;
)");
  EXPECT_EQ(resolve_type("acc_t*", r.aliases), "double*");
  EXPECT_EQ(r.aliases.count("BLOCK"), 0u);  // an integer macro is no type
  EXPECT_EQ(r.aliases.count("commented_out"), 0u);
}

TEST(TypeAliases, AConditionItCannotEvaluateTakesTheFirstBranchAndSaysSo) {
  auto r = read(R"(
#if SOME_FN(3) + 1
typedef half floatX;
#else
typedef float floatX;
#endif
)");
  EXPECT_EQ(r.aliases.at("floatX").chosen, "half");
  EXPECT_FALSE(r.aliases.at("floatX").branch_known);
}

TEST(TypeAliases, FollowsQuotedIncludesFromTheRepository) {
  fs::path root = fs::temp_directory_path() / ("kb_aliases_" + std::to_string(getpid()));
  fs::create_directories(root / "include" / "lib");
  std::ofstream(root / "include" / "lib" / "types.h") << "#pragma once\ntypedef unsigned char byte_t;\n";
  std::ofstream(root / "k.cu") << "#include <cuda_runtime.h>\n#include \"lib/types.h\"\n";
  auto aliases = kb::cuda_source::collect_type_aliases(root, "k.cu", {"include"});
  ASSERT_EQ(aliases.count("byte_t"), 1u);
  EXPECT_EQ(aliases.at("byte_t").chosen, "unsigned char");
  EXPECT_EQ(aliases.at("byte_t").file, "include/lib/types.h");
  fs::remove_all(root);
}

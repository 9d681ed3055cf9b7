// The candidate source policy against hand-written candidates (policy_candidates/: passes/,
// refused_preprocessor/ for tricks of spelling and the preprocessor, refused_reach/ for what the code
// would reach: files, processes, the environment, the network): each file's first line says
// `// passes` or `// refused: RULE | TOKEN`, judged against the original in
// policy_repo/src/original.cu, in the repository policy_repo/. And the pieces: the tokenizer
// the policy reads with, the include rules, the original's excuse.
#include "cuda_source/policy/candidate_policy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/clock.h"
#include "cuda_source/tokens/preprocessing_tokens.h"

namespace kb::cuda_source {
namespace {
namespace fs = std::filesystem;

const fs::path kHere = fs::path(KB_SOURCE_DIR) / "tests" / "cuda_source";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

IncludeScope scope() {
  IncludeScope s;
  s.repository = kHere / "policy_repo";
  s.source_dir = kHere / "policy_repo" / "src";
  s.include_dirs = {kHere / "policy_repo" / "include"};
  return s;
}

std::string all(const std::vector<PolicyFinding>& v) {
  std::string s;
  for (const auto& f : v) s += f.describe() + "\n";
  return s;
}

TEST(CandidatePolicy, HandWrittenCandidates) {
  const std::string original = slurp(kHere / "policy_repo" / "src" / "original.cu");
  EXPECT_TRUE(candidate_policy_violations(original, original, scope()).empty());
  int honest = 0, hostile = 0;
  for (const auto& entry : fs::recursive_directory_iterator(kHere / "policy_candidates")) {
    if (!entry.is_regular_file()) continue;
    const std::string text = slurp(entry.path());
    const std::string first = text.substr(0, text.find('\n'));
    const auto violations = candidate_policy_violations(text, original, scope());
    SCOPED_TRACE(entry.path().filename().string());
    if (first == "// passes") {
      ++honest;
      EXPECT_TRUE(violations.empty()) << all(violations);
      continue;
    }
    ASSERT_EQ(first.rfind("// refused: ", 0), 0u) << "the first line says what the file expects";
    ++hostile;
    const std::string expected = first.substr(12);
    const std::string rule = expected.substr(0, expected.find(" | "));
    const std::string token = expected.substr(expected.find(" | ") + 3);
    bool found = false;
    for (const auto& v : violations) found |= v.rule == rule && v.token == token && v.line > 1;
    EXPECT_TRUE(found) << "expected " << expected << ", found:\n" << all(violations);
  }
  EXPECT_GE(honest, 2);
  EXPECT_GE(hostile, 30);
}

TEST(CandidatePolicy, OriginalsFindingsAreExcusedAsOftenAsTheOriginalHasThem) {
  const std::string original = "#include <cstdlib>\nvoid setup() { std::getenv(\"A\"); }\n";
  EXPECT_TRUE(candidate_policy_violations(original, original, scope()).empty());
  EXPECT_FALSE(policy_findings(original, scope()).empty()) << "the original does have the finding";
  const auto twice = candidate_policy_violations(original + "void more() { std::getenv(\"B\"); }\n", original, scope());
  ASSERT_EQ(twice.size(), 1u) << all(twice);
  EXPECT_EQ(twice[0].line, 3);
  EXPECT_EQ(twice[0].describe(), "line 3: `getenv` (environment)");
}

// An original's unreadable text (a "??!" in a message) is never an excuse: what follows a
// trigraph may be read differently by the compiler.
TEST(CandidatePolicy, UnreadableTextIsNeverExcused) {
  const std::string original = "void f() { printf(\"what??!\"); }\n";
  EXPECT_EQ(candidate_policy_violations(original, original, scope()).size(), 1u);
  EXPECT_TRUE(candidate_policy_violations("void f() {}\n", original, scope()).empty());
}

TEST(CandidatePolicy, DeviceAsmPassesAndHostAsmDoesNot) {
  const std::string device =
      "struct S { __device__ unsigned f() { unsigned v; asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(v)); return v; } };\n"
      "__global__ void k() { auto g = [] __device__ () { asm volatile(\"membar.gl;\"); }; g(); }\n"
      "void host() { int x = 0; }\n";
  EXPECT_TRUE(policy_findings(device, scope()).empty()) << all(policy_findings(device, scope()));
  const std::string after = device + "__device__ int table[2] = {1, 2};\nvoid h2() { asm(\"nop\"); }\n";
  const auto found = policy_findings(after, scope());
  ASSERT_EQ(found.size(), 1u) << all(found);
  EXPECT_EQ(found[0].line, 5);
  // A macro that means __device__ makes device code, unless it is also defined otherwise.
  EXPECT_TRUE(policy_findings("#define DEV __device__\nDEV void f() { asm(\"nop\"); }\n", scope()).empty());
  EXPECT_FALSE(
      policy_findings("#define DEV __device__\n#undef DEV\n#define DEV\nDEV void f() { asm(\"nop\"); }\n", scope())
          .empty());
}

TEST(CandidatePolicy, CommonWordsAreRefusedOnlyAsFunctions) {
  for (const char* ok : {"void f(bool write, int read) { g(write, read); }", "void f() { x.close(); p->read(); }",
                         "__device__ float read(const float* p) { return *p; }", "void f() { cg::wait(b); }",
                         "void f(cuda::pipeline<cuda::thread_scope_thread>& pipe) { use(pipe); }"})
    EXPECT_TRUE(policy_findings(ok, scope()).empty()) << ok << "\n" << all(policy_findings(ok, scope()));
  for (const char* bad :
       {"void f() { read(0, b, 1); }", "void f() { auto p = &::write; }", "void f() { return (close)(3); }",
        "#define R read\n", "void f() { ::kill(1, 9); }", "void f() { __open_2(\"x\", 0); }"})
    EXPECT_FALSE(policy_findings(bad, scope()).empty()) << bad;
}

// A name the candidate declares itself (a local, a parameter, a member, an enumerator, one of its
// own class or namespace) is not the library's function, nor are its uses in scope; a reference
// to the library's is refused beside it, however it is spelled.
TEST(CandidatePolicy, OwnNamesAreNotTheLibrarysFunctions) {
  for (const char* ok :
       {"void f(cudaStream_t s, cudaStream_t side) { cudaEvent_t fork, join; cudaEventCreateWithFlags(&fork, 2);\n"
        "  cudaEventRecord(fork, s); cudaStreamWaitEvent(side, fork, 0); cudaEventRecord(join, side);\n"
        "  cudaStreamWaitEvent(s, join, 0); }",
        "struct P { cudaEvent_t fork; int getenv; }; void f(P& p, P* q) { use(p.fork, q->getenv, q->template fork); }",
        "void f(cudaEvent_t fork) { use(fork); } void g(int, cudaEvent_t* fork = nullptr) { use(*fork); }",
        "void f() { int getenv = 0; use(getenv); for (auto fork : events) use(fork); }",
        "void f() { auto read = [](int i) { return i; }; read(3); if (cudaEvent_t fork = next()) { use(fork); } }",
        "struct G { cudaEvent_t e; void fork(int); void join() { fork(1); } }; void h(G& g) { g.join(); G::join; }",
        "enum class Stage { fork, join }; enum { system = 2 }; void f() { use(Stage::fork, system); }",
        "static cudaEvent_t fork; namespace { int environ_count; } void f() { use(fork); }",
        "namespace detail { cudaEvent_t fork; void g() { use(fork); } } void f() { use(detail::fork); }",
        "void f() { std::vector<cudaEvent_t> fork{}; const cudaEvent_t* const* getenv = nullptr; use(fork, getenv); }"})
    EXPECT_TRUE(policy_findings(ok, scope()).empty()) << ok << "\n" << all(policy_findings(ok, scope()));

  const std::pair<const char*, int> refused[] = {
      {"void f() { cudaEvent_t fork; }\nvoid g() { fork(); }", 2},
      {"void f() {\n  cudaEvent_t fork;\n  ::fork();\n}", 3},
      {"void f() { { cudaEvent_t fork; }\n  auto p = fork; }", 2},
      {"void f() { cudaEvent_t fork; use(fork); }\nusing F = int (*)();\nF f = fork;", 3},
      {"void f() { cudaEvent_t fork; }\nusing P = decltype(&fork);", 2},
      {"void f() { int getenv;\n  { extern char* getenv(const char*); } }", 2},
      {"extern \"C\" int fork();\nvoid f() { cudaEvent_t e; }", 1},
      {"cudaEvent_t fork;", 1},
      {"int write;\nvoid f() { use(write); }", 1},
      {"namespace n { using namespace std; }\nvoid f() { n::getenv(\"X\"); }", 2},
      {"void f(bool ok) {\n  if (ok && fork) {} }", 2},
      {"void f() {\n  auto l = [](int fork) { return fork; };\n  auto p = fork; }", 3},
      {"void f() { int g(int fork),\n  *p = &fork; }", 2},
      // `T fork(2)` in a function may declare a function, as the compiler reads it too.
      {"void f() {\n  std::vector<cudaEvent_t> fork(2); }", 2},
      {"void f() { for (auto fork : events) if (ok) { use(fork); }\n  auto p = fork; }", 2},
      // Where a macro or an #if branch could make the compiler's scopes differ, only members pass.
      {"#define CLOSE }\nvoid f() { { cudaEvent_t fork; CLOSE\n  use(fork); } }", 2},
      {"void f() { cudaEvent_t fork;\n#if 0\n{\n#endif\n}\nauto p = fork;", 6},
      {"struct S { template <class F> S& operator*(F f) { f(); return *this; } };\n"
       "void h(S s) { s * fork; }",
       2},
  };
  for (const auto& [bad, line] : refused) {
    const auto found = policy_findings(bad, scope());
    bool at_line = false;
    for (const auto& f : found) at_line |= f.line == line;
    EXPECT_TRUE(at_line) << bad << "\nexpected a finding at line " << line << ", found:\n" << all(found);
  }
  // A variable at file scope shares the library's symbol: the finding says what to do instead.
  const auto global = policy_findings("char getenv;\n", scope());
  ASSERT_EQ(global.size(), 1u) << all(global);
  EXPECT_NE(global[0].detail.find("static"), std::string::npos) << global[0].detail;
}

// The original's pasting macro (its `##` excused) used by a candidate to form a refused name, in
// every way the pieces can meet; and an invocation with thousands of names, nested in others,
// is read in time linear in the text (every pair of its names is never tried).
TEST(CandidatePolicy, PastedNamesAreFoundWithoutTryingEveryPair) {
  const std::string original = "#define CAT(a, b) a##b\nint CAT(x, y) = 0;\n";
  for (const char* pasted : {"CAT(fo, rk)", "CAT(__libc_f, ork)", "CAT(__buil, tin_execl)", "CAT(ge, tenv64)",
                             "CAT(SY, S_read)", "CAT(__FI, LE__)", "CAT(rea, d_chk)", "CAT(fork_un, locked)"}) {
    const auto found = candidate_policy_violations(original + "void f() { CAT(x, y); " + pasted + "; }\n", original,
                                                   scope());
    ASSERT_EQ(found.size(), 1u) << pasted << "\n" << all(found);
    EXPECT_EQ(found[0].rule, "token pasting") << pasted;
  }
  std::string many;
  for (int i = 0; i < 20000; ++i) many += " + n" + std::to_string(i);
  std::string candidate = original;
  for (int i = 0; i < 5; ++i) candidate += "int v" + std::to_string(i) + " = CAT(a, CAT(b, CAT(c, 0" + many + ")));\n";
  // Measured against reading the same text into tokens once, which is linear whatever the build
  // (a sanitizer's -O0 build on a loaded machine is twenty times slower): trying every pair of the
  // 100,000 names would cost thousands of such readings, the policy's passes cost about five.
  const auto seconds_of = [](const auto& work) {
    const auto start = std::chrono::steady_clock::now();
    work();
    return seconds_since(start);
  };
  const double reading_s = std::min(seconds_of([&] { (void)preprocessing_tokens(candidate); }),
                                    seconds_of([&] { (void)preprocessing_tokens(candidate); }));
  const double policy_s = seconds_of(
      [&] { EXPECT_TRUE(candidate_policy_violations(candidate, original, scope()).empty()); });
  std::printf("policy %.3f s, one reading into tokens %.3f s (%.1fx)\n", policy_s, reading_s, policy_s / reading_s);
  EXPECT_LT(policy_s, 50 * reading_s);
}

TEST(CandidatePolicy, IncludeRules) {
  const IncludeScope s = scope();
  for (const char* angle :
       {"cstdint", "vector", "math.h", "cuda_runtime.h", "cuda_fp16.h", "cuda_bf16.h", "cooperative_groups.h",
        "cooperative_groups/memcpy_async.h", "cub/cub.cuh", "thrust/sort.h", "cuda/barrier", "mma.h", "foo.h"})
    EXPECT_EQ(include_refusal(angle, true, s), "") << angle;
  for (const char* quoted : {"../include/foo.h", "foo.h", "cuda_runtime.h"})
    EXPECT_EQ(include_refusal(quoted, false, s), "") << quoted;
  for (const char* angle : {"unistd.h", "dlfcn.h", "sys/socket.h", "fstream", "filesystem", "../include/foo.h",
                            "/proc/self/environ", "cub/../../../etc/passwd"})
    EXPECT_NE(include_refusal(angle, true, s), "") << angle;
  for (const char* quoted : {"/proc/self/environ", "../../policy_candidates/refused_reach/hostile_fopen.cu",
                             "original.cu/../../x", "missing.h"})
    EXPECT_NE(include_refusal(quoted, false, s), "") << quoted;
}

TEST(PreprocessingTokens, ReadsWhatTheCompilerReads) {
  const PpTokens t = preprocessing_tokens("int a = 1'000; // x\n%:define X f\\\nopen\nR\"d(\"raw)\")d\" u8\"s\" 'c'\n");
  ASSERT_TRUE(t.problems.empty()) << t.problems.front().what;
  std::vector<std::string> texts;
  for (const auto& x : t.tokens) texts.push_back(x.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"int", "a", "=", "1'000", ";", "#", "define", "X", "fopen",
                                             "R\"d(\"raw)\")d\"", "u8\"s\"", "'c'"}));
  EXPECT_TRUE(t.tokens[5].directive_start);
  EXPECT_TRUE(t.tokens[8].in_directive);
  EXPECT_FALSE(t.tokens[9].in_directive);
  EXPECT_EQ(t.tokens[9].line, 4) << "lines count the original's newlines, splices included";
  EXPECT_EQ(string_literal_value(t.tokens[9].text), "\"raw)\"");
  EXPECT_EQ(string_literal_value("\"\\x2fproc\\057x\""), "/proc/x");
  EXPECT_EQ(preprocessing_tokens("#include <a b.h>\n").tokens.back().kind, PpToken::header_name);
  EXPECT_TRUE(preprocessing_tokens("#error don't\n").problems.empty());
  // A quote that never closes is punctuation, and what follows is read as code.
  const PpTokens lone = preprocessing_tokens("#if 0\nit's fopen\n#endif\nR\"x(never\n");
  ASSERT_EQ(lone.problems.size(), 1u);
  EXPECT_EQ(lone.problems[0].line, 4);
  bool seen = false;
  for (const auto& x : lone.tokens) seen |= x.text == "fopen";
  EXPECT_TRUE(seen);
  const PpTokens trigraphs = preprocessing_tokens("a\n\"??!\" ??=\n");
  ASSERT_EQ(trigraphs.problems.size(), 2u);
  EXPECT_EQ(trigraphs.problems[1].line, 2);
}

}  // namespace
}  // namespace kb::cuda_source

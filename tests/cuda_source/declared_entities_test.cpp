// The two readers the definition splice pairs a reply's pieces with the file's by: the namespace
// structure of a file (namespace_chunks.h) and what one declaration declares (declared_entities.h).
#include <gtest/gtest.h>

#include "cuda_source/splicing/declared_entities.h"
#include "cuda_source/splicing/namespace_chunks.h"

using namespace kb::cuda_source;

namespace {

// "kind name signature" of each entity the one declaration in `text` declares.
std::vector<std::string> keys(const std::string& text) {
  const NamespaceLayout layout = read_namespace_layout(text);
  EXPECT_EQ(layout.chunks.size(), 1u) << text;
  std::vector<std::string> out;
  for (const auto& chunk : layout.chunks)
    for (const auto& e : declared_entities(text, chunk.chunk)) out.push_back(e.key());
  return out;
}

using Keys = std::vector<std::string>;

}  // namespace

TEST(DeclaredEntities, FunctionsAreKnownByNameTemplateAndParameterTypes) {
  EXPECT_EQ(keys("__device__ float twice(const float v, float* __restrict__ out) { return 2 * v; }"),
            Keys{"f twice (float,float*)"});
  EXPECT_EQ(
      keys("template <int TILE, typename T = float>\n__device__ float4 load_tile(const T* p, int i) { return {}; }"),
      Keys{"f load_tile template<int,typename>(const T*,int)"});
  EXPECT_EQ(keys("template <> __device__ float4 load_tile<32>(const float* p, int i) { return {}; }"),
            Keys{"f load_tile template<><32>(const float*,int)"});
  EXPECT_EQ(keys("__global__ void __launch_bounds__(256) k(float* y);"), Keys{"f k (float*)"});
  EXPECT_EQ(keys("float Op::run(int n) const { return n; }"), Keys{"f Op::run (int) const"});
  EXPECT_EQ(keys("__device__ float2 operator+(float2 a, float2 b) { return a; }"), Keys{"f operator+ (float2,float2)"});
}

TEST(DeclaredEntities, VariablesTypesAndAliases) {
  EXPECT_EQ(keys("constexpr int kThreads = 256;"), Keys{"v kThreads "});
  EXPECT_EQ(keys("static constexpr int a = 1, b[2] = {1, 2};"), (Keys{"v a ", "v b "}));
  EXPECT_EQ(keys("__constant__ float c_table[256];"), Keys{"v c_table "});
  EXPECT_EQ(keys("std::array<int, 4> widths{1, 2, 3, 4};"), Keys{"v widths "});
  EXPECT_EQ(keys("struct __align__(16) Params { int n; };"), Keys{"t Params "});
  EXPECT_EQ(keys("template <typename T> struct Traits<T*> : Base { };"), Keys{"t Traits <T*>"});
  EXPECT_EQ(keys("enum class Mode : int { a, b };"), Keys{"t Mode "});
  EXPECT_EQ(keys("using acc_t = float;"), Keys{"t acc_t "});
  EXPECT_EQ(keys("typedef float4 vec_t;"), Keys{"t vec_t "});
  EXPECT_EQ(keys("typedef void (*fn_t)(int);"), Keys{"t fn_t "});
  EXPECT_EQ(keys("namespace cg = cooperative_groups;"), Keys{"t cg "});
  EXPECT_EQ(keys("using namespace nvcuda;"), Keys{"d nvcuda "});
  EXPECT_EQ(keys("using std::min;"), Keys{"u std::min "});
  EXPECT_TRUE(keys("static_assert(sizeof(int) == 4, \"int\");").empty());
}

TEST(DeclaredEntities, DeclarationsAreToldFromDefinitions) {
  const std::string text = "void f(int);\nstruct S;\nextern int x;\nextern int y = 1;\nvoid g() {}\n";
  const NamespaceLayout layout = read_namespace_layout(text);
  std::vector<bool> defines;
  for (const auto& chunk : layout.chunks)
    for (const auto& e : declared_entities(text, chunk.chunk)) defines.push_back(e.is_definition);
  EXPECT_EQ(defines, (std::vector<bool>{false, false, false, true, true}));
}

TEST(NamespaceChunks, PiecesKnowTheNamespacesTheyStandIn) {
  const std::string text = R"(#include <cuda_runtime.h>
namespace a::b {
constexpr int k = 1;
namespace {
struct S {};
}  // namespace
}  // namespace a::b
extern "C" {
void c_api();
}
namespace cg = cooperative_groups;
)";
  const NamespaceLayout layout = read_namespace_layout(text);
  std::vector<std::string> seen;
  for (const auto& chunk : layout.chunks) {
    std::string path;
    for (const auto& name : layout.path(chunk)) path += "[" + name + "]";
    seen.push_back(path + text.substr(chunk.chunk.begin, chunk.chunk.end - chunk.chunk.begin));
  }
  EXPECT_EQ(seen,
            (std::vector<std::string>{"#include <cuda_runtime.h>", "[a][b]constexpr int k = 1;", "[a][b][]struct S {};",
                                      "[extern \"C\"]void c_api();", "namespace cg = cooperative_groups;"}));
  ASSERT_EQ(layout.blocks.size(), 3u);
  const size_t in_s = text.find("struct S");
  EXPECT_EQ(layout.blocks_at(in_s), (std::vector<size_t>{0, 1}));
  EXPECT_EQ(namespace_opener(""), "namespace {");
  EXPECT_EQ(namespace_closer("a"), "}  // namespace a");
}

// A throwaway project for search tests: a temporary directory holding one kernel source and a
// Config whose [[kernel]] points at it (y = f(x), float32), removed when the test ends.
#pragma once

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "config/config.h"
#include "profiler/evaluate/evaluator.h"
#include "search/engine/search_engine.h"
#include "search/types/proposer.h"

namespace kb::testing {

class TestProject {
 public:
  explicit TestProject(const std::string& source = "// the original SIM_TIME=100\nvoid launch_k(float* y, int n) {}\n") {
    std::random_device rd;
    root = std::filesystem::temp_directory_path() / ("kb_search_test_" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(root);
    write("k.cu", source);
    config.root = root;
    config.search.rounds = 3;
    config.search.ideas_per_round = 2;
    config.search.branches_per_idea = 2;
    config.search.compile_jobs = 2;
    config.search.min_round_gain = 0;
    // The engine's tests count evaluations and verdicts of every candidate; screening_test.cpp
    // tests the screening (on by default in a real config).
    config.search.screening = false;
    config.llm.repair_attempts = 1;
    config::KernelSpec spec;
    spec.name = "k";
    spec.source = "k.cu";
    spec.launcher = "launch_k";
    config::ArgSpec y;
    y.name = "y";
    y.role = ArgRole::inout;
    y.count = "n";
    config::ArgSpec n;
    n.name = "n";
    n.role = ArgRole::size;
    n.dtype = DType::int32;
    n.value = "n";
    spec.args = {y, n};
    spec.sizes = {config::SizeSet{{{"n", 1048576}}}};
    config.kernels.push_back(spec);
  }
  ~TestProject() {
    std::error_code ec;
    std::filesystem::remove_all(root, ec);
  }
  TestProject(const TestProject&) = delete;
  TestProject& operator=(const TestProject&) = delete;

  void write(const std::string& name, const std::string& text) { std::ofstream(root / name) << text; }
  config::KernelSpec& spec() { return config.kernels.front(); }

  std::filesystem::path root;
  config::Config config;
};

// A search of the project's one kernel with this evaluator and proposer.
inline search::SearchRequest request_for(TestProject& p, Evaluator& e, search::Proposer& proposer) {
  search::SearchRequest r;
  r.config = &p.config;
  r.spec = &p.spec();
  r.evaluator = &e;
  r.proposer = &proposer;
  return r;
}

}  // namespace kb::testing

// launcher_scale: how `discover`, `init` and `config check` grow with the number of launchers in
// one .cu file. For each N it writes a repository with N kernels and their launchers in one file,
// runs the real kernelbot binary on it and prints a table of N against seconds. All three should
// grow linearly: each reads and indexes the file once, whatever the number of launchers or
// [[kernel]] tables. Needs no GPU. Run `build/bench/launcher_scale [--counts 250,1000,20000]`.
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

// N kernels, each with a launcher of the shape `init` writes a table for.
std::string source_with_launchers(int n) {
  std::string text = "#include <cuda_runtime.h>\n\nnamespace ops {\n\n";
  for (int i = 0; i < n; ++i)
    text += fmt::format("__global__ void scale{0}_kernel(const float* x, float* y, float s, int n) {{\n"
                        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                        "  if (i < n) y[i] = x[i] * s;\n"
                        "}}\n\n"
                        "// Scales x into y.\n"
                        "void scale{0}(const float* x, float* y, float s, int n, cudaStream_t stream) {{\n"
                        "  scale{0}_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, s, n);\n"
                        "}}\n\n",
                        i);
  return text + "}  // namespace ops\n";
}

// Seconds the command took; its output goes to a log beside the repository.
double timed(const std::string& command, const fs::path& log) {
  const auto start = std::chrono::steady_clock::now();
  const int status = std::system((command + " >" + log.string() + " 2>&1").c_str());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (status == -1 || !WIFEXITED(status)) fmt::print(stderr, "`{}` did not finish normally\n", command);
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"launcher_scale: seconds for discover, init and config check against launchers per file"};
  std::vector<int> counts = {250, 1000, 2000, 5000, 20000};
  std::string kernelbot = KB_KERNELBOT_BINARY;
  app.add_option("--counts", counts, "Launchers per file, one row each")->delimiter(',');
  app.add_option("--kernelbot", kernelbot, "The kernelbot binary to time");
  CLI11_PARSE(app, argc, argv);

  const fs::path base = fs::temp_directory_path() / ("kb_launcher_scale_" + std::to_string(::getpid()));
  fmt::print("| launchers | file MiB | discover s | init s | config check s |\n| ---: | ---: | ---: | ---: | ---: |\n");
  for (const int n : counts) {
    const fs::path repo = base / std::to_string(n);
    fs::create_directories(repo);
    const std::string text = source_with_launchers(n);
    std::ofstream(repo / "ops.cu", std::ios::binary) << text;
    const std::string in_repo = "cd " + repo.string() + " && " + kernelbot;
    const double discover = timed(in_repo + " discover", base / "discover.log");
    const double init = timed(in_repo + " init", base / "init.log");
    const double check = timed(in_repo + " config check", base / "check.log");
    fmt::print("| {} | {:.1f} | {:.2f} | {:.2f} | {:.2f} |\n", n, static_cast<double>(text.size()) / (1 << 20),
               discover, init, check);
    std::fflush(stdout);
    fs::remove_all(repo);
  }
  fs::remove_all(base);
  return 0;
}

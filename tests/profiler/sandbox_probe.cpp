// A hostile child for the sandbox tests: each mode tries one thing a candidate might (or one
// limit to hit) and prints what it got, so the test can check the host side for the effect.
//   alloc MB             touch MB of memory, then sleep
//   sleep S [marker]     sleep (the marker only tags the command line)
//   read FILE            print FILE's contents; exit 0 if it could be read
//   environ PID [all]    print /proc/PID/environ (with "all", every /proc/*/environ it can read)
//   write FILE           create FILE; exit 0 if it could
//   daemon MARKER        double-fork a child in a new session that sleeps 30 s, then exit 0
//   connect PORT         TCP connect to 127.0.0.1:PORT; exit 0 if connected
//   forkbomb             fork until refused, the children asleep; then wait to be killed
//   say TEXT             print TEXT on stderr and exit 3 (a forged harness line)
//   getenv NAME          print the variable's value; exit 0 if set
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

bool slurp(const std::string& path, std::string& out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream s;
  s << f.rdbuf();
  out = s.str();
  for (char& c : out)
    if (c == '\0') c = ' ';  // environ's entries are NUL-separated
  return true;
}

int read_file(const char* path) {
  std::string text;
  if (!slurp(path, text)) {
    std::printf("cannot read %s: %s\n", path, std::strerror(errno));
    return 1;
  }
  std::printf("%s\n", text.c_str());
  return 0;
}

int read_environs(const char* pid, bool all) {
  int read = 0;
  std::string text;
  if (slurp(std::string("/proc/") + pid + "/environ", text)) ++read, std::printf("%s: %s\n", pid, text.c_str());
  if (!all) return read > 0 ? 0 : 1;
  if (DIR* d = opendir("/proc")) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
      if (slurp(std::string("/proc/") + e->d_name + "/environ", text) && !text.empty())
        ++read, std::printf("%s: %s\n", e->d_name, text.c_str());
    }
    closedir(d);
  }
  return read > 0 ? 0 : 1;
}

int write_file(const char* path) {
  FILE* f = std::fopen(path, "w");
  if (!f) {
    std::printf("cannot write %s: %s\n", path, std::strerror(errno));
    return 1;
  }
  std::fputs("#!/bin/sh\necho planted\n", f);
  return std::fclose(f) == 0 ? 0 : 1;
}

int start_daemon(const char* self, const char* marker) {
  pid_t child = fork();
  if (child == 0) {
    setsid();
    if (fork() == 0) {
      execl(self, self, "sleep", "30", marker, static_cast<char*>(nullptr));
      _exit(1);
    }
    _exit(0);
  }
  std::printf("daemon started\n");
  std::fflush(stdout);
  return 0;
}

int connect_to(int port) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (s < 0) {
    std::printf("socket: %s\n", std::strerror(errno));
    return 1;
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    std::printf("connect: %s\n", std::strerror(errno));
    return 1;
  }
  const char hello[] = "probe-was-here\n";
  (void)!write(s, hello, sizeof hello - 1);
  std::printf("connected\n");
  return 0;
}

int fork_bomb() {
  int forked = 0;
  for (int attempts = 0; attempts < 100000; ++attempts) {
    pid_t p = fork();
    if (p == 0) {
      pause();
      _exit(0);
    }
    if (p > 0) ++forked;
  }
  std::printf("forked %d and was not stopped\n", forked);
  std::fflush(stdout);
  std::this_thread::sleep_for(std::chrono::seconds(30));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc >= 2 ? argv[1] : "";
  if (argc >= 3 && mode == "alloc") {
    size_t bytes = static_cast<size_t>(std::atoll(argv[2])) * 1024 * 1024;
    std::vector<char> block(bytes);
    for (size_t i = 0; i < bytes; i += 4096) block[i] = static_cast<char>(i);
    std::printf("allocated\n");
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::seconds(30));
    return block[bytes / 2];
  }
  if (argc >= 3 && mode == "sleep") {
    std::this_thread::sleep_for(std::chrono::seconds(std::atoi(argv[2])));
    return 0;
  }
  if (argc >= 3 && mode == "read") return read_file(argv[2]);
  if (argc >= 3 && mode == "environ") return read_environs(argv[2], argc >= 4 && std::strcmp(argv[3], "all") == 0);
  if (argc >= 3 && mode == "write") return write_file(argv[2]);
  if (argc >= 3 && mode == "daemon") return start_daemon(argv[0], argv[2]);
  if (argc >= 3 && mode == "connect") return connect_to(std::atoi(argv[2]));
  if (mode == "forkbomb") return fork_bomb();
  if (argc >= 3 && mode == "say") {
    std::fprintf(stderr, "%s\n", argv[2]);
    return 3;
  }
  if (argc >= 3 && mode == "getenv") {
    const char* v = std::getenv(argv[2]);
    std::printf("%s\n", v ? v : "(unset)");
    return v ? 0 : 1;
  }
  std::fprintf(stderr,
               "usage: sandbox_probe alloc MB | sleep S | read FILE | environ PID | write FILE | daemon MARKER |"
               " connect PORT | forkbomb | say TEXT | getenv NAME\n");
  return 2;
}

// A child for the sandbox tests: `alloc MB` touches MB of memory and sleeps; `sleep S` sleeps.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  if (argc >= 3 && std::strcmp(argv[1], "alloc") == 0) {
    size_t bytes = static_cast<size_t>(std::atoll(argv[2])) * 1024 * 1024;
    std::vector<char> block(bytes);
    for (size_t i = 0; i < bytes; i += 4096) block[i] = static_cast<char>(i);
    std::printf("allocated\n");
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::seconds(30));
    return block[bytes / 2];
  }
  if (argc >= 3 && std::strcmp(argv[1], "sleep") == 0) {
    std::this_thread::sleep_for(std::chrono::seconds(std::atoi(argv[2])));
    return 0;
  }
  std::fprintf(stderr, "usage: sandbox_probe alloc MB | sleep S\n");
  return 2;
}

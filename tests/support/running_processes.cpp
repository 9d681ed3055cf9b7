#include "tests/support/running_processes.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

namespace kb::test {

int processes_with(const std::string& marker) {
  int found = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name[0] < '0' || name[0] > '9') continue;
    std::ifstream cmdline(e.path() / "cmdline", std::ios::binary);
    std::string line((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
    std::replace(line.begin(), line.end(), '\0', ' ');
    std::ifstream stat(e.path() / "stat");
    std::string fields;
    std::getline(stat, fields);
    const size_t close = fields.rfind(')');
    const bool zombie = close != std::string::npos && fields.size() > close + 2 && fields[close + 2] == 'Z';
    if (!zombie && line.find(marker) != std::string::npos) ++found;
  }
  return found;
}

int processes_left_with(const std::string& marker, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int left = processes_with(marker);
  while (left > 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    left = processes_with(marker);
  }
  return left;
}

}  // namespace kb::test

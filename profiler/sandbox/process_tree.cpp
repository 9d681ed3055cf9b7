#include "profiler/sandbox/process_tree.h"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>

namespace kb::profiler {
namespace {

struct ProcStat {
  pid_t pid = 0, ppid = 0;
  char state = '?';
  unsigned long long start_time = 0;
  long long rss_pages = 0;
};

std::optional<ProcStat> read_stat(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(f, line)) return std::nullopt;
  // The command name (field 2) may contain spaces and parentheses: fields after it follow the last ')'.
  const size_t close = line.rfind(')');
  if (close == std::string::npos || close + 2 >= line.size()) return std::nullopt;
  std::istringstream rest(line.substr(close + 2));
  ProcStat s;
  s.pid = pid;
  std::string field;
  for (int index = 3; index <= 24 && rest >> field; ++index) {
    if (index == 3) s.state = field[0];
    if (index == 4) s.ppid = static_cast<pid_t>(std::atoll(field.c_str()));
    if (index == 22) s.start_time = std::strtoull(field.c_str(), nullptr, 10);
    if (index == 24) s.rss_pages = std::atoll(field.c_str());
  }
  return s;
}

// The processes under `root`, root first, from one reading of /proc.
std::vector<ProcStat> tree(pid_t root) {
  std::map<pid_t, std::vector<ProcStat>> children;
  std::optional<ProcStat> top;
  if (DIR* dir = opendir("/proc")) {
    while (const dirent* e = readdir(dir)) {
      if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
      if (auto s = read_stat(static_cast<pid_t>(std::atoi(e->d_name)))) {
        if (s->pid == root) top = s;
        else children[s->ppid].push_back(*s);
      }
    }
    closedir(dir);
  }
  std::vector<ProcStat> out;
  if (!top) return out;
  out.push_back(*top);
  for (size_t i = 0; i < out.size(); ++i)
    for (const ProcStat& c : children[out[i].pid]) out.push_back(c);
  return out;
}

// Signals the process only if it is still the one that was read (no pid reuse in between).
void signal_same(const TreeProcess& p, int sig) {
  if (auto s = read_stat(p.pid); s && s->start_time == p.start_time) ::kill(p.pid, sig);
}

}  // namespace

ProcessTreeUsage process_tree_usage(pid_t root) {
  static const long page = sysconf(_SC_PAGESIZE);
  ProcessTreeUsage usage;
  long long pages = 0;
  for (const ProcStat& s : tree(root)) {
    ++usage.processes;
    pages += s.rss_pages;
    usage.members.push_back({s.pid, s.start_time});
  }
  usage.rss_mb = pages * page / (1024 * 1024);
  return usage;
}

void kill_process_tree(pid_t root) {
  // Stopped first, not killed: a parent killed before its children are found leaves them to init.
  ::kill(-root, SIGSTOP);
  std::map<pid_t, TreeProcess> stopped;
  // Each pass stops what the last one could not see yet (children forked before their parent
  // stopped); a fork bomb runs out of processes that can fork. The bound is a backstop.
  for (int pass = 0; pass < 64; ++pass) {
    bool found = false;
    for (const ProcStat& s : tree(root)) {
      if (s.state == 'Z' || stopped.count(s.pid)) continue;
      const TreeProcess p{s.pid, s.start_time};
      signal_same(p, SIGSTOP);
      stopped[s.pid] = p;
      found = true;
    }
    if (!found) break;
  }
  for (const auto& [pid, p] : stopped) signal_same(p, SIGKILL);
  ::kill(-root, SIGKILL);
  ::kill(root, SIGKILL);
}

void kill_processes(const std::vector<TreeProcess>& processes) {
  for (const TreeProcess& p : processes) signal_same(p, SIGKILL);
}

}  // namespace kb::profiler

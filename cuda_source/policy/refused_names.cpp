#include "cuda_source/policy/refused_names.h"

#include <algorithm>
#include <map>
#include <set>

namespace kb::cuda_source {
namespace {

// Names refused wherever they appear, after normalize(): the libc and POSIX functions and objects
// whose only use is reaching the system. Not where the name is the candidate's own (own_names.h:
// a member `x.fork`, a local `cudaEvent_t fork` and its uses in scope).
const std::map<std::string, std::string>& refused_names() {
  static const std::map<std::string, std::string> kNames = [] {
    std::map<std::string, std::string> m;
    auto add = [&](const char* rule, std::initializer_list<const char*> names) {
      for (const char* n : names) m[n] = rule;
    };
    add("file access", {"fopen",
                        "freopen",
                        "fdopen",
                        "openat",
                        "openat2",
                        "creat",
                        "ifstream",
                        "ofstream",
                        "fstream",
                        "filebuf",
                        "basic_ifstream",
                        "basic_ofstream",
                        "basic_fstream",
                        "basic_filebuf",
                        "filesystem",
                        "readlink",
                        "readlinkat",
                        "opendir",
                        "fdopendir",
                        "readdir",
                        "scandir",
                        "nftw",
                        "ftw",
                        "realpath",
                        "chdir",
                        "fchdir",
                        "mkdir",
                        "mkdirat",
                        "rmdir",
                        "unlink",
                        "unlinkat",
                        "rename",
                        "renameat",
                        "symlink",
                        "symlinkat",
                        "truncate",
                        "ftruncate",
                        "chmod",
                        "fchmod",
                        "chown",
                        "fchown",
                        "mkfifo",
                        "mknod",
                        "tmpfile",
                        "tmpnam",
                        "mkstemp",
                        "mkdtemp",
                        "fstatat",
                        "newfstatat",
                        "statfs",
                        "fstatfs",
                        "getdents",
                        "inotify_init",
                        "name_to_handle_at",
                        "open_by_handle_at",
                        "sendfile",
                        "splice",
                        "memfd_create"});
    add("environment", {"getenv", "secure_getenv", "environ", "setenv", "unsetenv", "putenv", "clearenv"});
    add("process", {"fork",
                    "vfork",
                    "execl",
                    "execle",
                    "execlp",
                    "execv",
                    "execve",
                    "execvp",
                    "execvpe",
                    "execveat",
                    "fexecve",
                    "popen",
                    "pclose",
                    "posix_spawn",
                    "posix_spawnp",
                    "ptrace",
                    "prctl",
                    "waitpid",
                    "wait4",
                    "sigaction",
                    "setrlimit",
                    "prlimit",
                    "setpriority",
                    "sched_setaffinity",
                    "sched_setscheduler",
                    "atexit",
                    "at_quick_exit",
                    "shm_open",
                    "shmget",
                    "shmat",
                    "msgget",
                    "semget",
                    "mq_open",
                    "sem_open",
                    "daemon",
                    "setsid",
                    "process_vm_readv",
                    "process_vm_writev",
                    "pidfd_open",
                    "pidfd_getfd",
                    "unshare",
                    "setns"});
    add("network", {"socket", "socketpair", "getaddrinfo", "gethostbyname", "gethostbyname2", "gethostbyaddr",
                    "getnameinfo", "inet_addr", "inet_aton", "inet_pton", "sendto", "recvfrom", "sendmsg", "recvmsg",
                    "setsockopt", "getsockopt", "getpeername", "getsockname", "accept4"});
    add("dynamic loading", {"dlopen", "dlsym", "dlvsym", "dladdr", "dladdr1", "dlinfo", "dlmopen", "dlerror",
                            "dl_iterate_phdr", "cuGetProcAddress"});
    add("system call", {"syscall"});
    add("load-time code", {"constructor", "destructor", "init_priority", "ifunc"});
    return m;
  }();
  return kNames;
}

// Names refused when used as a function (called, or its address taken or passed), not as a
// variable: common words that kernels use as names too (`bool write`, `int read`).
const std::map<std::string, std::string>& refused_calls() {
  static const std::map<std::string, std::string> kCalls = {
      {"open", "file access"},   {"stat", "file access"},     {"lstat", "file access"},     {"fstat", "file access"},
      {"statx", "file access"},  {"access", "file access"},   {"faccessat", "file access"}, {"read", "file access"},
      {"write", "file access"},  {"pread", "file access"},    {"pwrite", "file access"},    {"readv", "file access"},
      {"writev", "file access"}, {"link", "file access"},     {"dup", "file access"},       {"dup2", "file access"},
      {"dup3", "file access"},   {"pipe2", "file access"},    {"ioctl", "file access"},     {"fcntl", "file access"},
      {"mmap", "file access"},   {"mprotect", "file access"}, {"close", "file access"},     {"system", "process"},
      {"kill", "process"},       {"tgkill", "process"},       {"killpg", "process"},        {"clone", "process"},
      {"clone3", "process"},     {"signal", "process"},       {"raise", "process"},         {"alarm", "process"},
      {"bind", "network"},       {"connect", "network"},      {"listen", "network"},        {"accept", "network"},
      {"send", "network"},       {"recv", "network"},         {"shutdown", "network"},      {"getpid", "process"},
      {"getppid", "process"}};
  return kCalls;
}

// Build-context macros: they say where and when the judge compiles, which no kernel needs.
// __COUNTER__ and __LINE__ are allowed: they say nothing beyond the text itself.
const std::set<std::string>& build_context_names() {
  static const std::set<std::string> kNames = {"__FILE__", "__BASE_FILE__", "__FILE_NAME__", "__TIME__",
                                               "__DATE__", "__TIMESTAMP__", "__builtin_FILE"};
  return kNames;
}

// What a name is decorated with and still reaches the plain name's function: `__builtin_execl`,
// `__libc_fork`, `_exit`; `open64`, `__open_2`, `__read_chk`, `fgets_unlocked`.
const char* const kPrefixes[] = {"builtin_", "libc_", "GI_", "isoc99_", "isoc23_"};
const char* const kSuffixes[] = {"64", "_2", "_chk", "_unlocked"};

// normalize()'s first half: leading underscores and the prefixes, in its order. `open_ended`:
// whether what a paste appends could still change what is stripped (`__buil` + `tin_execl`).
std::string strip_prefixes(std::string name, bool* open_ended = nullptr) {
  auto strip_underscores = [&] { name.erase(0, std::min(name.size(), name.find_first_not_of('_'))); };
  strip_underscores();
  bool open = name.empty();
  for (const char* prefix : kPrefixes) {
    const std::string p = prefix;
    if (name.starts_with(p)) {
      name.erase(0, p.size());
      strip_underscores();
      open |= name.empty();
    } else if (p.starts_with(name)) {
      open = true;
    }
  }
  if (open_ended) *open_ended = open;
  return name;
}

// The libc name an identifier reaches: `__builtin_execl`, `__libc_fork`, `_exit`, `open64`,
// `__open_2` all reach what the plain name does.
std::string normalize(std::string name) {
  name = strip_prefixes(std::move(name));
  for (const char* suffix : kSuffixes)
    if (name.size() > std::string(suffix).size() && name.ends_with(suffix))
      name.erase(name.size() - std::string(suffix).size());
  return name;
}

// Every refused name, sorted: what a paste's start is completed into.
const std::set<std::string>& targets() {
  static const std::set<std::string> kTargets = [] {
    std::set<std::string> s;
    for (const auto& [name, rule] : refused_names()) s.insert(name);
    for (const auto& [name, rule] : refused_calls()) s.insert(name);
    return s;
  }();
  return kTargets;
}

// The suffixes normalize() strips, in every combination it strips (the last applied first).
const std::vector<std::string>& suffix_tails() {
  static const std::vector<std::string> kTails = [] {
    std::vector<std::string> tails;
    const char* const in_text_order[] = {"_unlocked", "_chk", "_2", "64"};
    for (unsigned mask = 0; mask < 16; ++mask) {
      std::string tail;
      for (unsigned i = 0; i < 4; ++i)
        if (mask & (1u << i)) tail += in_text_order[i];
      tails.push_back(tail);
    }
    return tails;
  }();
  return kTails;
}

bool refused(const std::string& name) { return !refused_name_rule(name).empty() || !refused_call_rule(name).empty(); }

}  // namespace

std::string refused_name_rule(const std::string& name) {
  if (build_context_names().count(name)) return "build context";
  if (name.starts_with("SYS_") || name.starts_with("__NR_")) return "system call";
  auto it = refused_names().find(normalize(name));
  return it == refused_names().end() ? std::string() : it->second;
}

std::string refused_call_rule(const std::string& name) {
  auto it = refused_calls().find(normalize(name));
  return it == refused_calls().end() ? std::string() : it->second;
}

std::string pasted_refused_name(const std::vector<std::string>& list) {
  const std::set<std::string> pieces(list.begin(), list.end());
  auto completes = [&](const std::string& a, const std::string& b) {
    return !b.empty() && pieces.count(b) && refused(a + b);
  };
  // Spellings refused whole, which a start of them leaves open too (`__FI` + `LE__`, `SY` + `S_read`).
  std::vector<std::string> whole(build_context_names().begin(), build_context_names().end());
  whole.insert(whole.end(), {"SYS_", "__NR_"});
  for (const std::string& a : pieces) {
    bool open = false;
    const std::string core = strip_prefixes(a, &open);
    for (const auto& w : whole) open |= w.size() > a.size() && w.starts_with(a);
    if (open) {
      // Few distinct pieces are only decoration: each is tried with every piece.
      for (const std::string& b : pieces)
        if (refused(a + b)) return a + b;
      continue;
    }
    if (a.starts_with("SYS_") || a.starts_with("__NR_")) return a + *pieces.begin();
    // The core begins a refused name, which the other piece ends, with its suffixes...
    for (auto it = targets().lower_bound(core); it != targets().end() && it->starts_with(core); ++it)
      for (const auto& tail : suffix_tails())
        if (completes(a, it->substr(core.size()) + tail)) return a + it->substr(core.size()) + tail;
    // ...or holds a whole refused name and the start of its suffixes.
    for (size_t n = 1; n <= core.size(); ++n) {
      if (!targets().count(core.substr(0, n))) continue;
      const std::string rest = core.substr(n);
      for (const auto& tail : suffix_tails())
        if (tail.size() > rest.size() && tail.starts_with(rest) && completes(a, tail.substr(rest.size())))
          return a + tail.substr(rest.size());
    }
  }
  return {};
}

}  // namespace kb::cuda_source

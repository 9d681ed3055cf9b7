#include "profiler/sandbox/sandbox_launcher.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <mutex>

#include "profiler/sandbox/sandbox_process.h"

namespace kb::profiler {
namespace fs = std::filesystem;
namespace {

bool path_exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(p, ec)) && !ec;
}

// Absolute, without "..", "." or a trailing separator.
fs::path normal(const fs::path& p) {
  fs::path n = fs::absolute(p).lexically_normal();
  if (!n.has_filename() && n != n.root_path()) n = n.parent_path();
  return n;
}

// Whether `inner` is `outer` or lies below it (lexically: the caller normalised both).
bool inside(const fs::path& inner, const fs::path& outer) {
  return std::mismatch(outer.begin(), outer.end(), inner.begin(), inner.end()).first == outer.end();
}

bool inside_any(const fs::path& p, const std::vector<fs::path>& dirs) {
  return std::any_of(dirs.begin(), dirs.end(), [&](const fs::path& d) { return inside(p, d); });
}

void add(std::vector<std::string>& argv, std::initializer_list<std::string> args) {
  argv.insert(argv.end(), args.begin(), args.end());
}

}  // namespace

std::string to_string(SandboxKind kind) { return kind == SandboxKind::namespaces ? "namespaces" : "process"; }

std::string find_bwrap() {
  if (const char* env = std::getenv("KERNELBOT_BWRAP"); env && *env)
    return access(env, X_OK) == 0 ? std::string(env) : std::string();
  const char* path = std::getenv("PATH");
  std::string found = find_executable("bwrap", path ? path : "");
  if (!found.empty()) return found;
  return access("/usr/bin/bwrap", X_OK) == 0 ? "/usr/bin/bwrap" : "";
}

std::string namespace_sandbox_problem() {
  static std::once_flag once;
  static std::string problem;
  std::call_once(once, [] {
    const std::string fallback =
        "; or, knowing that candidates then run without file or network isolation, set [verify] sandbox = \"process\"";
    const std::string bwrap = find_bwrap();
    if (bwrap.empty()) {
      problem = "the namespace sandbox needs bubblewrap (bwrap), which is not installed: install the 'bubblewrap' "
                "package (apt-get install bubblewrap; scripts/bootstrap.sh does) or set KERNELBOT_BWRAP to its path" +
                fallback;
      return;
    }
    SandboxCommand probe;
    probe.argv = {bwrap,           "--unshare-user", "--unshare-pid",    "--unshare-ipc",
                  "--unshare-uts", "--unshare-net",  "--die-with-parent"};
    for (const auto& a : system_view_arguments()) probe.argv.push_back(a);
    add(probe.argv, {"--proc", "/proc", "--dev", "/dev", "--", "/bin/true"});
    probe.limits.wall_time_s = 30;
    probe.launches_bwrap = true;
    SandboxResult r = run_sandboxed(probe);
    if (r.succeeded()) return;
    std::string said = r.err.empty() ? r.describe() : r.err;
    while (!said.empty() && said.back() == '\n') said.pop_back();
    problem = bwrap + " cannot create the sandbox's namespaces here (" + said +
              "): unprivileged user namespaces are probably disabled; enable them with `sysctl -w "
              "kernel.unprivileged_userns_clone=1` (Debian), `sysctl -w user.max_user_namespaces=15000`, or on "
              "Ubuntu 23.10+ `sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` (or an AppArmor profile for "
              "bwrap)" +
              fallback;
  });
  return problem;
}

void add_toolchain(FilesystemView& view, const std::string& nvcc) {
  std::error_code ec;
  if (!nvcc.empty())
    if (fs::path real = fs::canonical(nvcc, ec); !ec) view.read_only.push_back(real.parent_path().parent_path());
  if (path_exists("/usr/local/cuda")) view.read_only.push_back("/usr/local/cuda");
  const char* library_path = std::getenv("LD_LIBRARY_PATH");
  std::string dirs = library_path ? library_path : "";
  for (size_t start = 0; start <= dirs.size();) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = dirs.substr(start, end - start);
    // A relative entry would name the job directory's neighbourhood: not a library folder.
    if (!dir.empty() && dir[0] == '/') view.read_only.push_back(dir);
    start = end + 1;
  }
}

std::vector<fs::path> repository_secrets(const fs::path& root, const std::vector<fs::path>& extra) {
  std::vector<fs::path> hidden = {root / ".git", root / ".kernelbot"};
  hidden.insert(hidden.end(), extra.begin(), extra.end());
  return hidden;
}

std::vector<std::string> system_view_arguments() {
  std::vector<std::string> argv = {"--ro-bind", "/usr", "/usr"};
  // Merged-/usr systems have /bin -> usr/bin: recreate the link, else bind the directory.
  for (const char* dir : {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) {
    std::error_code ec;
    if (fs::is_symlink(dir, ec)) add(argv, {"--symlink", fs::read_symlink(dir, ec).string(), dir});
    else if (fs::is_directory(dir, ec)) add(argv, {"--ro-bind", dir, dir});
  }
  // Only what the loader, the compilers and the C library read from /etc: not the whole of it,
  // which holds host keys and, as root, files the sandbox's own uid 0 could still open.
  for (const char* file : {"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
                           "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/localtime", "/etc/os-release"})
    if (path_exists(file)) add(argv, {"--ro-bind", file, file});
  if (path_exists("/opt")) add(argv, {"--ro-bind", "/opt", "/opt"});  // toolkits installed there
  return argv;
}

std::vector<std::string> gpu_device_nodes(const fs::path& dev_dir, const std::string& only) {
  std::vector<std::string> nodes;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dev_dir, ec)) {
    const std::string name = e.path().filename().string();
    if (!name.starts_with("nvidia")) continue;
    // /dev/nvidiaN is one GPU's; the others (nvidiactl, nvidia-uvm, nvidia-caps/) serve them all.
    const bool one_gpus = name.size() > 6 &&
                          std::all_of(name.begin() + 6, name.end(), [](unsigned char c) { return std::isdigit(c); });
    if (one_gpus && !only.empty() && e.path().filename() != fs::path(only).filename()) continue;
    nodes.push_back(e.path().string());
  }
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

std::vector<std::string> bwrap_argv(const std::string& bwrap, const FilesystemView& view,
                                    const std::vector<std::string>& command, const fs::path& working_dir) {
  std::vector<std::string> argv = {bwrap, "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
                                   "--unshare-net", "--unshare-cgroup-try",
                                   // Dies when kernelbot does; its own session, so it cannot reach a
                                   // terminal (TIOCSTI). No --hostname: its own UTS namespace keeps
                                   // the machine's name (which it cannot change), as any program on
                                   // the machine sees it, not a constant that says it is judged.
                                   "--die-with-parent", "--new-session",
                                   // uid 0 inside keeps no capability, even in its own namespace.
                                   "--cap-drop", "ALL"};
  for (const auto& a : system_view_arguments()) argv.push_back(a);
  add(argv, {"--proc", "/proc", "--dev", "/dev", "--size", std::to_string(view.tmp_size_mb * 1024 * 1024), "--tmpfs",
             "/tmp"});
  if (view.gpu) {
    for (const auto& node : gpu_device_nodes("/dev", view.gpu_device_node)) add(argv, {"--dev-bind", node, node});
    // The driver and NVML read the PCI topology and the GPU's attributes from sysfs.
    add(argv, {"--ro-bind", "/sys", "/sys"});
  }

  std::vector<fs::path> hidden, read_only, writable;
  for (const auto& h : view.hidden) hidden.push_back(normal(h));
  // Paths inside the system view are visible already (and binding one that is a link, such as
  // /usr/local/cuda, over the read-only /usr fails).
  const std::vector<fs::path> system = {"/usr", "/opt"};
  for (const auto& p : view.read_only)
    if (path_exists(p) && !inside_any(normal(p), system)) read_only.push_back(normal(p));
  for (const auto& p : view.writable) writable.push_back(normal(p));
  std::sort(read_only.begin(), read_only.end());
  read_only.erase(std::unique(read_only.begin(), read_only.end()), read_only.end());
  std::sort(writable.begin(), writable.end());

  // Outer binds first, then the masks over what they expose, then binds inside masked places
  // (a job directory under .kernelbot/), which a mask laid later would cover.
  std::vector<fs::path> visible;
  for (const auto& p : read_only)
    if (!inside_any(p, hidden)) {
      add(argv, {"--ro-bind", p.string(), p.string()});
      visible.push_back(p);
    }
  std::vector<fs::path> masks;
  for (const auto& h : hidden) {
    if (!path_exists(h) || !(inside_any(h, visible) || inside_any(h, writable))) continue;
    // Inside another mask it is hidden already (and a mask in a mask cannot be made read-only).
    if (std::any_of(hidden.begin(), hidden.end(), [&](const fs::path& o) { return o != h && inside(h, o); })) continue;
    std::error_code ec;
    if (fs::is_directory(h, ec)) add(argv, {"--tmpfs", h.string()}), masks.push_back(h);
    else add(argv, {"--ro-bind", "/dev/null", h.string()});
  }
  for (const auto& p : read_only)
    if (inside_any(p, hidden)) add(argv, {"--ro-bind", p.string(), p.string()});
  for (const auto& p : writable) add(argv, {"--bind", p.string(), p.string()});
  for (const auto& m : masks) add(argv, {"--remount-ro", m.string()});
  if (!working_dir.empty()) add(argv, {"--chdir", normal(working_dir).string()});
  argv.push_back("--");
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

}  // namespace kb::profiler

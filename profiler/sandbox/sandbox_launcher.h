// The namespace sandbox: the bubblewrap (bwrap) command line that runs one candidate process
// (nvcc on its source, the harness that loads it) in new user, pid, ipc, uts and network
// namespaces, with a read-only view of the system, only the paths the job names (the kernel's
// sources and include directories, the toolkit, the harness), the repository's .git/ and
// .kernelbot/ masked even where a parent directory is visible, a private /tmp and one writable job
// directory. It dies with its parent, and every process in it dies with the pid namespace's init.
//
// Built on bwrap, a well-kept tool (Flatpak's), rather than our own unshare()/mount() code: the
// order of mounts, pivot_root and capability dropping are easy to get subtly wrong.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace kb::profiler {

// [verify].sandbox: where candidates run.
enum class SandboxKind {
  namespaces,  // bubblewrap; the default, and required unless `process` is chosen explicitly
  process,     // a scrubbed child process of the same user, without capabilities: no file or network isolation
};
std::string to_string(SandboxKind kind);

// What a sandboxed command may see. Paths are bound at the same path inside.
struct FilesystemView {
  std::vector<std::filesystem::path> read_only;  // files or directories; missing ones are skipped
  std::vector<std::filesystem::path> writable;   // the job directory
  // Masked (an empty directory or an empty file) where they lie inside a visible path: the
  // repository's .git and .kernelbot, the parent's secrets.
  std::vector<std::filesystem::path> hidden;
  bool gpu = false;  // /dev/nvidia* and /sys, for the harness
  // With `gpu`: the one numbered GPU node to bind ("/dev/nvidia1"; gpu_confinement.h), beside the
  // nodes every GPU shares (nvidiactl, nvidia-uvm, ...). Empty: every /dev/nvidia*.
  std::string gpu_device_node;
  int64_t tmp_size_mb = 1024;  // the private /tmp (RAM-backed)
};

// $KERNELBOT_BWRAP, else bwrap on PATH, else /usr/bin/bwrap; empty when none is executable.
std::string find_bwrap();

// Empty when the namespace sandbox works here (bwrap found and able to create the namespaces:
// checked once per process by running it); otherwise why not and what to do, naming the
// bubblewrap package, the kernel.unprivileged_userns_clone / user.max_user_namespaces sysctls
// (and AppArmor's kernel.apparmor_restrict_unprivileged_userns), and [verify].sandbox = "process".
std::string namespace_sandbox_problem();

// The bwrap arguments that run `command` (argv[0] an absolute path) in `view`, in `working_dir`.
std::vector<std::string> bwrap_argv(const std::string& bwrap, const FilesystemView& view,
                                    const std::vector<std::string>& command, const std::filesystem::path& working_dir);

// The NVIDIA device nodes in `dev_dir` to bind: every /dev/nvidia* entry, or, when `only` names
// one GPU's node ("/dev/nvidia1"), that one and the shared ones (nvidiactl, nvidia-uvm, ...).
std::vector<std::string> gpu_device_nodes(const std::filesystem::path& dev_dir, const std::string& only);

// Adds what a CUDA program or compiler needs beyond the system view: the toolkit `nvcc` belongs to
// (its real root, which may lie outside /usr) and each directory of $LD_LIBRARY_PATH (a carried
// driver or library folder), read-only.
void add_toolchain(FilesystemView& view, const std::string& nvcc);

// What a repository keeps that no candidate may see, to be masked: <root>/.git (a directory, or a
// worktree's file), <root>/.kernelbot, plus the extra paths given (the work directory and the
// archive's folder when configured elsewhere).
std::vector<std::filesystem::path> repository_secrets(const std::filesystem::path& root,
                                                      const std::vector<std::filesystem::path>& extra = {});

// The directories of the system every program needs, read-only: /usr and the /bin, /lib...
// links or directories beside it, the loader's and compiler's files of /etc, /opt.
std::vector<std::string> system_view_arguments();

}  // namespace kb::profiler

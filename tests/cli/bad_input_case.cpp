// The runner of the bad-input table (bad_input_case.h): lays a row's files over a fresh copy of the
// small repository, fingerprints everything, runs the row plain and with --json, and compares.
#include "tests/cli/bad_input_case.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/sha256.h"
#include "tests/support/file_permissions_apply.h"
#include "tests/support/kernelbot_process.h"

namespace fs = std::filesystem;

namespace kb::testing {
namespace {

const char* kRowSource = R"(#ifndef BLOCK
#define BLOCK 256
#endif
#include "relu_ops.h"

__global__ void relu_kernel(float* x, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) x[i] = relu_op(x[i]);
}

template <typename T, int B>
__global__ void scale_kernel(T* x, int n) {
  int i = blockIdx.x * B + threadIdx.x;
  if (i < n) x[i] = x[i] * T(2);
}

void launch_relu(float* x, int n, cudaStream_t stream) {
  relu_kernel<<<(n + BLOCK - 1) / BLOCK, BLOCK, 0, stream>>>(x, n);
}
)";

const char* kRowHeader = R"(#pragma once
__device__ inline float relu_op(float v) { return v > 0 ? v : 0; }
)";

const char* kValidConfig = R"toml([[kernel]]
name = "relu"
source = "src/relu.cu"
launcher = "launch_relu"
sizes = [{ n = 4096 }]
tunables = { BLOCK = [128, 256] }
  [[kernel.arg]]
  name = "x"
  role = "inout"
  dtype = "float32"
  count = "n"
  [[kernel.arg]]
  name = "n"
  role = "size"
  dtype = "int32"
  value = "n"
  [[kernel.arg]]
  name = "stream"
  role = "stream"

[[kernel]]
name = "scale"
source = "src/relu.cu"
global = "scale_kernel"
template_args = "float, 256"
grid = "ceil_div(n, 256)"
block = "256"
shared_bytes = "0"
sizes = [{ n = 4096 }]
  [[kernel.arg]]
  name = "x"
  role = "inout"
  dtype = "float32"
  count = "n"
  [[kernel.arg]]
  name = "n"
  role = "size"
  dtype = "int32"
  value = "n"
)toml";

// How long one run may take: far beyond any row's need, so a hang fails the exit-code check
// (timeout's 124) instead of holding the suite.
constexpr const char* kBound = "timeout 20 ";

// Files above this are fingerprinted by size and modification time instead of SHA-256: the rows'
// huge files are sparse zeros whose hashing would cost more than the run itself.
constexpr std::uintmax_t kHashedBytes = std::uintmax_t{1} << 20;

std::string row_file_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every file under `dir` (symlinks by their target, never followed, so a loop is one entry;
// directories and FIFOs by their kind) with its fingerprint, keyed by its path under `base`.
void add_row_fingerprints(const fs::path& base, const fs::path& dir, std::map<std::string, std::string>& out) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, fs::directory_options::skip_permission_denied, ec)) {
    const fs::path& p = entry.path();
    const fs::file_status st = fs::symlink_status(p, ec);
    const std::string key = fs::relative(p, base, ec).string();
    if (fs::is_symlink(st)) {
      out[key] = "-> " + fs::read_symlink(p, ec).string();
    } else if (fs::is_directory(st)) {
      out[key] = "directory";
      add_row_fingerprints(base, p, out);
    } else if (fs::is_fifo(st)) {
      out[key] = "fifo";
    } else if (fs::is_regular_file(st) && fs::file_size(p, ec) > kHashedBytes) {
      out[key] = std::to_string(fs::file_size(p, ec)) + " bytes, modified " +
                 std::to_string(fs::last_write_time(p, ec).time_since_epoch().count());
    } else if (fs::is_regular_file(st)) {
      out[key] = kb::sha256_hex(row_file_bytes(p));
    } else {
      out[key] = "other";
    }
  }
}

std::map<std::string, std::string> row_fingerprints(const fs::path& base) {
  std::map<std::string, std::string> out;
  add_row_fingerprints(base, base, out);
  return out;
}

void lay_row_file(const fs::path& repo, const fs::path& outside, const RowFile& f) {
  const fs::path p = repo / f.path;
  fs::create_directories(p.parent_path());
  std::error_code ec;
  fs::remove_all(p, ec);
  switch (f.kind) {
    case RowFile::Kind::text: std::ofstream(p, std::ios::binary) << f.text; break;
    case RowFile::Kind::fifo: ASSERT_EQ(::mkfifo(p.c_str(), 0644), 0) << p; break;
    case RowFile::Kind::symlink: {
      std::string target = f.text;
      if (target.rfind("{outside}", 0) == 0) target = outside.string() + target.substr(9);
      fs::create_symlink(target, p);
      break;
    }
    case RowFile::Kind::directory: fs::create_directories(p); break;
    case RowFile::Kind::unreadable:
      std::ofstream(p, std::ios::binary) << f.text;
      fs::permissions(p, fs::perms::none);
      break;
    case RowFile::Kind::removed: break;
    case RowFile::Kind::huge: {
      std::ofstream(p, std::ios::binary) << f.text;
      ASSERT_EQ(::truncate(p.c_str(), static_cast<off_t>(f.bytes)), 0) << p;
      break;
    }
  }
}

// The strings anywhere in a JSON value, joined: the error object's message and its diagnostics.
std::string json_strings(const nlohmann::json& j) {
  if (j.is_string()) return j.get<std::string>() + "\n";
  std::string out;
  if (j.is_structured())
    for (const auto& item : j) out += json_strings(item);
  return out;
}

bool row_has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// A pipe whose reader has gone, while it lives: a write to it fails with EPIPE. Its descriptor is
// a single digit, the most a POSIX shell's `>&N` takes.
class ClosedPipe {
 public:
  ClosedPipe() {
    int fds[2];
    if (::pipe(fds) != 0) return;
    ::close(fds[0]);
    fd_ = fds[1];
    for (int n = 3; fd_ > 9 && n <= 9; ++n)
      if (::fcntl(n, F_GETFD) == -1 && ::dup2(fd_, n) == n) {
        ::close(fd_);
        fd_ = n;
      }
  }
  ~ClosedPipe() {
    if (fd_ >= 0) ::close(fd_);
  }
  ClosedPipe(const ClosedPipe&) = delete;
  ClosedPipe& operator=(const ClosedPipe&) = delete;
  std::string redirection() const { return "&" + std::to_string(fd_); }

 private:
  int fd_ = -1;
};

}  // namespace

RowFile text_file(std::string path, std::string text) {
  return {std::move(path), RowFile::Kind::text, std::move(text)};
}
RowFile fifo_file(std::string path) { return {std::move(path), RowFile::Kind::fifo, ""}; }
RowFile symlink_file(std::string path, std::string target) {
  return {std::move(path), RowFile::Kind::symlink, std::move(target)};
}
RowFile directory_file(std::string path) { return {std::move(path), RowFile::Kind::directory, ""}; }
RowFile unreadable_file(std::string path, std::string text) {
  return {std::move(path), RowFile::Kind::unreadable, std::move(text)};
}
RowFile huge_file(std::string path, std::string text, std::uintmax_t bytes) {
  return {std::move(path), RowFile::Kind::huge, std::move(text), bytes};
}

RowFile removed_file(std::string path) { return {std::move(path), RowFile::Kind::removed, ""}; }

std::string valid_config() { return kValidConfig; }

std::string replaced(const std::string& text, const std::string& old, const std::string& replacement) {
  const size_t at = text.find(old);
  if (at == std::string::npos) throw std::logic_error("the row's config has no '" + old + "' to replace");
  return text.substr(0, at) + replacement + text.substr(at + old.size());
}

std::string config_with(const std::string& old, const std::string& replacement) {
  return replaced(kValidConfig, old, replacement);
}

std::string config_with_section(const std::string& section_text) { return section_text + "\n" + kValidConfig; }

std::string position_of(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  if (at == std::string::npos) throw std::logic_error("the row's config has no '" + needle + "'");
  return "kernelbot.toml:" + std::to_string(1 + std::count(text.begin(), text.begin() + at, '\n')) + ":";
}

std::string row_name(const ::testing::TestParamInfo<BadInputRow>& info) { return info.param.name; }

void PrintTo(const BadInputRow& row, std::ostream* os) { *os << "kernelbot " << row.args; }

TEST_P(BadInputTable, FailsWithItsExitCodeAndMessageAndTouchesNothing) {
  const BadInputRow& row = GetParam();
  const fs::path base = fs::temp_directory_path() / ("kb_bad_row_" + std::to_string(::getpid()) + "_" + row.name);
  const fs::path repo = base / "repo";
  fs::remove_all(base);
  fs::create_directories(repo / "src");
  std::ofstream(repo / "src/relu.cu") << kRowSource;
  std::ofstream(repo / "src/relu_ops.h") << kRowHeader;
  std::ofstream(repo / "kernelbot.toml") << kValidConfig;
  std::ofstream(base / "outside.cu") << kRowSource;
  std::ofstream(base / "outside.toml") << kValidConfig;
  for (const RowFile& f : row.files) {
    lay_row_file(repo, base, f);
    if (HasFatalFailure()) return;
  }
  const auto before = row_fingerprints(base);
  // Root (CI) runs without the capabilities that ignore file modes, so an unreadable file is one.
  const std::string env = std::string(kBound) + permission_checked_prefix();

  for (const bool json : {false, true}) {
    SCOPED_TRACE(json ? "with --json" : "plain");
    KernelbotRun r;
    if (row.stdout_to == RowStdout::captured) {
      r = run_kernelbot((json ? "--json " : "") + row.args, repo, env);
    } else if (row.stdout_to == RowStdout::dev_full) {
      r = run_kernelbot((json ? "--json " : "") + row.args, repo, env, "/dev/full");
    } else {
      ClosedPipe pipe;
      r = run_kernelbot((json ? "--json " : "") + row.args, repo, env, pipe.redirection());
    }
    EXPECT_EQ(r.exit_code, row.exit_code) << r.out << r.err;
    for (const std::string& m : row.messages) EXPECT_TRUE(row_has(r.err, m)) << "expected '" << m << "' in:\n" << r.err;
    // Work that needs a GPU is refused for the bad input first, never for the missing GPU.
    EXPECT_FALSE(row_has(r.err, "no CUDA device")) << r.err;
    EXPECT_FALSE(row_has(r.out, ": ok")) << r.out;
    if (json && row.stdout_to == RowStdout::captured) {
      // One JSON object, nothing before or after it, that says the command failed and why.
      const auto j = nlohmann::json::parse(r.out, nullptr, false);
      ASSERT_TRUE(j.is_object()) << "not one JSON object:\n" << r.out;
      EXPECT_EQ(j.value("ok", true), false) << r.out;
      EXPECT_EQ(j.value("exit_code", -1), row.exit_code) << r.out;
      ASSERT_TRUE(j.contains("error") && j["error"].is_object()) << r.out;
      const std::string kind = j["error"].value("kind", "");
      if (row.exit_code == 2) {
        EXPECT_TRUE(kind == "usage" || kind == "config") << r.out;
      } else {
        EXPECT_EQ(kind, "failed") << r.out;
      }
      if (!row.messages.empty() && row.messages.back().rfind("kernelbot.toml:", 0) != 0) {
        EXPECT_TRUE(row_has(json_strings(j["error"]), row.messages.back())) << row.messages.back() << "\n" << r.out;
      }
    }
    // Nothing it found changed; nothing new outside .kernelbot/ (a run's work directory).
    const auto after = row_fingerprints(base);
    for (const auto& [path, print] : before) {
      const auto it = after.find(path);
      EXPECT_TRUE(it != after.end() && it->second == print) << path << " changed or went missing";
    }
    for (const auto& [path, print] : after)
      if (!before.count(path) && path.rfind("repo/.kernelbot", 0) != 0) ADD_FAILURE() << path << " was created";
  }
  // The test's own files may be unreadable to a non-root user: make them removable first.
  for (const RowFile& f : row.files)
    if (f.kind == RowFile::Kind::unreadable) fs::permissions(repo / f.path, fs::perms::owner_all);
  fs::remove_all(base);
}

}  // namespace kb::testing

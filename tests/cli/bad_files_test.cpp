// What kernelbot does with files a user did not mean to hand it: a config, source or candidate that
// is a FIFO, a device, a directory or a link out of the repository; a kernelbot.toml or backup that
// is a symlink; stdout on a full disk. Each case asserts the exit code, the message, that nothing
// hangs (each run is bounded by `timeout`, whose 124 would fail the exit-code check) and that the
// files it must not touch keep their bytes (SHA-256 before and after).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sys/wait.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "common/sha256.h"
#include "tests/support/file_permissions_apply.h"
#include "tests/support/kernelbot_process.h"

namespace fs = std::filesystem;

namespace {

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A complete config for the fixture's ops::scale (float overload), with its source replaced.
std::string scale_config(const std::string& source = "ops.cu", const std::string& extra = "") {
  return "[[kernel]]\nname = \"scale\"\nsource = \"" + source + "\"\n" + extra +
         R"(launcher = "ops::scale"
sizes = [{ n = 1048576 }]
  [[kernel.arg]]
  name = "x"
  role = "input"
  dtype = "float32"
  count = "n"
  [[kernel.arg]]
  name = "y"
  role = "output"
  dtype = "float32"
  count = "n"
  [[kernel.arg]]
  name = "s"
  role = "scalar"
  dtype = "float32"
  value = 2.0
  [[kernel.arg]]
  name = "n"
  role = "size"
  dtype = "int32"
  value = "n"
  [[kernel.arg]]
  name = "stream"
  role = "stream"
)";
}

class BadFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() / ("kb_bad_files_" + std::to_string(getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(base_);
    dir_ = base_ / "repo";
    fs::create_directories(dir_);
    fs::copy(fs::path(KB_SOURCE_DIR) / "tests/fixtures/production_style", dir_, fs::copy_options::recursive);
    std::ofstream(base_ / "outside.cu") << bytes_of(dir_ / "ops.cu");
  }
  void TearDown() override { fs::remove_all(base_); }

  // Bounded: a hang is exit 124, never a stuck test.
  kb::testing::KernelbotRun kernelbot(const std::string& args) {
    return kb::testing::run_kernelbot(args, dir_, "timeout 60");
  }
  void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }
  // Every regular file under the base directory with its hash, to compare before and after.
  std::map<std::string, std::string> fingerprints() const {
    std::map<std::string, std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(base_)) {
      std::error_code ec;
      if (e.is_symlink(ec)) out[e.path().string()] = "-> " + fs::read_symlink(e.path()).string();
      else if (e.is_regular_file(ec)) out[e.path().string()] = kb::sha256_hex(bytes_of(e.path()));
    }
    return out;
  }
  // `kernelbot <args>` with stdout on /dev/full: the exit code and stderr.
  std::pair<int, std::string> kernelbot_to_full_disk(const std::string& args) {
    const fs::path err = base_ / "stderr.txt";
    const std::string cmd = "cd '" + dir_.string() + "' && timeout 60 '" + KB_BINARY_DIR + "/bot/kernelbot' " + args +
                            " >/dev/full 2>'" + err.string() + "' </dev/null";
    const int status = std::system(cmd.c_str());
    const std::string text = bytes_of(err);
    fs::remove(err);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text};
  }
  bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

  fs::path base_, dir_;
};

}  // namespace

// A FIFO config with no writer: refused at once by every command that reads the config.
TEST_F(BadFiles, AFifoConfigIsRefusedWithoutBlocking) {
  ASSERT_EQ(::mkfifo((dir_ / "kernelbot.toml").c_str(), 0644), 0);
  const auto before = fingerprints();
  for (const char* cmd : {"config check", "config show", "check", "run --dry-run"}) {
    auto r = kernelbot(cmd);
    EXPECT_EQ(r.exit_code, 2) << cmd << "\n" << r.err;
    EXPECT_TRUE(has(r.err, "kernelbot.toml: error: cannot read")) << cmd << "\n" << r.err;
    EXPECT_TRUE(has(r.err, "it is a FIFO (named pipe), not a regular file")) << cmd << "\n" << r.err;
  }
  EXPECT_EQ(fingerprints(), before);
}

TEST_F(BadFiles, ADevZeroConfigBehindASymlinkIsRefusedWithoutReading) {
  fs::create_symlink("/dev/zero", dir_ / "kernelbot.toml");
  const auto before = fingerprints();
  auto r = kernelbot("config check");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "(a symlink to /dev/zero): it is a character device, not a regular file")) << r.err;
  EXPECT_EQ(fingerprints(), before);
}

TEST_F(BadFiles, AConfigOrASourceOverTheSizeLimitSaysTheLimit) {
  write(dir_ / "kernelbot.toml", scale_config() + "# " + std::string(65 << 20, 'x') + "\n");
  auto before = fingerprints();
  auto r = kernelbot("config check");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "it is larger than the 64 MiB limit for this file")) << r.err;
  EXPECT_EQ(fingerprints(), before);
  fs::remove(dir_ / "kernelbot.toml");
  write(dir_ / "kernelbot.toml", scale_config());
  write(dir_ / "ops.cu", bytes_of(dir_ / "ops.cu") + "// " + std::string(17 << 20, 'x') + "\n");
  before = fingerprints();
  r = kernelbot("config check");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "kernel[0].source: cannot read")) << r.err;
  EXPECT_TRUE(has(r.err, "it is larger than the 16 MiB limit for this file")) << r.err;
  EXPECT_EQ(fingerprints(), before);
}

// A config that cannot be read says why (here a symlink loop, which root meets too), not "does it
// exist?".
TEST_F(BadFiles, AConfigThatIsASymlinkLoopSaysWhy) {
  fs::create_symlink(dir_ / "b.toml", dir_ / "kernelbot.toml");
  fs::create_symlink(dir_ / "kernelbot.toml", dir_ / "b.toml");
  const auto before = fingerprints();
  auto r = kernelbot("config check");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "cannot read " + (dir_ / "kernelbot.toml").string())) << r.err;
  EXPECT_TRUE(has(r.err, "Too many levels of symbolic links")) << r.err;
  EXPECT_FALSE(has(r.err, "does it exist")) << r.err;
  EXPECT_EQ(fingerprints(), before);
}

// Also as root (CI): kernelbot runs without the capabilities that let root ignore a file's mode.
TEST_F(BadFiles, AConfigWithoutPermissionSaysWhy) {
  write(dir_ / "kernelbot.toml", scale_config());
  fs::permissions(dir_ / "kernelbot.toml", fs::perms::none);
  const auto before = fingerprints();
  auto r = kb::testing::run_kernelbot("config check", dir_, "timeout 60 " + kb::testing::permission_checked_prefix());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(
      has(r.err, "kernelbot.toml: error: cannot read " + (dir_ / "kernelbot.toml").string() + ": Permission denied"))
      << r.err;
  EXPECT_EQ(fingerprints(), before);
}

// A source that cannot be read is said to be so, at its field, not "no function ... is defined".
TEST_F(BadFiles, ASourceThatIsAFifoADeviceOrADirectoryIsNamedAsSuch) {
  ASSERT_EQ(::mkfifo((dir_ / "fifo.cu").c_str(), 0644), 0);
  fs::create_symlink("/dev/zero", dir_ / "zero.cu");
  fs::create_directories(dir_ / "dir.cu");
  const std::map<std::string, std::string> expected = {{"fifo.cu", "it is a FIFO (named pipe), not a regular file"},
                                                       {"zero.cu",
                                                        "(a symlink to /dev/zero): it is a character device"},
                                                       {"dir.cu", "it is a directory, not a regular file"}};
  for (const auto& [source, message] : expected) {
    // /dev/zero is outside the repository too: opted in here, so that the read itself is what fails.
    write(dir_ / "kernelbot.toml", "[project]\nsources_outside_root = true\n\n" + scale_config(source));
    const auto before = fingerprints();
    auto r = kernelbot("config check");
    EXPECT_EQ(r.exit_code, 2) << source << "\n" << r.err;
    EXPECT_TRUE(has(r.err, "kernel[0].source: cannot read " + (dir_ / source).string())) << source << "\n" << r.err;
    EXPECT_TRUE(has(r.err, message)) << source << "\n" << r.err;
    EXPECT_FALSE(has(r.err, "is defined in")) << source << "\n" << r.err;
    EXPECT_EQ(fingerprints(), before) << source;
  }
}

// Without the opt-in, a link to /dev/zero is first a source outside the repository.
TEST_F(BadFiles, ASourceLinkedToDevZeroIsOutsideTheRepository) {
  fs::create_symlink("/dev/zero", dir_ / "zero.cu");
  write(dir_ / "kernelbot.toml", scale_config("zero.cu"));
  const auto before = fingerprints();
  auto r = kernelbot("config check");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "kernel[0].source: \"zero.cu\" resolves outside the repository (/dev/zero)")) << r.err;
  EXPECT_EQ(fingerprints(), before);
}

TEST_F(BadFiles, AnExtraSourceThatIsAFifoIsNamedAtItsField) {
  ASSERT_EQ(::mkfifo((dir_ / "extra.cu").c_str(), 0644), 0);
  write(dir_ / "kernelbot.toml", scale_config("ops.cu", "extra_sources = [\"extra.cu\"]\n"));
  const auto before = fingerprints();
  auto r = kernelbot("config check");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "kernel[0].extra_sources: cannot read")) << r.err;
  EXPECT_TRUE(has(r.err, "FIFO")) << r.err;
  EXPECT_EQ(fingerprints(), before);
}

// discover and init walk the tree: a FIFO or a device named .cu is reported as skipped and the
// other files are still scanned.
TEST_F(BadFiles, DiscoverAndInitSkipAFifoOrADeviceInTheTreeAndSaySo) {
  ASSERT_EQ(::mkfifo((dir_ / "fifo.cu").c_str(), 0644), 0);
  fs::create_symlink("/dev/zero", dir_ / "zero.cuh");
  fs::create_symlink(dir_ / "gone.cu", dir_ / "dangling.cu");
  const auto before = fingerprints();
  auto r = kernelbot("discover");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "ops::scale")) << r.out;
  EXPECT_TRUE(has(r.out, "fifo.cu")) << r.out;
  EXPECT_TRUE(has(r.out, "it is a FIFO (named pipe)")) << r.out;
  EXPECT_TRUE(has(r.out, "it is a character device")) << r.out;
  EXPECT_TRUE(has(r.out, "a symlink that leads nowhere")) << r.out;
  r = kernelbot("init --stdout");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "launcher = \"ops::scale\"")) << r.out;
  EXPECT_TRUE(has(r.err, "skipped fifo.cu")) << r.err;
  EXPECT_EQ(fingerprints(), before);
}

// eval reads the candidate the same one way (before any GPU is needed).
TEST_F(BadFiles, ACandidateThatIsAFifoOrADeviceIsRefused) {
  write(dir_ / "kernelbot.toml", scale_config());
  ASSERT_EQ(::mkfifo((dir_ / "cand.cu").c_str(), 0644), 0);
  fs::create_symlink("/dev/zero", dir_ / "zero.cu");
  const auto before = fingerprints();
  for (const auto& [file, message] : std::map<std::string, std::string>{{"cand.cu", "it is a FIFO (named pipe)"},
                                                                        {"zero.cu", "it is a character device"}}) {
    auto r = kernelbot("eval --kernel scale --candidate " + file);
    EXPECT_EQ(r.exit_code, 2) << file << "\n" << r.err;
    EXPECT_TRUE(has(r.err, "the candidate: cannot read " + file)) << file << "\n" << r.err;
    EXPECT_TRUE(has(r.err, message)) << file << "\n" << r.err;
  }
  EXPECT_EQ(fingerprints(), before);
}

// A source outside the repository, by `..` or by a symlink, is an error at the field unless the
// config opts in.
TEST_F(BadFiles, ASourceOutsideTheRepositoryIsAnErrorUnlessOptedIn) {
  fs::create_symlink(base_ / "outside.cu", dir_ / "link.cu");
  for (const std::string source : {"../outside.cu", "link.cu"}) {
    write(dir_ / "kernelbot.toml", scale_config(source));
    const auto before = fingerprints();
    auto r = kernelbot("config check");
    EXPECT_EQ(r.exit_code, 2) << source << "\n" << r.err;
    EXPECT_TRUE(has(r.err, "kernel[0].source: \"" + source + "\" resolves outside the repository")) << r.err;
    EXPECT_TRUE(has(r.err, "sources_outside_root = true")) << r.err;
    EXPECT_EQ(fingerprints(), before);
    write(dir_ / "kernelbot.toml", "[project]\nsources_outside_root = true\n\n" + scale_config(source));
    r = kernelbot("config check");
    EXPECT_FALSE(has(r.err, "resolves outside the repository")) << source << "\n" << r.err;
    EXPECT_EQ(r.exit_code, 0) << source << "\n" << r.err;
  }
  write(dir_ / "kernelbot.toml", "[project]\nextra_sources = [\"app.cu\", \"../outside.cu\"]\n\n" + scale_config());
  auto r = kernelbot("config check");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "project.extra_sources[1]: \"../outside.cu\" resolves outside the repository")) << r.err;
}

// Two `init --force` runs with a hand edit in between keep the hand edit; a run that would write
// what is there already changes nothing.
TEST_F(BadFiles, InitForceTwiceKeepsAHandEdit) {
  ASSERT_EQ(kernelbot("init").exit_code, 0);
  const std::string generated = bytes_of(dir_ / "kernelbot.toml");
  auto r = kernelbot("init --force");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.err, "already holds this config; left as it was")) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "kernelbot.toml.bak"));
  const std::string edited = generated + "\n# my own notes\n";
  write(dir_ / "kernelbot.toml", edited);
  ASSERT_EQ(kernelbot("init --force").exit_code, 0);
  EXPECT_EQ(bytes_of(dir_ / "kernelbot.toml.bak"), edited);
  write(dir_ / "kernelbot.toml", edited + "# more\n");
  r = kernelbot("init --force");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(bytes_of(dir_ / "kernelbot.toml.bak"), edited);
  EXPECT_EQ(bytes_of(dir_ / "kernelbot.toml.bak.1"), edited + "# more\n");
  EXPECT_TRUE(has(r.err, "kept as " + (dir_ / "kernelbot.toml.bak.1").string())) << r.err;
  EXPECT_EQ(bytes_of(dir_ / "kernelbot.toml"), generated);
}

// A backup name that is a symlink is passed over, never written through: the file it points to,
// outside the repository, keeps its bytes.
TEST_F(BadFiles, ABackupThatIsASymlinkIsNotWrittenThrough) {
  write(dir_ / "kernelbot.toml", "# mine\n");
  fs::create_symlink(base_ / "outside.cu", dir_ / "kernelbot.toml.bak");
  const std::string outside = kb::sha256_hex(bytes_of(base_ / "outside.cu"));
  auto r = kernelbot("init --force");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(kb::sha256_hex(bytes_of(base_ / "outside.cu")), outside);
  EXPECT_TRUE(fs::is_symlink(dir_ / "kernelbot.toml.bak"));
  EXPECT_EQ(bytes_of(dir_ / "kernelbot.toml.bak.1"), "# mine\n");
  EXPECT_FALSE(has(r.err, "Success")) << r.err;
}

// A kernelbot.toml that is a symlink is not replaced through the link, nor is the link replaced.
TEST_F(BadFiles, AConfigThatIsASymlinkIsNotOverwritten) {
  write(base_ / "shared.toml", "# shared\n");
  fs::create_symlink(base_ / "shared.toml", dir_ / "kernelbot.toml");
  const auto before = fingerprints();
  auto r = kernelbot("init --force");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(has(r.err, "cannot write " + (dir_ / "kernelbot.toml").string() + ": it is a symlink")) << r.err;
  EXPECT_EQ(fingerprints(), before);
}

// A write that fails on stdout fails the command: exit 1 and the reason on stderr.
TEST_F(BadFiles, StdoutOnAFullDiskIsAFailure) {
  write(dir_ / "kernelbot.toml", scale_config());
  const auto before = fingerprints();
  for (const char* cmd : {"config show", "init --stdout", "discover", "discover --json", "version"}) {
    auto [code, err] = kernelbot_to_full_disk(cmd);
    EXPECT_EQ(code, 1) << cmd << "\n" << err;
    EXPECT_TRUE(has(err, "kernelbot: error: cannot write to standard output: ")) << cmd << "\n" << err;
  }
  // A few bytes are still in the buffer at exit: the flush that fails says why.
  const auto [code, err] = kernelbot_to_full_disk("version");
  EXPECT_TRUE(has(err, "cannot write to standard output: No space left on device")) << err;
  EXPECT_EQ(fingerprints(), before);
}

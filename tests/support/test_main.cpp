// The main() of every test executable: GoogleTest's own, after spdlog's registry is made here.
//
// Why: Debian's spdlog is a compiled library that the sanitizer builds do not instrument. Its
// registry (and the default logger in it) is made by whichever thread logs first, behind a
// function-local static whose already-initialized fast path ThreadSanitizer cannot see; a test whose
// first log line comes from two of its worker threads at once then reads as a race on the logger's
// level. Made on the main thread before any test starts a thread, the logger is published by the
// thread's creation, as it is in kernelbot and the harness (their main() sets the logger first).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

int main(int argc, char** argv) {
  spdlog::default_logger_raw();
  testing::InitGoogleMock(&argc, argv);
  return RUN_ALL_TESTS();
}

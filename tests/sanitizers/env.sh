# Runtime options for a sanitizer build's tests: `. tests/sanitizers/env.sh address|thread` before
# building (gtest_discover_tests runs each test binary at build time) and before `ctest`. Exported
# rather than set per test in CMake because the tests start other instrumented programs (the
# kernelbot binary, the sandbox probe), which inherit them.
# shellcheck shell=bash
kb_sanitizers_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
case "${1:-}" in
  address)
    # halt_on_error: UB stops the test (the build also says -fno-sanitize-recover=undefined).
    # print_stacktrace: a UB report without a stack names only a header line of the STL.
    export ASAN_OPTIONS="abort_on_error=0:detect_stack_use_after_return=0:strict_string_checks=1:check_initialization_order=1"
    export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$kb_sanitizers_dir/ubsan.supp"
    export LSAN_OPTIONS="suppressions=$kb_sanitizers_dir/lsan.supp:print_suppressions=0"
    ;;
  thread)
    # second_deadlock_stack: a lock-order report shows where both locks were taken.
    export TSAN_OPTIONS="halt_on_error=0:second_deadlock_stack=1:suppressions=$kb_sanitizers_dir/tsan.supp"
    ;;
  *)
    echo "usage: . tests/sanitizers/env.sh address|thread" >&2
    return 2 2>/dev/null || exit 2
    ;;
esac
unset kb_sanitizers_dir

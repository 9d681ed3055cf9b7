#!/usr/bin/env bash
# clang-format (.clang-format) over every tracked C++ and CUDA file: rewrites them in place, or
# with --check only says which ones it would change (exit 1 if any). Third-party code is not
# tracked here, so every tracked file is ours. Source that is data is left as written: the example
# repository (examples/, which the demo's replays and PR texts quote), and the candidates and
# fixtures tests read as text (a hostile candidate's line splices and trigraphs are the test).
#
#   scripts/format.sh            format every tracked .h/.cpp/.cu/.cuh file
#   scripts/format.sh --check    list the files clang-format would change; change nothing
#
# .ci/run (and GitHub's workflow through it) runs the check: a commit of unformatted code fails CI.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
say() { printf 'format.sh: %s\n' "$*" >&2; }

clang_format="$(command -v clang-format || command -v clang-format-14 || true)"
[ -n "$clang_format" ] || { say "clang-format not found (Debian package clang-format)"; exit 1; }

data=(':!:examples/' ':!:tests/fixtures/' ':!:tests/profiler/candidates/' ':!:tests/profiler/originals/'
      ':!:tests/profiler/judge/variants/' ':!:tests/profiler/compile_bombs/' ':!:tests/cuda_source/policy_candidates/' ':!:tests/cuda_source/policy_repo/')
mapfile -t files < <(git ls-files -- '*.h' '*.cpp' '*.cu' '*.cuh' "${data[@]}")
case "${1:-}" in
  "")
    printf '%s\0' "${files[@]}" | xargs -0 -P "$(nproc)" -n 32 "$clang_format" -i
    say "formatted ${#files[@]} files"
    ;;
  --check)
    # --dry-run prints a warning per change; one file name per file that would change is enough.
    unformatted="$(printf '%s\0' "${files[@]}" | xargs -0 -P "$(nproc)" -n 32 "$clang_format" --dry-run 2>&1 |
                     sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: warning: code should be clang-formatted.*/\1/p' | sort -u)"
    if [ -n "$unformatted" ]; then
      printf '%s\n' "$unformatted"
      say "$(printf '%s\n' "$unformatted" | wc -l) of ${#files[@]} files are not formatted: scripts/format.sh formats them"
      exit 1
    fi
    say "all ${#files[@]} files are formatted"
    ;;
  *)
    say "unknown argument $1 (see the top of $0)"
    exit 2
    ;;
esac

#!/usr/bin/env bash
# clang-tidy (.clang-tidy) over kernelbot's product .cpp files (not tests/, examples/, bench/; .cu
# files are nvcc's), with a configured and built build/ for compile_commands.json and the headers
# each file includes. Exits non-zero on any finding (.clang-tidy makes warnings errors).
#
#   scripts/clang-tidy.sh             the files a change since its base touches (see below)
#   scripts/clang-tidy.sh --all       every product .cpp file (~150: 10 to 15 CPU-minutes)
#   KB_TIDY_BASE=<commit> scripts/clang-tidy.sh    the change since that commit
#
# A change is checked where it can matter: every .cpp file it edits and every one that includes
# (directly or not) a header it edits, per the build's own dependency records (ninja -t deps).
# The base is where HEAD left the main branch (origin/HEAD, origin/main or main); on the main
# branch itself, its last commit. Everything is checked when no base is found, when the change
# edits .clang-tidy or the build (CMake), or when it is more than half of the files anyway.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
cd "$root"
say() { printf 'clang-tidy.sh: %s\n' "$*" >&2; }

run_clang_tidy="$(command -v run-clang-tidy || command -v run-clang-tidy-14 || true)"
[ -n "$run_clang_tidy" ] || { say "run-clang-tidy not found (Debian package clang-tidy)"; exit 1; }
[ -f "$build/compile_commands.json" ] || { say "no $build/compile_commands.json: configure and build first"; exit 1; }

mapfile -t product < <(git ls-files '*.cpp' | grep -vE '^(tests|examples|bench)/')

base=""
if [ "${1:-}" != "--all" ]; then
  base="${KB_TIDY_BASE:-}"
  if [ -z "$base" ]; then
    for ref in origin/HEAD origin/main main; do
      base="$(git merge-base HEAD "$ref" 2>/dev/null)" && break
      base=""
    done
    # On the main branch itself: its last commit (a merge: everything it brought in).
    if [ -n "$base" ] && [ "$base" = "$(git rev-parse HEAD)" ]; then
      base="$(git rev-parse -q --verify 'HEAD^' 2>/dev/null || true)"
    fi
  fi
fi

files=("${product[@]}")
if [ -n "$base" ]; then
  # Committed since the base, and not yet committed.
  mapfile -t changed < <({ git diff --name-only "$base" HEAD; git diff --name-only HEAD; } | sort -u)
  if [ ${#changed[@]} -eq 0 ]; then
    say "nothing changed since ${base:0:12}: nothing to check"
    exit 0
  fi
  if printf '%s\n' "${changed[@]}" | grep -qE '(^|/)(\.clang-tidy|CMakeLists\.txt)$|^cmake/'; then
    say "the change edits .clang-tidy or the build: checking every file"
  else
    # The sources whose object depends on a changed file ("../" + path in ninja's records, which
    # are relative to the build directory).
    mapfile -t files < <(ninja -C "$build" -t deps 2>/dev/null | awk -v root="$root/" '
      FNR == NR { changed["../" $0] = 1; changed[root $0] = 1; next }
      /^[^ ]/ { source = ""; next }
      source == "" { source = $1; sub(/^\.\.\//, "", source); sub("^" root, "", source) }
      ($1 in changed) { hit[source] = 1 }
      END { for (s in hit) print s }' <(printf '%s\n' "${changed[@]}") - | sort |
      comm -12 - <(printf '%s\n' "${product[@]}" | sort))
    if [ ${#files[@]} -eq 0 ]; then
      say "no product .cpp file depends on what changed since ${base:0:12}: nothing to check"
      exit 0
    fi
    if [ $((2 * ${#files[@]})) -gt ${#product[@]} ]; then
      files=("${product[@]}")
    fi
  fi
fi
say "checking ${#files[@]} of ${#product[@]} product .cpp files${base:+ (changed since ${base:0:12})}"

# run-clang-tidy takes regular expressions: each path anchored.
log="$build/clang-tidy.log"
if ! "$run_clang_tidy" -p "$build" -quiet -j "$(nproc)" "${files[@]/#/^$root/}" >"$log" 2>&1; then
  # run-clang-tidy 14 always asks for color: strip it to find the findings' lines.
  sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E ': (warning|error):' | sort -u >&2 || tail -n 20 "$log" >&2
  say "findings above (the whole output: $log)"
  exit 1
fi
say "no findings"

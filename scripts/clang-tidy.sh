#!/usr/bin/env bash
# clang-tidy (.clang-tidy) over kernelbot's product .cpp files (not tests/, examples/, bench/; .cu
# files are nvcc's), with a configured and built build/ for compile_commands.json and the headers
# each file includes. Exits non-zero on any finding (.clang-tidy makes warnings errors).
#
#   scripts/clang-tidy.sh             the product .cpp files the last commit(s) changed (below)
#   scripts/clang-tidy.sh --all       every product .cpp file (~160: 10 to 15 CPU-minutes)
#   KB_TIDY_BASE=<commit> scripts/clang-tidy.sh    the change since that commit
#
# "The last commit(s)": on the main branch, HEAD against its first parent (a merge: everything it
# brought in); on another branch, everything since it left main (origin/main in a clone). Not yet
# committed changes count too. An edited header is checked through its own .cpp file (foo.h with
# foo.cpp): .clang-tidy's HeaderFilterRegex reports our headers' findings there. Files that merely
# include an edited header are not re-checked: the whole tree takes 10 to 15 CPU-minutes, more
# than CI's budget on two cores, and `--all` is there for a change to .clang-tidy itself.
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
    main_ref=""
    for ref in main origin/main; do
      git rev-parse -q --verify "$ref^{commit}" >/dev/null && { main_ref="$ref"; break; }
    done
    if [ -z "$main_ref" ]; then
      say "no main branch to compare with: checking every file"
    elif git merge-base --is-ancestor HEAD "$main_ref"; then
      base="$(git rev-parse -q --verify 'HEAD^1' || true)"   # on main: its last commit
    else
      base="$(git merge-base HEAD "$main_ref")"
    fi
  fi
fi

files=("${product[@]}")
if [ -n "$base" ]; then
  # Committed since the base, and not yet committed.
  mapfile -t changed < <({ git diff --name-only "$base" HEAD; git diff --name-only HEAD; } | sort -u)
  declare -A is_product=()
  for f in "${product[@]}"; do is_product["$f"]=1; done
  declare -A pick=()
  for f in "${changed[@]}"; do
    case "$f" in
      *.cpp) if [ -n "${is_product[$f]:-}" ]; then pick["$f"]=1; fi ;;
      *.h) if [ -n "${is_product[${f%.h}.cpp]:-}" ]; then pick["${f%.h}.cpp"]=1; fi ;;
    esac
  done
  files=("${!pick[@]}")
  if [ ${#files[@]} -eq 0 ]; then
    say "no product .cpp file changed since ${base:0:12}: nothing to check"
    exit 0
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

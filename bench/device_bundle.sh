#!/usr/bin/env bash
# Packs what bench/device_check.sh needs on a bare GPU machine, from the build in build/:
#   .devbuild/  the build folder without objects, static libraries, ninja state and CPU-only test
#               binaries (the `gpu`-labelled tests' executables stay), large binaries stripped of
#               debug information, so it fits the device tool's 64 MiB carry limit;
#   .devlibs/   the shared libraries those binaries need that the GPU machine lacks, and a bubblewrap.
# Both are listed in .git/info/exclude. `--previous` instead keeps this build's search_throughput
# and kernelbot-harness in .devold/ (stripped), to compare a later build's judge with this one
# (bench/device_check.sh judges). Then, with the device tool:
#   run(command="bench/device_check.sh gpu", carry=[".devbuild", ".devlibs"])
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
[ -x build/bot/kernelbot ] || { echo "device_bundle.sh: build/ has no kernelbot; build first" >&2; exit 2; }
for p in /.devbuild/ /.devlibs/ /.devold/; do
  grep -qxF "$p" .git/info/exclude 2>/dev/null || echo "$p" >>.git/info/exclude
done

if [ "${1:-}" = --previous ]; then
  rm -rf .devold && mkdir .devold
  cp build/bench/search_throughput build/bot/kernelbot-harness .devold/
  strip --strip-debug .devold/*
  echo "previous build kept: .devold $(du -sh .devold | cut -f1) ($(git log -1 --format=%h))"
  exit 0
fi

gpu_tests=$(cd build && ctest -L gpu --show-only=json-v1 | python3 -c '
import json, sys
print("\n".join(sorted({t["command"][0] for t in json.load(sys.stdin)["tests"] if t.get("command")})))')

rm -rf .devbuild .devlibs
cp -a build .devbuild
find .devbuild \( -name '*.o' -o -name '*.a' -o -name '*.d' -o -name '.ninja_*' \) -delete
rm -rf .devbuild/Testing .devbuild/github-exchanges .devbuild/_deps .devbuild/node_modules .devbuild/_CPack_Packages
rm -f .devbuild/*.deb
find .devbuild -type d -name CMakeFiles -prune -exec rm -rf {} +
# Test executables that no gpu-labelled test runs: the CPU tests run here and in CI, not there.
# (Shared libraries stay: the harness tests load the variants built beside them.)
find .devbuild/tests .devbuild/examples -type f -perm -u+x ! -name '*.so' | while read -r f; do
  abs=$PWD/build/${f#.devbuild/}
  [ "${f#.devbuild/}" = examples/demo_app ] && continue  # the workload ProfileGpu profiles
  grep -qxF "$abs" <<<"$gpu_tests" || rm -f "$f"
done
find .devbuild -type f -size +100k -perm -u+x | while read -r f; do
  file -b "$f" | grep -q ELF && strip --strip-debug "$f"
done

../shared/device/bundle-libs.sh .devlibs build/bot/kernelbot build/bot/kernelbot-harness \
  build/bench/search_throughput >/dev/null
cp /usr/bin/bwrap /lib/x86_64-linux-gnu/{libselinux.so.1,libcap.so.2,libpcre2-8.so.0} .devlibs/
echo "device bundle: .devbuild $(du -sh .devbuild | cut -f1), .devlibs $(du -sh .devlibs | cut -f1)"

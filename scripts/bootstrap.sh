#!/usr/bin/env bash
# Installs what kernelbot needs to build on Debian 12 or Ubuntu 22.04/24.04 (apt-get, as root or
# through sudo), checks for the CUDA toolkit, and configures the build. Safe to run again: it
# installs only what is missing, so `make` calls it on every build at almost no cost.
#
#   scripts/bootstrap.sh            install missing packages and configure build/
#   scripts/bootstrap.sh --check    only report what is missing (exit 1 if anything is)
#   BUILD_DIR=out scripts/bootstrap.sh
#   BUILD_DIR=build-asan scripts/bootstrap.sh -- -DKERNELBOT_SANITIZE=address   (more CMake options
#                                   for a new build directory; an existing one is left as it is)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"
check_only=0
cmake_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --check) check_only=1 ;;
    --) shift; cmake_args=("$@"); break ;;
    *) printf 'bootstrap: unknown argument %s (see the top of %s)\n' "$1" "$0" >&2; exit 2 ;;
  esac
  shift
done

say() { printf 'bootstrap: %s\n' "$*" >&2; }

packages=(build-essential cmake ninja-build pkg-config git
          libgit2-dev libcurl4-openssl-dev libssl-dev libspdlog-dev nlohmann-json3-dev libcli11-dev
          libsqlite3-dev libgtest-dev libgmock-dev
          bubblewrap)  # the candidate sandbox ([verify] sandbox = "namespaces")
# toml++ is packaged from Debian 12 and Ubuntu 23.04 on; on Ubuntu 22.04 CMake fetches it instead.
if apt-cache show libtomlplusplus-dev >/dev/null 2>&1 || dpkg-query -W libtomlplusplus-dev >/dev/null 2>&1; then
  packages+=(libtomlplusplus-dev)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  if [ $check_only = 1 ]; then
    say "missing packages: ${missing[*]}"
    exit 1
  fi
  if [ "$(id -u)" = 0 ]; then
    sudo=()
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo=(sudo -n)
  else
    say "these packages are missing: ${missing[*]}"
    say "installing them needs root: run this script as root or with passwordless sudo, or run:"
    say "  sudo apt-get install -y ${missing[*]}"
    exit 1
  fi
  say "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The CUDA toolkit (nvcc, cudart, CUPTI, NVML headers) comes from NVIDIA, not from Debian.
# The nvcc on PATH may be a symlink or a wrapper outside the toolkit (/usr/local/bin/nvcc, say),
# so the toolkit root is taken from where nvcc really lives and from what nvcc reports as its
# TOP, then from $CUDA_HOME, $CUDA_PATH and /usr/local/cuda; the first root with both nvcc and
# CUPTI's headers wins, and CMake is pointed at that root's own nvcc.
nvcc="${CUDACXX:-}"
[ -z "$nvcc" ] && command -v nvcc >/dev/null 2>&1 && nvcc="$(command -v nvcc)"
[ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
roots=()
add_root() {
  [ -n "$1" ] && [ -d "$1" ] || return 0
  local r; r="$(cd "$1" && pwd -P)"
  [[ " ${roots[*]-} " == *" $r "* ]] || roots+=("$r")
}
if [ -n "$nvcc" ]; then
  add_root "$(dirname "$(dirname "$(readlink -f "$nvcc")")")"
  add_root "$("$nvcc" --dryrun -x cu -c /dev/null -o /dev/null 2>&1 | sed -n 's/^#\$ TOP=//p' | head -n 1)"
fi
add_root "${CUDA_HOME:-}"
add_root "${CUDA_PATH:-}"
add_root /usr/local/cuda
has_cupti() {
  local r="$1"
  [ -e "$r/include/cupti.h" ] || [ -e "$r/extras/CUPTI/include/cupti.h" ] ||
    [ -e "$r/targets/$(uname -m)-linux/include/cupti.h" ]
}
cuda_root=""     # the first root with nvcc and CUPTI
nvcc_root=""     # else the first with nvcc
for r in ${roots[@]+"${roots[@]}"}; do
  [ -x "$r/bin/nvcc" ] || continue
  [ -n "$nvcc_root" ] || nvcc_root="$r"
  if has_cupti "$r"; then cuda_root="$r"; break; fi
done
if [ -z "$nvcc_root" ]; then
  say "no CUDA toolkit found (looked at \$CUDACXX, PATH, \$CUDA_HOME, \$CUDA_PATH and /usr/local/cuda)."
  say "install CUDA 12.4 or newer with CUPTI from https://developer.nvidia.com/cuda-downloads, or set CUDACXX"
  exit 1
fi
if [ -z "$cuda_root" ]; then
  # A toolkit without CUPTI still builds the CLI and the CPU tests; CMake leaves the GPU runner
  # out and says so, and kernelbot's GPU commands then name what to install.
  cuda_root="$nvcc_root"
  say "warning: the CUDA toolkit at $cuda_root has no CUPTI headers (looked in: ${roots[*]})."
  say "warning: kernelbot will build without its GPU runner; install the toolkit's cuda-cupti-dev package to get it"
fi
nvcc="$cuda_root/bin/nvcc"
# bubblewrap needs user namespaces; where the kernel or AppArmor refuses them kernelbot stops with
# the same advice, so say it here first.
if command -v bwrap >/dev/null 2>&1 && ! bwrap --unshare-user --unshare-net --ro-bind / / true 2>/dev/null; then
  say "warning: bubblewrap cannot create user namespaces here, so the candidate sandbox will not run;"
  say "warning: enable them (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces=15000, or on Ubuntu"
  say "warning: 23.10+ kernel.apparmor_restrict_unprivileged_userns=0), or set [verify] sandbox = \"process\""
fi
[ $check_only = 1 ] && { say "everything needed to build is installed (CUDA at $cuda_root)"; exit 0; }

if [ ! -f "$build_dir/build.ninja" ]; then
  say "configuring $build_dir"
  cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_CUDA_COMPILER="$nvcc" \
        -DCUDAToolkit_ROOT="$cuda_root" ${cmake_args[@]+"${cmake_args[@]}"} >/dev/null
fi
say "ready: cmake --build $build_dir"

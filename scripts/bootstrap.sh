#!/usr/bin/env bash
# Installs what kernelbot needs to build on Debian 12 or Ubuntu 22.04/24.04 (apt-get, as root or
# through sudo), checks for the CUDA toolkit, and configures the build. Safe to run again: it
# installs only what is missing, so `make` calls it on every build at almost no cost.
#
#   scripts/bootstrap.sh            install missing packages and configure build/
#   scripts/bootstrap.sh --check    only report what is missing (exit 1 if anything is)
#   BUILD_DIR=out scripts/bootstrap.sh
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"
check_only=0
[ "${1:-}" = "--check" ] && check_only=1

say() { printf 'bootstrap: %s\n' "$*" >&2; }

packages=(build-essential cmake ninja-build pkg-config git
          libgit2-dev libcurl4-openssl-dev libspdlog-dev nlohmann-json3-dev libcli11-dev
          libsqlite3-dev libgtest-dev libgmock-dev)
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
nvcc="${CUDACXX:-}"
[ -z "$nvcc" ] && command -v nvcc >/dev/null 2>&1 && nvcc="$(command -v nvcc)"
[ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
if [ -z "$nvcc" ]; then
  say "no CUDA toolkit found (looked at \$CUDACXX, PATH and /usr/local/cuda/bin/nvcc)."
  say "install CUDA 12.4 or newer with CUPTI from https://developer.nvidia.com/cuda-downloads, or set CUDACXX"
  exit 1
fi
cuda_root="$(dirname "$(dirname "$nvcc")")"
if [ ! -e "$cuda_root/include/cupti.h" ] && [ ! -e "$cuda_root/extras/CUPTI/include/cupti.h" ]; then
  say "the CUDA toolkit at $cuda_root has no CUPTI headers; install its cuda-cupti-dev package"
  exit 1
fi
[ $check_only = 1 ] && { say "everything needed is installed (CUDA at $cuda_root)"; exit 0; }

if [ ! -f "$build_dir/build.ninja" ]; then
  say "configuring $build_dir"
  cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_CUDA_COMPILER="$nvcc" >/dev/null
fi
say "ready: cmake --build $build_dir"

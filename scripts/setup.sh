#!/usr/bin/env bash
# Installs what libep needs to build and test on Debian 12, and nothing that is
# already there. Safe to run again: a second run only checks.
set -euo pipefail

# Both MPI implementations: the build selects one per build directory
# (LIBEP_MPI, CMakePresets.json); installing MPICH next to Open MPI leaves the
# plain mpicc/mpirun names with Open MPI (Debian gives it the higher priority).
packages=(build-essential cmake pkg-config git openmpi-bin libopenmpi-dev mpich libmpich-dev
          libomp-dev libcli11-dev libfmt-dev nlohmann-json3-dev googletest libgtest-dev python3
          python3-matplotlib python3-jsonschema clang-format)
packages+=("$@")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

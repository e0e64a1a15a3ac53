#!/usr/bin/env bash
# Makes sure what libep needs to build and test is there; scripts/test.sh and
# scripts/bench.sh call it first. Safe to run again: a second run only checks.
#
#   scripts/setup.sh [DEBIAN_PACKAGE...]     # extra packages to install too
#
# On Debian (dpkg) with apt-get usable (as root, with passwordless sudo, or
# with sudo at a terminal) it installs the packages below that dpkg does not
# list as installed. Elsewhere (another distribution, a cluster, no root), or
# when apt-get fails, it checks what the packages provide instead: commands on
# the PATH, CMake packages (honouring CMAKE_PREFIX_PATH), OpenMP, Python
# modules. It then names what is missing, with the Debian package as a hint,
# and fails only if something required is missing; what only some tests or
# tools use gets a warning.
set -euo pipefail

# Both MPI implementations: the build selects one per build directory
# (LIBEP_MPI, CMakePresets.json); installing MPICH next to Open MPI leaves the
# plain mpicc/mpirun names with Open MPI (Debian gives it the higher priority).
packages=(build-essential cmake pkg-config git openmpi-bin libopenmpi-dev mpich libmpich-dev
          libomp-dev libcli11-dev libfmt-dev nlohmann-json3-dev googletest libgtest-dev python3
          python3-matplotlib python3-jsonschema clang-format)
packages+=("$@")

say() { echo "setup: $*" >&2; }

# --- What the packages provide, checked without dpkg.
# Each check: WHAT|DEBIAN PACKAGES|NEED|PROBE, where NEED is `required`,
# `one MPI` (at least one of the two is required) or what goes without it,
# and PROBE a function below with its arguments, which succeeds if WHAT is there.
checks=(
  "a C and C++ compiler, make|build-essential|required|have_compilers"
  "cmake 3.20 or newer|cmake|required|have_cmake"
  "pkg-config|pkg-config|required|have_command pkg-config pkgconf"
  "Open MPI (mpicc.openmpi or ompi_info)|openmpi-bin libopenmpi-dev|one MPI|have_openmpi"
  "MPICH (mpicc.mpich or mpichversion)|mpich libmpich-dev|one MPI|have_mpich"
  "OpenMP for the C++ compiler|libomp-dev|required|have_openmp"
  "the CMake package CLI11|libcli11-dev|required|have_cmake_package CLI11"
  "the CMake package fmt|libfmt-dev|required|have_cmake_package fmt"
  "the CMake package nlohmann_json|nlohmann-json3-dev|required|have_cmake_package nlohmann_json"
  "the CMake package GTest|googletest libgtest-dev|required|have_cmake_package GTest"
  "python3|python3|required|have_command python3"
  "python3's module matplotlib|python3-matplotlib|scripts/plot.py cannot plot|have_python_module matplotlib"
  "python3's module jsonschema|python3-jsonschema|the tests check JSON documents by their keys only|have_python_module jsonschema"
  "clang-format|clang-format|the source.format test is skipped|have_command clang-format clang-format-14"
  "git|git|results record the revision as unknown|have_command git"
)

have_command() {
  local c
  for c in "$@"; do command -v "$c" >/dev/null 2>&1 && return 0; done
  return 1
}
have_compilers() { have_command cc gcc clang && have_command c++ g++ clang++ && have_command make; }
have_cmake() {
  local version
  version=$(cmake --version 2>/dev/null | head -n 1) || return 1
  [[ $version =~ ([0-9]+)\.([0-9]+) ]] || return 1
  ((BASH_REMATCH[1] > 3 || (BASH_REMATCH[1] == 3 && BASH_REMATCH[2] >= 20)))
}
have_openmpi() { have_command mpicc.openmpi ompi_info; }
have_mpich() { have_command mpicc.mpich mpichversion; }
have_python_module() { python3 -c "import $1" >/dev/null 2>&1; }
have_openmp() {
  local cxx dir
  cxx=$(command -v c++ g++ clang++ | head -n 1)
  [ -n "$cxx" ] || return 1
  dir=$(mktemp -d)
  printf '#include <omp.h>\nint main() { return omp_get_max_threads() > 0 ? 0 : 1; }\n' >"$dir/omp.cpp"
  "$cxx" -fopenmp "$dir/omp.cpp" -o "$dir/omp" >/dev/null 2>&1 && "$dir/omp"
  local ok=$?
  rm -rf "$dir"
  return $ok
}
# CMake packages are looked for by one CMake run for all of them (a second
# or two), the first time one is asked about.
cmake_packages_found=
have_cmake_package() {
  if [ -z "$cmake_packages_found" ]; then
    cmake_packages_found=" "
    local dir
    dir=$(mktemp -d)
    cat >"$dir/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.20)
project(setup_probe LANGUAGES CXX)
foreach(p CLI11 fmt nlohmann_json GTest)
  find_package(${p} QUIET)
  if(${p}_FOUND)
    message(STATUS "setup-found: ${p}")
  endif()
endforeach()
EOF
    if have_cmake; then
      cmake_packages_found+=$(cmake -S "$dir" -B "$dir/build" 2>/dev/null |
        sed -n 's/^-- setup-found: //p' | tr '\n' ' ')
    fi
    rm -rf "$dir"
  fi
  [[ $cmake_packages_found == *" $1 "* ]]
}

# --- Debian: dpkg says what is installed, apt-get installs the rest.
# Whether apt-get may run, and through what ($sudo): as root; with sudo
# without a password; with sudo asking for one, when there is a terminal to
# ask on.
sudo=""
can_apt() {
  command -v apt-get >/dev/null 2>&1 || return 1
  [ "$(id -u)" = 0 ] && return 0
  command -v sudo >/dev/null 2>&1 || return 1
  if sudo -n true 2>/dev/null; then
    sudo="sudo -n"
  elif [ -t 0 ]; then
    sudo="sudo"
  else
    return 1
  fi
}

missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  ((${#missing[@]})) || exit 0
  if can_apt; then
    say "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    if $sudo apt-get update -q && $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
    then
      exit 0
    fi
    say "apt-get could not install them; checking what is there instead"
  else
    say "dpkg does not list ${missing[*]}, and apt-get is not available here" \
        "(not installed, or not root and no sudo); checking what is there instead"
  fi
fi

# --- Without apt: check each capability; name what is missing.
failed=0
mpi_found=0
mpi_missing=()
for check in "${checks[@]}"; do
  IFS="|" read -r what debian need probe <<<"$check"
  # shellcheck disable=SC2086  # probe is a function name and its arguments
  if $probe; then
    [ "$need" = "one MPI" ] && mpi_found=1
    continue
  fi
  case $need in
    required)
      say "missing: $what (Debian: $debian)"
      failed=1
      ;;
    "one MPI") mpi_missing+=("$what (Debian: $debian)") ;;
    *) say "warning: no $what (Debian: $debian): $need" ;;
  esac
done
if ((mpi_found)); then
  for m in "${mpi_missing[@]}"; do
    say "warning: no $m: a build that selects it (LIBEP_MPI, a stage of scripts/test.sh) will not configure"
  done
else
  say "missing: an MPI library: one of ${mpi_missing[*]}"
  failed=1
fi
# Packages named on the command line: dpkg's word is all there is.
for p in "$@"; do
  if ! command -v dpkg-query >/dev/null 2>&1; then
    say "warning: without dpkg, cannot tell whether '$p' (asked for on the command line) is there"
  elif [[ " ${missing[*]} " == *" $p "* ]]; then
    say "missing: $p (asked for on the command line)"
    failed=1
  fi
done
if ((failed)); then
  say "install what is missing (or make it findable: PATH, CMAKE_PREFIX_PATH), then run again"
  exit 1
fi
say "everything libep needs is there"

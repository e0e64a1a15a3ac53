#!/usr/bin/env bash
# The package as a user gets it: installs the build directory into a fresh
# prefix, builds examples/hello and examples/porting there with nothing but
# CMAKE_PREFIX_PATH pointing at it (copies of the examples, configured apart
# from libep's build), runs them under scripts/mpirun.sh, and builds and runs a
# program with nothing but `pkg-config --cflags --libs libep`.
#
#   run_install_test.sh --source DIR --build DIR --work DIR --mpi openmpi|mpich|unknown
#                       --version X.Y.Z --libdir LIBDIR --generator NAME
#                       --cxx COMPILER --c COMPILER [--pkg-config PROGRAM]
#
# The installed package must give the MPI libep was built with (--mpi):
# the examples must run on it and the .pc file must require its module.
set -euo pipefail

pkg_config=""
while (($#)); do
  case $1 in
    --source) source_dir=$2 ;;
    --build) build_dir=$2 ;;
    --work) work=$2 ;;
    --mpi) mpi=$2 ;;
    --version) version=$2 ;;
    --libdir) libdir=$2 ;;
    --generator) generator=$2 ;;
    --cxx) cxx=$2 ;;
    --c) cc=$2 ;;
    --pkg-config) pkg_config=$2 ;;
    *) echo "run_install_test.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
# step NAME COMMAND...: runs the command with its output in $work/NAME.log,
# shown if it fails.
step() {
  local name=$1
  shift
  echo "--- $name: $*"
  if ! "$@" >"$work/$name.log" 2>&1; then
    cat "$work/$name.log"
    fail "$name"
  fi
}
# expect NAME TEXT: the log of step NAME contains TEXT.
expect() {
  grep -qF -- "$2" "$work/$1.log" || { cat "$work/$1.log"; fail "$1: no '$2' in its output"; }
}

case $mpi in
  openmpi) mpi_banner="Open MPI" mpi_module=ompi-c ;;
  mpich) mpi_banner="MPICH" mpi_module=mpich ;;
  *) mpi_banner="" mpi_module="" ;;
esac
mpirun=("$source_dir/scripts/mpirun.sh")
run_limit=120

rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
step install cmake --install "$build_dir" --prefix "$prefix"
[ -f "$prefix/$libdir/cmake/libep/libepConfig.cmake" ] || fail "no libepConfig.cmake in $prefix/$libdir/cmake/libep"

# The examples, copied out of the source tree so that they can reach nothing
# but the installed package.
cp -R "$source_dir/examples" "$work/examples"
for example in hello porting; do
  step "configure-$example" cmake -S "$work/examples/$example" -B "$work/build-$example" \
    -G "$generator" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON
  grep -qx "libep_DIR:PATH=$prefix/$libdir/cmake/libep" "$work/build-$example/CMakeCache.txt" ||
    fail "$example: find_package(libep) did not find the package in $prefix"
  step "build-$example" cmake --build "$work/build-$example"
done

# 2 processes x 2 threads; the ring and the sum are checked by the program.
step run-hello env OMP_NUM_THREADS=2 timeout "$run_limit" "${mpirun[@]}" -np 2 \
  "$work/build-hello/hello"
expect run-hello "hello: 4 endpoints, all correct"
[ "$(grep -c '^hello from rank' "$work/run-hello.log")" = 4 ] || fail "hello: not 4 endpoints greeting"
[ -z "$mpi_banner" ] || expect run-hello "hello: MPI library $mpi_banner"
step run-porting timeout "$run_limit" "${mpirun[@]}" -np 2 "$work/build-porting/halo" 3
expect run-porting "halo: 6 endpoints, 100 steps"
expect run-porting ": correct"

# pkg-config users.
if [ -n "$pkg_config" ]; then
  export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
  step pc-requires "$pkg_config" --print-requires libep
  [ -z "$mpi_module" ] || expect pc-requires "$mpi_module"
  step pc-flags "$pkg_config" --cflags --libs libep
  read -ra flags <"$work/pc-flags.log"
  # -rpath: a shared libep is found where it was installed.
  step pc-build "$cxx" -std=c++17 "$source_dir/suites/package/pkgconfig_check.cpp" \
    -o "$work/pkgconfig_check" "${flags[@]}" "-Wl,-rpath,$prefix/$libdir"
  step pc-run timeout "$run_limit" "${mpirun[@]}" -np 2 "$work/pkgconfig_check" "$version"
  expect pc-run "pkgconfig_check: libep $version, 4 endpoints"
  expect pc-run ": correct"
  [ -z "$mpi_banner" ] || expect pc-run "MPI library $mpi_banner"
fi
echo "PASS"

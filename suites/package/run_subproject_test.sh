#!/usr/bin/env bash
# libep taken in as source: configures subproject/ (a parent project that
# calls add_subdirectory on the source tree; its CMakeLists.txt checks what
# the parent gets) and compiles the parent's program against ep::ep.
#
#   run_subproject_test.sh --source DIR --work DIR --libep-mpi auto|openmpi|mpich
#                          --mpi openmpi|mpich|unknown --generator NAME --cxx COMPILER --c COMPILER
set -euo pipefail

while (($#)); do
  case $1 in
    --source) source_dir=$2 ;;
    --work) work=$2 ;;
    --libep-mpi) libep_mpi=$2 ;;
    --mpi) mpi=$2 ;;
    --generator) generator=$2 ;;
    --cxx) cxx=$2 ;;
    --c) cc=$2 ;;
    *) echo "run_subproject_test.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done

rm -rf "$work"
mkdir -p "$work"
# No build type: the parent's must stay empty.
if ! cmake -S "$source_dir/suites/package/subproject" -B "$work" -G "$generator" \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$cc" -DLIBEP_SOURCE_DIR="$source_dir" \
    -DLIBEP_MPI="$libep_mpi" -DEXPECTED_MPI="$mpi" >"$work/configure.log" 2>&1; then
  cat "$work/configure.log"
  echo "FAIL: configuring a parent project of libep" >&2
  exit 1
fi
grep 'add_subdirectory(libep)' "$work/configure.log"
if ! cmake --build "$work" --target app >"$work/build.log" 2>&1; then
  cat "$work/build.log"
  echo "FAIL: compiling against ep::ep from add_subdirectory" >&2
  exit 1
fi
echo "PASS"

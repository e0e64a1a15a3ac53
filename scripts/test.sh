#!/usr/bin/env bash
# The test command. Installs what is missing, then builds and runs the suites
# four times:
#   release  build/        Open MPI, RelWithDebInfo, every test
#   asan     build-asan/   Open MPI, AddressSanitizer + UndefinedBehaviorSanitizer
#                          at -O1 -g1, every test
#   tsan     build-tsan/   Open MPI, ThreadSanitizer at -O1 -g1, the tests labelled
#                          `single` (one MPI process, many endpoint threads: where
#                          races live), and only what they run is built
#   mpich    build-mpich/  MPICH, RelWithDebInfo, every test
# Every stage runs even if an earlier one failed; the summary at the end lists
# them all, and the exit status is non-zero if any failed. Builds are
# incremental, so a second run only pays for the tests. The summary gives each
# stage's configure+build time and test time.
#
#   scripts/test.sh                  all four stages
#   scripts/test.sh release tsan     only these stages
#   CTEST_ARGS="-R storm" scripts/test.sh release   extra ctest arguments
#   LIBEP_TEST_JOBS=1 scripts/test.sh                one test at a time (default 2)
#
# Sanitizer stages and the MPICH stage run the multi-rank tests under a
# reduced layout set (see lean_layouts below) to stay well within the time
# budget on 2 cores. Each stage names its MPI (LIBEP_MPI), so that none depends
# on which implementation the plain `mpicc` and `mpirun` are.
set -uo pipefail
cd "$(dirname "$0")/.."

# Per-test limit for tests that do not set their own (all of ours do).
default_timeout=300
# Tests run two at a time: most of a test's time is process start-up and
# waiting, and the time limits leave ample room for the contention.
jobs=${LIBEP_TEST_JOBS:-2}
# Compilations at once: one per core.
build_jobs=$(nproc 2>/dev/null || echo 2)
# 1x1, 1x3, 2x2, the uneven 1,3,2 and one with an empty process: every shape
# of the full matrix except the 6-process 2,2,2 and 1,1, the two-process
# shape that 2,2 covers. AddressSanitizer and MPICH are the slow stages.
lean_layouts="1;3;2,2;1,3,2;2,0,3"
# The one-process shapes: ThreadSanitizer runs the tests labelled `single`,
# so its build defines (and builds) only those.
single_layouts="1;3"
# The sanitizers need no more optimisation than -O1 to run fast (their
# documentation recommends it), and their reports need line tables, not
# variables: -O1 -g1 compiles in less than half the time of -O2 -g.
sanitizer_flags="-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"

stages=("$@")
((${#stages[@]})) || stages=(release asan tsan mpich)
summary=()
failed=0

if ! scripts/setup.sh; then
  echo "test.sh: scripts/setup.sh failed" >&2
  exit 1
fi

# The generator: Ninja where it is installed (it schedules the whole build at
# once, where make recurses per target), else CMake's default. A build
# directory keeps the generator it was made with.
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

# run_stage NAME BUILD_DIR "CTEST ARGS" CMAKE ARGS...
run_stage() {
  local name=$1 dir=$2 ctest_args=$3
  shift 3
  local start=$SECONDS
  echo
  echo "=== $name: configure and build in $dir"
  mkdir -p "$dir"
  local use_generator=()
  [ -f "$dir/CMakeCache.txt" ] || use_generator=("${generator[@]}")
  if ! cmake -S . -B "$dir" "${use_generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" \
    >"$dir/configure.log" 2>&1; then
    cat "$dir/configure.log"
    summary+=("$name: FAILED to configure (see $dir/configure.log)")
    failed=1
    return
  fi
  if ! cmake --build "$dir" -j "$build_jobs"; then
    summary+=("$name: FAILED to build ($((SECONDS - start))s)")
    failed=1
    return
  fi
  local built=$SECONDS
  echo "=== $name: tests (configure and build took $((built - start))s)"
  # shellcheck disable=SC2086  # ctest_args and CTEST_ARGS are word lists
  ctest --test-dir "$dir" --output-on-failure --timeout "$default_timeout" --parallel "$jobs" \
    $ctest_args \
    ${CTEST_ARGS:-} 2>&1 | tee "$dir/ctest.log"
  local rc=${PIPESTATUS[0]}
  local counts times
  counts=$(grep -E 'tests passed|No tests were found' "$dir/ctest.log" | tail -n 1)
  times="configure+build $((built - start))s, tests $((SECONDS - built))s"
  if ((rc == 0)); then
    summary+=("$name: passed - ${counts:-no summary} ($times)")
  else
    summary+=("$name: FAILED - ${counts:-no summary} ($times)")
    while read -r line; do summary+=("    $line"); done \
      < <(sed -n '/The following tests FAILED/,/^Errors while running/p' "$dir/ctest.log" |
          grep -E '^\s+[0-9]+ - ')
    failed=1
  fi
}

total_start=$SECONDS
for stage in "${stages[@]}"; do
  case $stage in
    release) run_stage release build "" -DLIBEP_MPI=openmpi ;;
    asan) run_stage asan build-asan "" -DLIBEP_MPI=openmpi -DLIBEP_SANITIZER=address,undefined \
      "$sanitizer_flags" "-DEPTEST_LAYOUTS=$lean_layouts" ;;
    # No tools: the `single` tests run here are those of the library.
    tsan) run_stage tsan build-tsan "-L single" -DLIBEP_MPI=openmpi -DLIBEP_SANITIZER=thread \
      "$sanitizer_flags" -DLIBEP_BUILD_TOOLS=OFF "-DEPTEST_LAYOUTS=$single_layouts" ;;
    mpich) run_stage mpich build-mpich "" -DLIBEP_MPI=mpich "-DEPTEST_LAYOUTS=$lean_layouts" ;;
    *) echo "test.sh: unknown stage '$stage' (release, asan, tsan, mpich)" >&2; exit 2 ;;
  esac
done

echo
echo "=== summary ($((SECONDS - total_start))s)"
printf '%s\n' "${summary[@]}"
if ((failed)); then
  echo "RESULT: FAILED"
  exit 1
fi
echo "RESULT: all passed"

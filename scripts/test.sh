#!/usr/bin/env bash
# The test command. Installs what is missing, then builds and runs the suites
# four times:
#   release  build/        Open MPI, RelWithDebInfo (-O2 -g1), every test
#   asan     build-asan/   Open MPI, AddressSanitizer + UndefinedBehaviorSanitizer
#                          (library at -O1 -g1, tools and test programs at -O0 -g1),
#                          every test
#   mpich    build-mpich/  MPICH, RelWithDebInfo (-O2 -g1), every test
#   tsan     build-tsan/   Open MPI, ThreadSanitizer (as asan: -O1 library), the tests labelled
#                          `single` (one MPI process, many endpoint threads: where
#                          races live), and only what they run is built
# Every stage runs even if an earlier one failed; the summary at the end lists
# them all, and the exit status is non-zero if any failed. Each stage is
# built, then tested, before the next begins (its compiler output goes to
# <dir>/build.log, shown if it fails). Builds are incremental, so a second run
# only pays for the tests. The summary gives each stage's configure+build time
# and test time.
#
#   scripts/test.sh                  all four stages
#   scripts/test.sh release tsan     only these stages
#   CTEST_ARGS="-R storm" scripts/test.sh release   extra ctest arguments
#   LIBEP_TEST_JOBS=1 scripts/test.sh                one test at a time (default 5, MPICH 2)
#
# Sanitizer stages and the MPICH stage run the multi-rank tests under a
# reduced layout set (see lean_layouts below) to stay well within the time
# budget on 2 cores. The sanitizer stages run the endpoint programs alone,
# without building or diffing against the plain-MPI reference programs
# (EPTEST_REFERENCE in suites/harness/EpTest.cmake): the release and MPICH
# stages diff. The MPICH stage builds and tests the library, not the tools. Each stage names its MPI (LIBEP_MPI), so that none depends
# on which implementation the plain `mpicc` and `mpirun` are.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

# Per-test limit for tests that do not set their own (all of ours do).
default_timeout=300
# Tests run five at a time on 2 cores: most of a test's time is process
# start-up, teardown and waiting, not computing (a 2,2 run of p2p.persistent
# took 1.5 s and 0.4 s of CPU), and the time limits leave ample room for the
# contention. The release stage's 342 tests took 129 s three at a time, 164 s
# two at a time; 56 of its tests (p2p, rma and coll on 2,2) took a median of
# 132 s three at a time, 65 s four and 60 s five (runs alternated on a
# machine shared with other builds).
#
# MPICH's waits never yield the core: its tests run two at a time. Six runs of
# coll.noncommutative@1,3,2 (each 3 processes, then 6 for the plain-MPI
# reference) took 14.8 s one at a time, 18.7 s two and 21.2 s three at a
# time; the whole MPICH stage took 193 s two at a time, as one at a time,
# and 234 s five at a time.
openmpi_jobs=${LIBEP_TEST_JOBS:-5}
mpich_jobs=${LIBEP_TEST_JOBS:-2}
# Compilations at once: one per core.
build_jobs=$(nproc 2>/dev/null || echo 2)
# 1x1, 1x3, 2x2, the uneven 1,3,2 and one with an empty process: every shape
# of the full matrix except the 6-process 2,2,2 and 1,1, the two-process
# shape that 2,2 covers. AddressSanitizer and MPICH are the slow stages.
lean_layouts="1;3;2,2;1,3,2;2,0,1"
# The one-process shapes: ThreadSanitizer runs the tests labelled `single`,
# so its build defines (and builds) only those.
single_layouts="1;3"
# The sanitizers need no more optimisation than -O1 to run fast (their
# documentation recommends it), and their reports need line tables, not
# variables: -O1 -g1 compiles in less than half the time of -O2 -g.
sanitizer_flags="-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
# The tools and test programs need not even -O1 there: the instrumented code
# of the JSON and command-line parsers they include takes twice as long to
# compile at -O1 as at -O0, and the tests spend their time in the library.
sanitizer_programs="-DLIBEP_PROGRAMS_COMPILE_OPTIONS=-O0"
# The other stages keep -O2 but also need only line tables (for backtraces
# and sanitizer-free debugging of a failure): -g1 instead of -g takes 30% off
# the compile time of the tools' largest sources (19.6 s to 13.5 s).
release_flags="-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"
# Every stage but the first precompiles the library's common headers and the
# test harness's (LIBEP_PRECOMPILE_HEADERS in CMakeLists.txt: the library
# under ThreadSanitizer in 17 s instead of 28, the ASan stage's build in 180 s
# instead of 207); the release stage precompiles only the harness's
# (EPTEST_PRECOMPILE_HEADERS in suites/harness/EpTest.cmake), so that a
# source of the library that forgets an include fails there.
precompiled="-DLIBEP_PRECOMPILE_HEADERS=ON"
precompiled_tests="-DEPTEST_PRECOMPILE_HEADERS=ON"

stages=("$@")
# The release stage first: it tests everything, fastest.
((${#stages[@]})) || stages=(release asan mpich tsan)
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

# The stages' settings: stage_settings NAME sets dir, jobs, ctest_args and
# cmake_args (an array).
# shellcheck disable=SC2054  # address,undefined is one argument
stage_settings() {
  case $1 in
    release) dir=build jobs=$openmpi_jobs ctest_args="" cmake_args=(-DLIBEP_MPI=openmpi
      "$release_flags" "$precompiled_tests") ;;
    asan) dir=build-asan jobs=$openmpi_jobs ctest_args="" cmake_args=(-DLIBEP_MPI=openmpi
      -DLIBEP_SANITIZER=address,undefined "$sanitizer_flags" "$sanitizer_programs" "$precompiled"
      -DEPTEST_REFERENCE=OFF "-DEPTEST_LAYOUTS=$lean_layouts") ;;
    # No tools: the `single` tests run here are those of the library.
    tsan) dir=build-tsan jobs=$openmpi_jobs ctest_args="-L single" cmake_args=(-DLIBEP_MPI=openmpi
      -DLIBEP_SANITIZER=thread "$sanitizer_flags" "$sanitizer_programs" "$precompiled"
      -DLIBEP_BUILD_TOOLS=OFF -DEPTEST_REFERENCE=OFF "-DEPTEST_LAYOUTS=$single_layouts") ;;
    # No tools either: what they do with MPI is the same calls on both
    # implementations, and their tests are two fifths of the release stage's
    # test time and half of a build; results/ holds their MPICH runs.
    # Nor the team gate's unit test, threads of one process and no MPI: the
    # same code as in the release stage (there 7 s; here, beside the
    # ThreadSanitizer build, 26 s).
    mpich) dir=build-mpich jobs=$mpich_jobs ctest_args="-E ^coll\.unit\.TeamGate\."
      cmake_args=(-DLIBEP_MPI=mpich "$release_flags" "$precompiled" -DLIBEP_BUILD_TOOLS=OFF
        "-DEPTEST_LAYOUTS=$lean_layouts") ;;
    *) echo "test.sh: unknown stage '$1' (release, asan, tsan, mpich)" >&2; exit 2 ;;
  esac
}

# build_stage NAME: configures and builds the stage into its directory,
# output in DIR/configure.log and DIR/build.log; writes "STATUS SECONDS" to
# DIR/build-status (STATUS: built, configure or build).
build_stage() {
  local name=$1
  local dir jobs ctest_args cmake_args start=$SECONDS status=built
  stage_settings "$name"
  mkdir -p "$dir"
  rm -f "$dir/build-status"
  local use_generator=()
  [ -f "$dir/CMakeCache.txt" ] || use_generator=("${generator[@]}")
  if ! cmake -S . -B "$dir" "${use_generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "${cmake_args[@]}" >"$dir/configure.log" 2>&1; then
    status=configure
  elif ! cmake --build "$dir" -j "$build_jobs" >"$dir/build.log" 2>&1; then
    status=build
  fi
  echo "$status $((SECONDS - start))" >"$dir/build-status"
}

# test_stage NAME: reports the stage's build (build_stage must have ended)
# and runs its tests.
test_stage() {
  local name=$1 dir jobs ctest_args cmake_args status build_seconds
  stage_settings "$name"
  read -r status build_seconds <"$dir/build-status"
  echo
  echo "=== $name: configured and built in $dir (${build_seconds}s)"
  case $status in
    configure)
      cat "$dir/configure.log"
      summary+=("$name: FAILED to configure (see $dir/configure.log)")
      failed=1
      return ;;
    build)
      # The compiler's messages, then how the build ended.
      grep -E -A5 'error|FAILED' "$dir/build.log" | head -n 100
      tail -n 20 "$dir/build.log"
      summary+=("$name: FAILED to build (${build_seconds}s; see $dir/build.log)")
      failed=1
      return ;;
  esac
  local start=$SECONDS
  echo "=== $name: tests"
  # shellcheck disable=SC2086  # ctest_args and CTEST_ARGS are word lists
  ctest --test-dir "$dir" --output-on-failure --timeout "$default_timeout" --parallel "$jobs" \
    $ctest_args \
    ${CTEST_ARGS:-} 2>&1 | tee "$dir/ctest.log"
  local rc=${PIPESTATUS[0]}
  local counts times
  counts=$(grep -E 'tests passed|No tests were found' "$dir/ctest.log" | tail -n 1)
  times="configure+build ${build_seconds}s, tests $((SECONDS - start))s"
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

for stage in "${stages[@]}"; do stage_settings "$stage"; done  # unknown names stop here

# One stage after the other, each built and then tested. Their tests keep
# both cores busy (the release stage's used 86% of them alone, most of it in
# sched_yield), so a build beside them only slowed both: built while the tests
# of the stage before ran, the four stages took 1133 s; one after the other,
# each phase took less than the pair had (release tests 165 s and ASan build
# 160 s alone, 338 s together).
total_start=$SECONDS
for stage in "${stages[@]}"; do
  echo
  echo "=== $stage: configure and build"
  build_stage "$stage"
  test_stage "$stage"
done

echo
echo "=== summary ($((SECONDS - total_start))s)"
printf '%s\n' "${summary[@]}"
if ((failed)); then
  echo "RESULT: FAILED"
  exit 1
fi
echo "RESULT: all passed"

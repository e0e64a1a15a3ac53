# ep_add_mpi_test: one test source, two programs, one CTest test per layout.
#
#   ep_add_mpi_test(NAME p2p.all_pairs SOURCES all_pairs.cpp
#                   [LIBRARIES coll_test ...]      # from ep_add_mpi_test_library
#                   [LAYOUTS "1" "3" "1,1" ...]     # default: EPTEST_LAYOUTS
#                   [MODE diff|check|ep]           # default: diff
#                   [TIMEOUT seconds]              # per launch, before scaling
#                   [EXPECT_FATAL regex ...]       # the program must die saying this
#                   [ARGS --key=value ...]         # passed to both programs
#                   [LABELS label ...])
#   ep_add_mpi_test(NAME comm.split_seed7 PROGRAM comm.split ...)
#   ep_add_mpi_test(NAME p2p.storm.two_nodes PROGRAM p2p.storm SAME_REFERENCE ...)
#
# Builds <name>_ep (the body on endpoints) and, unless MODE is ep or the test
# is EXPECT_FATAL, <name>_mpi (the body on plain MPI processes). With PROGRAM
# instead of SOURCES, the test runs the programs of that earlier test (with
# other ARGS, LAYOUTS or environment) rather than compiling the same sources
# again; SAME_REFERENCE (the same ARGS as that test, another environment)
# compares with that test's plain-MPI runs instead of running its own. Each layout becomes a test "<NAME>@<layout>" run by run_test.sh (see
# there for the modes). In modes diff and check, each number of endpoints
# among the layouts also becomes a test "<NAME>@np<ranks>": the plain-MPI run
# on that many processes, which the layouts with that many endpoints compare
# with (a CTest fixture: `ctest -R` of one layout runs it too). One-process
# layouts get the label `single` (the set that also runs under
# ThreadSanitizer), the others `multi`; the plain-MPI runs `reference` too.
#
#   ep_add_mpi_test_library(coll_test SOURCES coll_test.cpp)
#
# Code shared by several tests of a suite, compiled once per mode into
# coll_test_ep and coll_test_mpi, which LIBRARIES links to each program.

# The layout matrix: 1x1, 1x3, 2x1, 2x2, 3x2, an uneven one, and one with a
# process hosting no endpoint, which also makes an odd size across processes.
# The sizes repeat (2,2,2 and 1,3,2 have 6 ranks, 2,0,1 and 3 have 3) so that
# layouts share their plain-MPI run (ep_mpi_reference); the last was 2,0,3
# before, whose 5 ranks needed a run of their own.
set(EPTEST_LAYOUTS "1" "3" "1,1" "2,2" "2,2,2" "1,3,2" "2,0,1"
    CACHE STRING "Default endpoint layouts of the multi-rank tests")
# Sanitized programs run several times slower, and Open MPI under ASan more so.
if(LIBEP_SANITIZER)
  set(eptest_default_scale 4)
else()
  set(eptest_default_scale 1)
endif()
set(LIBEP_TEST_TIMEOUT_SCALE ${eptest_default_scale}
    CACHE STRING "Factor applied to the time limits of the multi-rank tests")
# The sanitizer stages look for memory errors, races and undefined behaviour
# in libep; whether the endpoint program prints what plain MPI prints is the
# release and MPICH stages' question. With EPTEST_REFERENCE off, the
# reference programs are neither built nor run, and every test runs its
# endpoint program alone (mode ep: it must pass its own checks and exit 0):
# that halves the programs to build and the launches of those stages, which
# matters on two cores.
option(EPTEST_REFERENCE "Build the plain-MPI reference programs and diff against them" ON)
# The test programs' share of LIBEP_PRECOMPILE_HEADERS (top-level
# CMakeLists.txt), on with it unless set apart: the release stage of
# scripts/test.sh precompiles the harness's headers but not the library's,
# so that a source of the library that forgets an include still fails
# there, while its test programs compile in less time.
option(EPTEST_PRECOMPILE_HEADERS "Precompile the test harness's headers for the test programs"
       ${LIBEP_PRECOMPILE_HEADERS})

set(EPTEST_RUNNER ${CMAKE_CURRENT_LIST_DIR}/run_test.sh)
# The tests launch through a script generated here, which runs
# scripts/mpirun.sh with the implementation and launcher this build directory
# was configured with (cmake/SelectMPI.cmake), not whatever `mpirun` is first
# on the PATH. (Tests that call scripts/mpirun.sh directly still get the right
# launcher: it reads the implementation off the program it starts.)
#
# It also carries settings that steer the MPI around bugs of particular
# versions, for both programs of a test. Each names the bug and its evidence:
set(eptest_mpi_settings)
if(LIBEP_MPI_IMPL STREQUAL "mpich" AND LIBEP_MPICH_NUMVERSION LESS 40200000)
  # MPICH 4.0.2 (ch4) returns wrong results, and overruns its buffers, from
  # MPI_Reduce_scatter(_block) and MPI_Ireduce_scatter with a non-commutative
  # op on a datatype whose extent exceeds its size (a resized contiguous type)
  # on a power-of-two number of processes: its "noncommutative" algorithm
  # (the default there) miscomputes; recursive doubling is right. Measured with
  # a 20-line C program: 4 processes, MPI_Type_create_resized(4 ints, extent 5
  # ints), a 2x2 matrix product op; Open MPI 4.1.4 is right. Hit by
  # coll.noncommutative (the reference, and libep's leaders, which call
  # MPI_Ireduce_scatter).
  list(APPEND eptest_mpi_settings
       MPIR_CVAR_REDUCE_SCATTER_INTRA_ALGORITHM=recursive_doubling
       MPIR_CVAR_REDUCE_SCATTER_BLOCK_INTRA_ALGORITHM=recursive_doubling
       MPIR_CVAR_IREDUCE_SCATTER_INTRA_ALGORITHM=sched_recursive_doubling)
  # MPICH 4.0.2 and 4.1.1 crash in MPI_Reduce with MPI_IN_PLACE at a root
  # other than 0 on large counts (MPIR_Reduce_intra_reduce_scatter_gather
  # reads a bad address): pmodels/mpich#6540, fixed by #6543 (4.1.2).
  # Binomial reduction avoids it. Hit by the reference of coll.rooted.
  list(APPEND eptest_mpi_settings
       MPIR_CVAR_REDUCE_DEVICE_COLLECTIVE=0 MPIR_CVAR_REDUCE_INTRA_ALGORITHM=binomial)
endif()
list(TRANSFORM eptest_mpi_settings PREPEND "export ")
list(JOIN eptest_mpi_settings "\n" EPTEST_MPI_SETTINGS)
set(eptest_launch_impl "${LIBEP_MPI_IMPL}")
if(eptest_launch_impl STREQUAL "unknown")
  set(eptest_launch_impl "")
endif()
set(EPTEST_LAUNCHER ${CMAKE_CURRENT_BINARY_DIR}/eptest-mpirun.sh)
file(CONFIGURE OUTPUT ${EPTEST_LAUNCHER} @ONLY CONTENT [=[
#!/usr/bin/env bash
# Generated by suites/harness/EpTest.cmake: scripts/mpirun.sh with the MPI
# this build directory was configured with (LIBEP_MPI=@LIBEP_MPI@).
export EP_MPI=${EP_MPI:-@eptest_launch_impl@}
export MPIEXEC=${MPIEXEC:-@LIBEP_MPIEXEC@}
@EPTEST_MPI_SETTINGS@
exec bash @PROJECT_SOURCE_DIR@/scripts/mpirun.sh "$@"
]=])
file(CHMOD ${EPTEST_LAUNCHER} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
                                          GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

function(ep_add_mpi_test_library name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES")
  foreach(mode IN LISTS EPTEST_MODES)
    add_library(${name}_${mode} STATIC ${arg_SOURCES})
    target_link_libraries(${name}_${mode} PUBLIC eptest_harness_${mode})
    if(EPTEST_PRECOMPILE_HEADERS)
      target_precompile_headers(${name}_${mode} REUSE_FROM eptest_harness_${mode})
    endif()
  endforeach()
endfunction()

# ep_mpi_reference(VAR NAME LAYOUT TARGET TIMEOUT LABELS ARGS...): the
# plain-MPI run of test NAME's reference program TARGET on as many processes
# as LAYOUT has endpoints, with the test arguments ARGS, as a CTest test
# "<NAME>@np<ranks>" and fixture of the same name, made once per directory;
# sets VAR to the run_test.sh arguments of a test that compares with it, and
# VAR_FIXTURE to the fixture that test requires. The run depends only on the
# program, its arguments and the number of ranks, so every layout with that
# many endpoints in all shares it (run_test.sh, mode reference).
function(ep_mpi_reference var name layout target timeout labels)
  string(REPLACE "," ";" counts "${layout}")
  set(ranks 0)
  foreach(count IN LISTS counts)
    math(EXPR ranks "${ranks} + ${count}")
  endforeach()
  set(fixture "${name}@np${ranks}")
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/out/${fixture})
  if(NOT TEST ${fixture})
    add_test(NAME ${fixture}
             COMMAND bash ${EPTEST_RUNNER} --launcher ${EPTEST_LAUNCHER} --timeout ${timeout}
                     --mode reference --mpi $<TARGET_FILE:${target}> --ranks ${ranks}
                     --out ${dir} -- ${ARGN})
    if(ranks EQUAL 1)
      set(scope single)
    else()
      set(scope multi)
    endif()
    math(EXPR ctest_timeout "${timeout} + 30")
    set_tests_properties(${fixture} PROPERTIES
      TIMEOUT ${ctest_timeout}
      LABELS "${scope};reference;${labels}"
      ENVIRONMENT "${EPTEST_ENV}"
      FIXTURES_SETUP ${fixture})
  endif()
  set(${var} --reference ${dir} PARENT_SCOPE)
  set(${var}_FIXTURE ${fixture} PARENT_SCOPE)
endfunction()

function(ep_add_mpi_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "SAME_REFERENCE" "NAME;MODE;TIMEOUT;PROGRAM"
                        "SOURCES;LIBRARIES;LAYOUTS;ARGS;EXPECT_FATAL;LABELS")
  if(NOT arg_NAME OR (NOT arg_SOURCES AND NOT arg_PROGRAM) OR (arg_SOURCES AND arg_PROGRAM))
    message(FATAL_ERROR "ep_add_mpi_test: NAME and one of SOURCES or PROGRAM are required")
  endif()
  if(NOT arg_LAYOUTS)
    set(arg_LAYOUTS ${EPTEST_LAYOUTS})
  endif()
  if(NOT arg_MODE)
    set(arg_MODE diff)
  endif()
  if(NOT arg_MODE MATCHES "^(diff|check|ep)$")
    message(FATAL_ERROR "ep_add_mpi_test(${arg_NAME}): MODE must be diff, check or ep")
  endif()
  if(NOT EPTEST_REFERENCE)
    set(arg_MODE ep)
  endif()
  if(arg_EXPECT_FATAL)
    set(arg_MODE ep)
  endif()
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 30)  # the tests take seconds; a hang should not cost minutes
  endif()

  # The reference program first, so that it is built even before libep links.
  set(modes)
  if(NOT arg_MODE STREQUAL "ep")
    list(APPEND modes mpi)
  endif()
  list(APPEND modes ep)
  if(arg_PROGRAM)
    string(REPLACE "." "_" target "${arg_PROGRAM}")
    foreach(mode IN LISTS modes)
      if(NOT mode IN_LIST EPTEST_MODES)
        return()  # no library to test yet (see harness/CMakeLists.txt)
      endif()
      if(NOT TARGET ${target}_${mode})
        message(FATAL_ERROR "ep_add_mpi_test(${arg_NAME}): PROGRAM ${arg_PROGRAM} has no "
                            "${mode} program; define that test first, in a mode that builds it")
      endif()
    endforeach()
  else()
    string(REPLACE "." "_" target "${arg_NAME}")
    foreach(mode IN LISTS modes)
      if(NOT mode IN_LIST EPTEST_MODES)
        return()  # no library to test yet (see harness/CMakeLists.txt)
      endif()
      add_executable(${target}_${mode} ${arg_SOURCES})
      list(TRANSFORM arg_LIBRARIES APPEND _${mode} OUTPUT_VARIABLE libraries)
      target_link_libraries(${target}_${mode} PRIVATE ${libraries} eptest_harness_${mode})
      if(EPTEST_PRECOMPILE_HEADERS)
        target_precompile_headers(${target}_${mode} REUSE_FROM eptest_harness_${mode})
      endif()
    endforeach()
  endif()

  math(EXPR launch_timeout "${arg_TIMEOUT} * ${LIBEP_TEST_TIMEOUT_SCALE}")
  # CTest's limit is the backstop; the runner's own per-launch limit fires
  # first and says which launch hung. Each test launches its endpoint
  # program once; the plain-MPI runs are tests of their own.
  math(EXPR ctest_timeout "${launch_timeout} + 30")

  set(command bash ${EPTEST_RUNNER} --launcher ${EPTEST_LAUNCHER} --timeout ${launch_timeout}
              --mode ${arg_MODE} --ep $<TARGET_FILE:${target}_ep>)
  foreach(pattern IN LISTS arg_EXPECT_FATAL)
    list(APPEND command --expect-fatal ${pattern})
  endforeach()

  foreach(layout IN LISTS arg_LAYOUTS)
    string(REPLACE "," ";" counts "${layout}")
    list(LENGTH counts processes)
    if(processes EQUAL 1)
      set(scope single)
    else()
      set(scope multi)
    endif()
    set(reference)
    if("mpi" IN_LIST modes)
      set(reference_of ${arg_NAME})
      if(arg_SAME_REFERENCE AND arg_PROGRAM)
        set(reference_of ${arg_PROGRAM})
      endif()
      ep_mpi_reference(reference ${reference_of} ${layout} ${target}_mpi ${launch_timeout}
                       "${arg_LABELS}" ${arg_ARGS})
    endif()
    set(test_name "${arg_NAME}@${layout}")
    add_test(NAME ${test_name}
             COMMAND ${command} ${reference} --layout ${layout}
                     --out ${CMAKE_CURRENT_BINARY_DIR}/out/${test_name} -- ${arg_ARGS})
    set_tests_properties(${test_name} PROPERTIES
      TIMEOUT ${ctest_timeout}
      LABELS "${scope};${arg_LABELS}"
      ENVIRONMENT "${EPTEST_ENV}")
    if(reference)
      set_tests_properties(${test_name} PROPERTIES FIXTURES_REQUIRED ${reference_FIXTURE})
    endif()
  endforeach()
endfunction()

# ep_node_test_variants(): the tests of the calling directory named
# NAME.small_rings@LAYOUT run with the smallest rings between the processes
# of a node (EP_NODE_RING_BYTES=8192), those named NAME.two_nodes@LAYOUT with
# the processes dealt out onto two pretend nodes (EP_NODE_TEST_NODES=2):
# libep/src/node/rings.hpp, docs/environment.md. Call it after adding them.
function(ep_node_test_variants)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(name IN LISTS tests)
    if(name MATCHES "\\.small_rings@")
      set_property(TEST ${name} APPEND PROPERTY ENVIRONMENT EP_NODE_RING_BYTES=8192)
    elseif(name MATCHES "\\.two_nodes@")
      set_property(TEST ${name} APPEND PROPERTY ENVIRONMENT EP_NODE_TEST_NODES=2)
    endif()
  endforeach()
endfunction()

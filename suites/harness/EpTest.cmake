# ep_add_mpi_test: one test source, two programs, one CTest test per layout.
#
#   ep_add_mpi_test(NAME p2p.all_pairs SOURCES all_pairs.cpp
#                   [LAYOUTS "1" "3" "1,1" ...]     # default: EPTEST_LAYOUTS
#                   [MODE diff|check|ep]           # default: diff
#                   [TIMEOUT seconds]              # per launch, before scaling
#                   [EXPECT_FATAL regex ...]       # the program must die saying this
#                   [ARGS --key=value ...]         # passed to both programs
#                   [LABELS label ...])
#
# Builds <name>_ep (the body on endpoints) and, unless MODE is ep or the test
# is EXPECT_FATAL, <name>_mpi (the body on plain MPI processes). Each layout
# becomes a test "<NAME>@<layout>" run by run_test.sh (see there for the
# modes). One-process layouts get the label `single` (the set that also runs
# under ThreadSanitizer), the others `multi`.

# The layout matrix: 1x1, 1x3, 2x1, 2x2, 3x2, an uneven one, and one with a
# process hosting no endpoint.
set(EPTEST_LAYOUTS "1" "3" "1,1" "2,2" "2,2,2" "1,3,2" "2,0,3"
    CACHE STRING "Default endpoint layouts of the multi-rank tests")
# Sanitized programs run several times slower, and Open MPI under ASan more so.
if(LIBEP_SANITIZER)
  set(eptest_default_scale 4)
else()
  set(eptest_default_scale 1)
endif()
set(LIBEP_TEST_TIMEOUT_SCALE ${eptest_default_scale}
    CACHE STRING "Factor applied to the time limits of the multi-rank tests")

set(EPTEST_RUNNER ${CMAKE_CURRENT_LIST_DIR}/run_test.sh)
set(EPTEST_LAUNCHER ${PROJECT_SOURCE_DIR}/scripts/mpirun.sh)

function(ep_add_mpi_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;MODE;TIMEOUT"
                        "SOURCES;LAYOUTS;ARGS;EXPECT_FATAL;LABELS")
  if(NOT arg_NAME OR NOT arg_SOURCES)
    message(FATAL_ERROR "ep_add_mpi_test: NAME and SOURCES are required")
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
  if(arg_EXPECT_FATAL)
    set(arg_MODE ep)
  endif()
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 30)  # the tests take seconds; a hang should not cost minutes
  endif()

  string(REPLACE "." "_" target "${arg_NAME}")
  # The reference program first, so that it is built even before libep links.
  set(modes)
  if(NOT arg_MODE STREQUAL "ep")
    list(APPEND modes mpi)
  endif()
  list(APPEND modes ep)
  foreach(mode IN LISTS modes)
    if(mode IN_LIST EPTEST_MODES)
      add_executable(${target}_${mode} ${arg_SOURCES})
      target_link_libraries(${target}_${mode} PRIVATE eptest_harness_${mode})
    else()
      return()  # no library to test yet (see harness/CMakeLists.txt)
    endif()
  endforeach()

  math(EXPR launch_timeout "${arg_TIMEOUT} * ${LIBEP_TEST_TIMEOUT_SCALE}")
  list(LENGTH modes launches)
  # CTest's limit is the backstop; the runner's own per-launch limit fires
  # first and says which launch hung.
  math(EXPR ctest_timeout "${launch_timeout} * ${launches} + 30")

  set(command bash ${EPTEST_RUNNER} --launcher ${EPTEST_LAUNCHER} --timeout ${launch_timeout}
              --mode ${arg_MODE} --ep $<TARGET_FILE:${target}_ep>)
  if("mpi" IN_LIST modes)
    list(APPEND command --mpi $<TARGET_FILE:${target}_mpi>)
  endif()
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
    set(test_name "${arg_NAME}@${layout}")
    add_test(NAME ${test_name}
             COMMAND ${command} --layout ${layout}
                     --out ${CMAKE_CURRENT_BINARY_DIR}/out/${test_name} -- ${arg_ARGS})
    set_tests_properties(${test_name} PROPERTIES
      TIMEOUT ${ctest_timeout}
      LABELS "${scope};${arg_LABELS}"
      ENVIRONMENT "${EPTEST_SANITIZER_ENV}")
  endforeach()
endfunction()

# Command-line tests of the tools: a Python runner (suites/*/run_*.py, over
# suites/harness/tool_test.py) runs a tool, under the MPI launcher or alone,
# within a time limit and checks what it printed or wrote.
#
#   ep_tool_test(NAME name RUNNER script.py LABELS label...
#                [NP processes] [TIMEOUT seconds] [LAUNCHES n] [ENV VAR=value...]
#                [SKIP_RETURN_CODE code]
#                ARGS runner arguments... -- tool command line...)
#
# NP gives the runner --launcher scripts/mpirun.sh --np NP (NP 0: the runner
# launches without mpirun). TIMEOUT (default 60) bounds each launch, scaled by
# LIBEP_TEST_TIMEOUT_SCALE and passed as --timeout; ctest's own limit leaves
# room for LAUNCHES launches (default 1) and 30 s more. Every test gets
# EPTEST_ENV (suites/CMakeLists.txt: the launcher's settings and the sanitizer
# options) and ENV. ARGS comes last: everything after it goes to the runner as it is.
#
# Including this file looks for python3: EP_TOOL_TESTS is false without it,
# and the including directory should then skip its runner tests.

if(NOT DEFINED LIBEP_TEST_TIMEOUT_SCALE)
  set(LIBEP_TEST_TIMEOUT_SCALE 1)
endif()
find_package(Python3 COMPONENTS Interpreter)
set(EP_TOOL_TESTS ${Python3_FOUND})

function(ep_tool_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;RUNNER;NP;TIMEOUT;LAUNCHES;SKIP_RETURN_CODE"
                        "LABELS;ENV;ARGS")
  if(NOT arg_NAME OR NOT arg_RUNNER OR NOT arg_LABELS)
    message(FATAL_ERROR "ep_tool_test needs NAME, RUNNER and LABELS")
  endif()
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 60)
  endif()
  if(NOT arg_LAUNCHES)
    set(arg_LAUNCHES 1)
  endif()
  math(EXPR timeout "${arg_TIMEOUT} * ${LIBEP_TEST_TIMEOUT_SCALE}")
  math(EXPR ctest_timeout "${arg_LAUNCHES} * ${timeout} + 30")

  set(launcher)
  if(DEFINED arg_NP)
    set(launcher --launcher ${PROJECT_SOURCE_DIR}/scripts/mpirun.sh --np ${arg_NP})
  endif()
  # ARGS straight into add_test: an argument with a semicolon stays whole
  # only if it is not copied into another list on the way.
  add_test(NAME ${arg_NAME} COMMAND ${Python3_EXECUTABLE} ${arg_RUNNER} ${launcher}
                                    --timeout ${timeout} ${arg_ARGS})

  set(environment ${EPTEST_ENV} ${arg_ENV})
  set_tests_properties(${arg_NAME} PROPERTIES
    TIMEOUT ${ctest_timeout} LABELS "${arg_LABELS}" ENVIRONMENT "${environment}")
  if(DEFINED arg_SKIP_RETURN_CODE)
    set_tests_properties(${arg_NAME} PROPERTIES SKIP_RETURN_CODE ${arg_SKIP_RETURN_CODE})
  endif()
endfunction()

# ep_unpack_row(ROW VAR...): sets the caller's variables VAR... to the fields
# of a test table's row "a|b|c", in order; a field the row does not have
# leaves its variable empty. The tool tests describe their cases as such rows.
function(ep_unpack_row row)
  string(REPLACE "|" ";" fields "${row}")
  list(LENGTH fields count)
  set(i 0)
  foreach(var IN LISTS ARGN)
    set(value "")
    if(i LESS count)
      list(GET fields ${i} value)
    endif()
    set(${var} "${value}" PARENT_SCOPE)
    math(EXPR i "${i} + 1")
  endforeach()
endfunction()

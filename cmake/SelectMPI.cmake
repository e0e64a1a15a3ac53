# Finds the MPI that LIBEP_MPI selects and finds out which implementation it is.
#
# Defines, for the rest of the build:
#   MPI::MPI_C       the imported target of find_package(MPI)
#   LIBEP_MPI_IMPL   openmpi, mpich or unknown, read from mpi.h, so that `auto`
#                    knows what it got too (MPICH derivatives such as Intel MPI
#                    and MVAPICH count as mpich: they share its launcher, Hydra)
#   LIBEP_MPIEXEC    that implementation's launcher; scripts/mpirun.sh runs it
#                    with the flags that implementation needs
#   LIBEP_MPICH_NUMVERSION  MPICH_NUMVERSION of an MPICH, else 0
#
# FindMPI caches the wrapper it interrogated, the libraries it found and the
# launcher, so switching implementations in a configured build directory would
# mix two of them; that is refused rather than half done. (Naming the one a
# build directory already has, e.g. openmpi after auto found Open MPI, is fine.)

if(DEFINED CACHE{LIBEP_MPI_FOUND} AND NOT LIBEP_MPI STREQUAL "auto"
   AND NOT LIBEP_MPI STREQUAL LIBEP_MPI_FOUND)
  message(FATAL_ERROR
    "LIBEP_MPI is '${LIBEP_MPI}', but this build directory was configured with "
    "${LIBEP_MPI_FOUND}; use another build directory (or cmake --fresh)")
endif()

if(LIBEP_MPI STREQUAL "openmpi" OR LIBEP_MPI STREQUAL "mpich")
  # FindMPI appends the suffix to every wrapper and launcher name it tries.
  # Debian installs both implementations side by side under suffixed names
  # (mpicc.openmpi, mpiexec.mpich, ...) and points the plain names at one of
  # them; the suffixed ones select without depending on that. Elsewhere, set
  # MPI_C_COMPILER (or load the implementation's module) and the check below
  # still confirms the choice.
  if(NOT MPI_C_COMPILER)
    set(MPI_EXECUTABLE_SUFFIX ".${LIBEP_MPI}")
  endif()
elseif(NOT LIBEP_MPI STREQUAL "auto")
  message(FATAL_ERROR "LIBEP_MPI must be auto, openmpi or mpich, not '${LIBEP_MPI}'")
endif()

find_package(MPI REQUIRED COMPONENTS C)

# The implementation, from the macros its mpi.h defines.
include(CheckSymbolExists)
include(CMakePushCheckState)
cmake_push_check_state(RESET)
set(CMAKE_REQUIRED_INCLUDES ${MPI_C_INCLUDE_DIRS})
set(CMAKE_REQUIRED_QUIET ON)
check_symbol_exists(OMPI_MAJOR_VERSION mpi.h LIBEP_MPI_HAS_OMPI_VERSION)
check_symbol_exists(MPICH_VERSION mpi.h LIBEP_MPI_HAS_MPICH_VERSION)
cmake_pop_check_state()
set(LIBEP_MPICH_NUMVERSION 0)
if(LIBEP_MPI_HAS_OMPI_VERSION)
  set(LIBEP_MPI_IMPL openmpi)
elseif(LIBEP_MPI_HAS_MPICH_VERSION)
  set(LIBEP_MPI_IMPL mpich)
  # MAJOR*10^7 + MINOR*10^5 + REVISION*10^3 + ..., as MPICH_NUMVERSION in mpi.h:
  # the tests work around bugs of particular MPICH versions.
  find_file(LIBEP_MPI_H mpi.h PATHS ${MPI_C_INCLUDE_DIRS} NO_DEFAULT_PATH)
  file(STRINGS "${LIBEP_MPI_H}" numversion REGEX "^#define[ \t]+MPICH_NUMVERSION[ \t]+[0-9]+")
  if(numversion MATCHES "([0-9]+)$")
    set(LIBEP_MPICH_NUMVERSION ${CMAKE_MATCH_1})
  endif()
else()
  set(LIBEP_MPI_IMPL unknown)
endif()
set(LIBEP_MPI_FOUND "${LIBEP_MPI_IMPL}" CACHE INTERNAL "The MPI of this build directory")
if(NOT LIBEP_MPI STREQUAL "auto" AND NOT LIBEP_MPI STREQUAL LIBEP_MPI_IMPL)
  message(FATAL_ERROR
    "LIBEP_MPI=${LIBEP_MPI}, but the MPI found (mpi.h in ${MPI_C_INCLUDE_DIRS}) is "
    "${LIBEP_MPI_IMPL}; install it (scripts/setup.sh) or point MPI_C_COMPILER at its mpicc")
endif()

# The launcher by its real name: on Debian `mpiexec` is an alternatives link
# that may be pointed at the other implementation after configuring.
if(MPIEXEC_EXECUTABLE)
  file(REAL_PATH "${MPIEXEC_EXECUTABLE}" LIBEP_MPIEXEC)
else()
  set(LIBEP_MPIEXEC "")
endif()
message(STATUS "libep: MPI ${LIBEP_MPI_IMPL} (LIBEP_MPI=${LIBEP_MPI}), MPI ${MPI_C_VERSION}, "
               "include ${MPI_C_INCLUDE_DIRS}, launcher ${LIBEP_MPIEXEC}")

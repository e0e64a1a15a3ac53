# Installs libep as a package, in the GNUInstallDirs places under the prefix:
#
#   lib/libep.a or lib/libep.so.*         the library (BUILD_SHARED_LIBS picks)
#   include/ep/*.hpp                      the public headers
#   lib/cmake/libep/libepConfig*.cmake    find_package(libep) -> ep::ep
#   lib/cmake/libep/libepTargets*.cmake
#   lib/pkgconfig/libep.pc                pkg-config --cflags --libs libep
#
# Components, for packagers who split: libep_Runtime is the shared library,
# libep_Development everything else (headers, the static library or the .so
# link, the CMake package, libep.pc).
#
# Static or shared follows BUILD_SHARED_LIBS, CMake's own switch, with its
# default: static. That is what a packager expects of a CMake project (Debian,
# Spack and conda recipes pass -DBUILD_SHARED_LIBS=ON when they want the .so),
# and a static library makes no ABI promise, which suits a library that may
# change its ABI in any 0.x release. Both install a working package: a static
# libep brings its link-time needs (fmt, threads) into the package, a shared
# one (libep.so.MAJOR.MINOR before 1.0) keeps them to itself.
#
# The MPI is the one this build directory was configured with
# (cmake/SelectMPI.cmake): Open MPI and MPICH have different ABIs and a program
# must use libep's. libepConfig.cmake records it and steers find_package(MPI)
# to it; libep.pc names that MPI's own pkg-config module.

include(CMakePackageConfigHelpers)

set(LIBEP_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/libep
    CACHE STRING "Where libepConfig.cmake goes, relative to the prefix")
mark_as_advanced(LIBEP_INSTALL_CMAKEDIR)

install(TARGETS ep EXPORT libepTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT libep_Development
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT libep_Runtime
          NAMELINK_COMPONENT libep_Development
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT libep_Runtime)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/libep/include/ep
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  COMPONENT libep_Development
  FILES_MATCHING PATTERN "*.hpp")
install(EXPORT libepTargets
  NAMESPACE ep::
  DESTINATION ${LIBEP_INSTALL_CMAKEDIR}
  COMPONENT libep_Development)

# What libepConfig.cmake needs to know about this build.
get_target_property(libep_type ep TYPE)
if(libep_type STREQUAL "STATIC_LIBRARY")
  set(LIBEP_STATIC ON)
else()
  set(LIBEP_STATIC OFF)
endif()
# SelectMPI.cmake set the suffix when LIBEP_MPI named an implementation and no
# MPI_C_COMPILER was given.
set(LIBEP_MPI_SUFFIX "${MPI_EXECUTABLE_SUFFIX}")
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/libepConfig.cmake.in
  ${PROJECT_BINARY_DIR}/package/libepConfig.cmake
  INSTALL_DESTINATION ${LIBEP_INSTALL_CMAKEDIR}
  NO_SET_AND_CHECK_MACRO)
# Before 1.0 a minor release may change the API, so only patch releases of the
# same 0.x are compatible; from 1.0 on, any release of the same major.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(libep_compatibility SameMinorVersion)
else()
  set(libep_compatibility SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/libepConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY ${libep_compatibility})
install(FILES ${PROJECT_BINARY_DIR}/package/libepConfig.cmake
              ${PROJECT_BINARY_DIR}/package/libepConfigVersion.cmake
  DESTINATION ${LIBEP_INSTALL_CMAKEDIR}
  COMPONENT libep_Development)

include(${CMAKE_CURRENT_LIST_DIR}/PkgConfig.cmake)

# libep.pc, for projects that build with pkg-config rather than CMake:
#   c++ app.cpp $(pkg-config --cflags --libs libep)
# (PKG_CONFIG_PATH=PREFIX/lib/pkgconfig for a prefix pkg-config does not search).
#
# Its MPI is libep's: the implementation's own module where it has one that
# describes the installation libep was built with (ompi-c for Open MPI,
# mpich for MPICH), else the flags FindMPI found, written out. The plain `mpi`
# module would not do: on Debian it is whichever MPI the alternatives point to.
#
# A static libep lists what it needs at link time in Libs, not Libs.private:
# users call `pkg-config --libs` without --static, and there is no shared
# libep for them to get instead.

set(LIBEP_PC_REQUIRES "")
set(LIBEP_PC_CFLAGS "")
set(LIBEP_PC_LIBS "")
set(LIBEP_PC_LIBS_PRIVATE "")
find_package(PkgConfig QUIET)

# The MPI module, if it names the same mpi.h directory as FindMPI.
set(libep_pc_mpi_module "")
if(LIBEP_MPI_IMPL STREQUAL "openmpi")
  set(libep_pc_mpi_module ompi-c)
elseif(LIBEP_MPI_IMPL STREQUAL "mpich")
  set(libep_pc_mpi_module mpich)
endif()
if(PKG_CONFIG_FOUND AND libep_pc_mpi_module)
  pkg_check_modules(LIBEP_PC_MPI QUIET ${libep_pc_mpi_module})
  set(libep_pc_same_mpi OFF)
  foreach(dir IN LISTS LIBEP_PC_MPI_INCLUDE_DIRS)
    file(REAL_PATH "${dir}" dir)
    foreach(mpi_dir IN LISTS MPI_C_INCLUDE_DIRS)
      file(REAL_PATH "${mpi_dir}" mpi_dir)
      if(dir STREQUAL mpi_dir)
        set(libep_pc_same_mpi ON)
      endif()
    endforeach()
  endforeach()
  if(LIBEP_PC_MPI_FOUND AND libep_pc_same_mpi)
    list(APPEND LIBEP_PC_REQUIRES ${libep_pc_mpi_module})
  else()
    set(libep_pc_mpi_module "")
  endif()
else()
  set(libep_pc_mpi_module "")
endif()
if(NOT libep_pc_mpi_module)
  foreach(dir IN LISTS MPI_C_INCLUDE_DIRS)
    string(APPEND LIBEP_PC_CFLAGS " -I${dir}")
  endforeach()
  foreach(definition IN LISTS MPI_C_COMPILE_DEFINITIONS)
    string(APPEND LIBEP_PC_CFLAGS " -D${definition}")
  endforeach()
  foreach(option IN LISTS MPI_C_COMPILE_OPTIONS)
    string(APPEND LIBEP_PC_CFLAGS " ${option}")
  endforeach()
  foreach(option IN LISTS MPI_C_LINK_FLAGS MPI_C_LIBRARIES)
    string(APPEND LIBEP_PC_LIBS " ${option}")
  endforeach()
endif()
if(libep_pc_mpi_module)
  message(STATUS "libep: libep.pc requires the pkg-config module ${libep_pc_mpi_module}")
else()
  message(STATUS "libep: libep.pc carries FindMPI's flags (no pkg-config module for this MPI)")
endif()

# dlsym (libep/src/base/held_op.cpp) is in a library of its own before
# glibc 2.34: CMAKE_DL_LIBS names it ("dl"), or is empty where libc has it.
set(libep_pc_dl "")
foreach(lib IN LISTS CMAKE_DL_LIBS)
  string(APPEND libep_pc_dl " -l${lib}")
endforeach()

if(LIBEP_STATIC)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(LIBEP_PC_FMT QUIET fmt)
  endif()
  if(LIBEP_PC_FMT_FOUND)
    list(APPEND LIBEP_PC_REQUIRES fmt)
  else()
    string(APPEND LIBEP_PC_LIBS " -lfmt")
  endif()
  if(CMAKE_THREAD_LIBS_INIT)
    string(APPEND LIBEP_PC_LIBS " ${CMAKE_THREAD_LIBS_INIT}")
  endif()
  string(APPEND LIBEP_PC_LIBS "${libep_pc_dl}")
else()
  if(CMAKE_THREAD_LIBS_INIT)
    string(APPEND LIBEP_PC_LIBS_PRIVATE " ${CMAKE_THREAD_LIBS_INIT}")
  endif()
  string(APPEND LIBEP_PC_LIBS_PRIVATE "${libep_pc_dl}")
endif()
list(JOIN LIBEP_PC_REQUIRES " " LIBEP_PC_REQUIRES)

# The prefix is the one installed to, known only at install time
# (cmake --install --prefix); the directories under it are relative to it
# unless configured absolute.
foreach(kind LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${kind}}")
    set(LIBEP_PC_${kind} "${CMAKE_INSTALL_${kind}}")
  else()
    set(LIBEP_PC_${kind} "\${prefix}/${CMAKE_INSTALL_${kind}}")
  endif()
endforeach()
set(LIBEP_PC_PREFIX "@LIBEP_PC_PREFIX@")
configure_file(${CMAKE_CURRENT_LIST_DIR}/libep.pc.in ${PROJECT_BINARY_DIR}/package/libep.pc.in @ONLY)
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(libep_pc_destination "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
else()
  set(libep_pc_destination "\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig")
endif()
install(CODE "
  set(LIBEP_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  configure_file(\"${PROJECT_BINARY_DIR}/package/libep.pc.in\"
                 \"${PROJECT_BINARY_DIR}/package/install/libep.pc\" @ONLY)
  file(INSTALL \"${PROJECT_BINARY_DIR}/package/install/libep.pc\"
       DESTINATION \"${libep_pc_destination}\")
" COMPONENT libep_Development)

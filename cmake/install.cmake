# `cmake --install`: the layout of cmake/install_layout.cmake, a relocatable
# kbench.pc and a relocatable CMake package (find_package(kbench CONFIG)).
include(CMakePackageConfigHelpers)

install(TARGETS kbench_worker RUNTIME DESTINATION ${KB_INSTALL_LIBEXECDIR})
# The Triton compile worker (docs/triton.md §6), beside kbench-worker.
install(PROGRAMS python/kbench_triton/compile_worker.py DESTINATION ${KB_INSTALL_LIBEXECDIR}
        RENAME kbench-triton-worker.py)
install(TARGETS kbench_cli RUNTIME DESTINATION ${KB_INSTALL_BINDIR})

if(KBENCH_WHEEL)
  # The wheel carries what runs: the shared library (for the Python module),
  # the worker and the CLI. Headers and the static library are for C builds.
  install(TARGETS kbench LIBRARY DESTINATION ${KB_INSTALL_LIBDIR} NAMELINK_SKIP)
  return()
endif()

install(TARGETS kbench kbench_static EXPORT kbenchTargets
        LIBRARY DESTINATION ${KB_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${KB_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${KB_INSTALL_INCLUDEDIR})
install(FILES include/kbench.h DESTINATION ${KB_INSTALL_INCLUDEDIR})

# pkg-config: the prefix comes from the .pc file's own folder, so the prefix
# can move. The static link's extra libraries (NVRTC, the C++ runtime) are
# private: a shared link needs -lkbench alone.
set(KB_PC_NVRTC_LIBDIR "${KB_NVRTC_LIBDIR}")
configure_file(pkgconfig/kbench.pc.in ${CMAKE_CURRENT_BINARY_DIR}/kbench.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/kbench.pc DESTINATION ${KB_INSTALL_LIBDIR}/pkgconfig)

# CMake package: kbench::kbench (shared), kbench::kbench_static.
set(_kb_cmake_dir ${KB_INSTALL_LIBDIR}/cmake/kbench)
install(EXPORT kbenchTargets NAMESPACE kbench:: DESTINATION ${_kb_cmake_dir} FILE kbenchTargets.cmake)
configure_package_config_file(cmake/kbenchConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/kbenchConfig.cmake
                              INSTALL_DESTINATION ${_kb_cmake_dir})
# SameMajorVersion, like the SOVERSION: within a major version a newer kbench
# serves programs built against an older one (docs/compatibility.md).
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/kbenchConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/kbenchConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/kbenchConfigVersion.cmake
        DESTINATION ${_kb_cmake_dir})

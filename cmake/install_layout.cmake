# Where `cmake --install` puts kbench, relative to the prefix, and how the
# installed binaries find what they need without environment variables.
#
#   prefix/include/kbench.h
#   prefix/lib/libkbench.so.MAJOR (+ .so, .so.MAJOR.MINOR.PATCH), libkbench.a
#   prefix/lib/pkgconfig/kbench.pc, prefix/lib/cmake/kbench/
#   prefix/libexec/kbench-worker       found from the library: ../libexec
#   prefix/bin/kbench                  the CLI (kbench linked in statically)
#
# The Python wheel (KBENCH_WHEEL) keeps everything inside the package:
#
#   kbench/*.py, kbench/_capi.abi3.so  RPATH $ORIGIN/lib
#   kbench/lib/libkbench.so.MAJOR
#   kbench/libexec/kbench-worker
#   kbench/bin/kbench                  run by the `kbench` console script
#
# NVRTC: libkbench.so, the CLI and the worker link libnvrtc. Their RPATH holds
# the lib folder of the CUDA toolkit they were built against (absolute, since
# the toolkit is not part of the prefix), so an installed kbench finds NVRTC
# wherever that toolkit stays. On a machine whose toolkit lives elsewhere the
# dynamic loader's own search applies (ld.so.conf, which the CUDA installer
# sets up, or LD_LIBRARY_PATH). KBENCH_RPATH_NVRTC=OFF leaves the RPATH out
# (distribution packages, where libnvrtc is on the system's path).
if(KBENCH_WHEEL)
  set(KB_INSTALL_LIBDIR kbench/lib)
  set(KB_INSTALL_LIBEXECDIR kbench/libexec)
  set(KB_INSTALL_BINDIR kbench/bin)
  set(KB_INSTALL_INCLUDEDIR kbench/include)
else()
  set(KB_INSTALL_LIBDIR ${CMAKE_INSTALL_LIBDIR})
  set(KB_INSTALL_LIBEXECDIR ${CMAKE_INSTALL_LIBEXECDIR})
  set(KB_INSTALL_BINDIR ${CMAKE_INSTALL_BINDIR})
  set(KB_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR})
endif()

# Absolute forms, for the last-resort compiled-in path of the worker.
if(KBENCH_WHEEL)
  # A wheel is installed into a site-packages folder nobody knows yet.
  set(KB_INSTALL_FULL_LIBEXECDIR "")
else()
  set(KB_INSTALL_FULL_LIBEXECDIR ${CMAKE_INSTALL_FULL_LIBEXECDIR})
endif()

# The worker's folder seen from the library's and from the CLI's, relative,
# so a moved prefix still works (src/worker_host/worker_locate.cpp).
function(_kb_relative out from to)
  file(RELATIVE_PATH _rel "/prefix/${from}" "/prefix/${to}")
  if(_rel STREQUAL "")
    set(_rel ".")
  endif()
  set(${out} "${_rel}" PARENT_SCOPE)
endfunction()
_kb_relative(KB_LIBEXEC_FROM_LIBDIR ${KB_INSTALL_LIBDIR} ${KB_INSTALL_LIBEXECDIR})
_kb_relative(KB_LIBEXEC_FROM_BINDIR ${KB_INSTALL_BINDIR} ${KB_INSTALL_LIBEXECDIR})
# The prefix seen from the pkg-config folder, for kbench.pc's ${pcfiledir}.
_kb_relative(KB_PREFIX_FROM_PCDIR ${KB_INSTALL_LIBDIR}/pkgconfig .)

# The folder of the libnvrtc actually linked. (CUDAToolkit_LIBRARY_DIR can
# name a folder of symlinks to libcudart alone, /usr/local/lib, with newer
# CMake versions.)
get_target_property(_kb_nvrtc CUDA::nvrtc IMPORTED_LOCATION)
if(NOT _kb_nvrtc)
  get_target_property(_kb_nvrtc CUDA::nvrtc IMPORTED_LOCATION_RELEASE)
endif()
if(_kb_nvrtc)
  get_filename_component(KB_NVRTC_LIBDIR "${_kb_nvrtc}" DIRECTORY)
else()
  set(KB_NVRTC_LIBDIR "${CUDAToolkit_LIBRARY_DIR}")
endif()
if(KBENCH_RPATH_NVRTC)
  set(KB_RPATH_NVRTC "${KB_NVRTC_LIBDIR}")
else()
  set(KB_RPATH_NVRTC "")
endif()

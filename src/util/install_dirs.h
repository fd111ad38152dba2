// Where kbench finds its own helper files without configuration: the
// kbench-worker, the Triton compile worker (kbench-triton-worker.py) and the
// Python programs (python/kbench_programs, installed as libexec/kbench/python,
// with their native libraries in native/). One search for all of them, so an
// installed prefix, a moved one and an installed wheel (kbench/lib,
// kbench/bin and kbench/libexec inside site-packages) behave alike.
#pragma once

#include <string>
#include <vector>

namespace kb {

// The libexec folders of the installation this code belongs to, most
// specific first: the folder of the binary that holds kbench (libkbench.so,
// or a program that links kbench statically); the install layout's libexec
// relative to it (lib/../libexec, bin/../libexec; the wheel's
// kbench/lib/../libexec); ../libexec from there; the install prefix's
// libexec (CMAKE_INSTALL_FULL_LIBEXECDIR; none for a wheel).
std::vector<std::string> libexec_dirs();

// The folder of kbench's Python programs: $KBENCH_PROGRAMS_DIR when set,
// else the first libexec_dirs()/kbench/python that holds `probe` (a file
// name such as "kbench_importer.py"), else the source tree's
// python/kbench_programs when it holds it; "" when none does. *looked, when
// given, lists every folder tried, for the message.
std::string programs_dir(const std::string& probe, std::string* looked = nullptr);

}  // namespace kb

// Finding the kbench-worker executable without configuration.
#pragma once

#include <string>
#include <vector>

namespace kb {

// The worker to start, in this order:
//   1. `configured` (kb_context_options.worker_path), when not empty;
//   2. $KBENCH_WORKER;
//   3. beside the binary that holds kbench (libkbench.so, or the program that
//      links kbench statically), then the install layout's libexec folder
//      relative to it (lib/../libexec, bin/../libexec; the wheel's
//      kbench/lib/../libexec), then ../libexec/ from there;
//   4. the install prefix's libexec folder (CMAKE_INSTALL_FULL_LIBEXECDIR);
//   5. the build tree it was built in (KB_BUILD_WORKER_PATH).
// An explicit path (1 or 2) that is not executable is an error, not a reason
// to look elsewhere. Throws kb::Error(KB_ERR_WORKER) listing every place tried.
std::string find_worker_executable(const std::string& configured);

// The automatic candidates (3 to 5), in order, for messages and tests.
std::vector<std::string> worker_search_path();

}  // namespace kb

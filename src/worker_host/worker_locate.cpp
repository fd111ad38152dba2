#include "worker_host/worker_locate.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "util/error.h"
#include "util/files.h"
#include "util/install_dirs.h"

namespace kb {
namespace {

constexpr const char* kWorkerName = "kbench-worker";

bool is_executable_file(const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::vector<std::string> worker_search_path() {
    std::vector<std::string> out;
    for (const std::string& dir : libexec_dirs()) out.push_back(join_path(dir, kWorkerName));
#ifdef KB_BUILD_WORKER_PATH
    if (std::find(out.begin(), out.end(), KB_BUILD_WORKER_PATH) == out.end()) out.push_back(KB_BUILD_WORKER_PATH);
#endif
    return out;
}

std::string find_worker_executable(const std::string& configured) {
    if (!configured.empty()) {
        if (is_executable_file(configured)) return configured;
        fail(KB_ERR_WORKER, "kb_context_options.worker_path '" + configured +
                                "' is not an executable file; point it at the kbench-worker installed with this "
                                "library, or leave it NULL to find it automatically");
    }
    if (const char* env = std::getenv("KBENCH_WORKER"); env && *env) {
        if (is_executable_file(env)) return env;
        fail(KB_ERR_WORKER, std::string("$KBENCH_WORKER '") + env +
                                "' is not an executable file; point it at the kbench-worker installed with this "
                                "library, or unset it to find it automatically");
    }
    std::string tried;
    for (const std::string& p : worker_search_path()) {
        if (is_executable_file(p)) return p;
        tried += "\n  " + p;
    }
    fail(KB_ERR_WORKER, std::string("cannot find the kbench-worker executable that runs candidates in isolation; "
                                    "looked in:") +
                            tried +
                            "\ninstall it beside libkbench (or in ../libexec), set kb_context_options.worker_path "
                            "or $KBENCH_WORKER, or use KB_ISOLATION_IN_PROCESS for trusted kernels only");
}

}  // namespace kb

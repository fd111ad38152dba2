#include "worker_host/worker_locate.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "util/error.h"
#include "util/files.h"

namespace kb {
namespace {

constexpr const char* kWorkerName = "kbench-worker";

bool is_executable_file(const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// The folder of the binary this code was loaded from: dladdr on one of our
// own functions names libkbench.so, or the executable when kbench is linked
// statically (tests, the CLI).
std::string own_binary_dir() {
    Dl_info info;
    if (::dladdr(reinterpret_cast<void*>(&own_binary_dir), &info) == 0 || !info.dli_fname || !*info.dli_fname)
        return "";
    std::string file = info.dli_fname;
    char* real = ::realpath(file.c_str(), nullptr);
    if (real) {
        file = real;
        std::free(real);
    }
    std::string dir = dirname_of(file);
    return dir.empty() ? "." : dir;
}

}  // namespace

std::vector<std::string> worker_search_path() {
    std::vector<std::string> out;
    auto add = [&](const std::string& path) {
        if (std::find(out.begin(), out.end(), path) == out.end()) out.push_back(path);
    };
    std::string dir = own_binary_dir();
    if (!dir.empty()) {
        add(join_path(dir, kWorkerName));
        // The install layout seen from the library's folder and from a
        // program's (kbench linked statically): relative, so that a moved
        // prefix or an installed wheel still finds its worker.
#ifdef KB_LIBEXEC_FROM_LIBDIR
        add(join_path(join_path(dir, KB_LIBEXEC_FROM_LIBDIR), kWorkerName));
#endif
#ifdef KB_LIBEXEC_FROM_BINDIR
        add(join_path(join_path(dir, KB_LIBEXEC_FROM_BINDIR), kWorkerName));
#endif
        add(join_path(join_path(dir, "../libexec"), kWorkerName));
    }
#ifdef KB_INSTALL_LIBEXECDIR
    if (*KB_INSTALL_LIBEXECDIR) add(join_path(KB_INSTALL_LIBEXECDIR, kWorkerName));
#endif
#ifdef KB_BUILD_WORKER_PATH
    add(KB_BUILD_WORKER_PATH);
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

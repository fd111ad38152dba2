#include "util/install_dirs.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>

#include "util/files.h"

// Set for the library by CMakeLists.txt (cmake/install_layout.cmake).
#ifndef KB_INSTALL_LIBEXECDIR
#define KB_INSTALL_LIBEXECDIR ""
#endif
#ifndef KB_PROGRAMS_SOURCE_DIR
#define KB_PROGRAMS_SOURCE_DIR ""
#endif

namespace kb {
namespace {

bool is_file(const std::string& p) {
    struct stat st;
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The folder of the binary this code was loaded from: dladdr on one of our
// own functions names libkbench.so, or the executable when kbench is linked
// statically (tests, the CLI, the worker).
std::string own_binary_dir() {
    Dl_info info;
    if (::dladdr(reinterpret_cast<void*>(&own_binary_dir), &info) == 0 || !info.dli_fname || !*info.dli_fname)
        return "";
    std::string file = info.dli_fname;
    if (char* real = ::realpath(file.c_str(), nullptr)) {
        file = real;
        std::free(real);
    }
    std::string dir = dirname_of(file);
    return dir.empty() ? "." : dir;
}

}  // namespace

std::vector<std::string> libexec_dirs() {
    std::vector<std::string> out;
    auto add = [&](const std::string& dir) {
        if (std::find(out.begin(), out.end(), dir) == out.end()) out.push_back(dir);
    };
    const std::string dir = own_binary_dir();
    if (!dir.empty()) {
        add(dir);
        // Relative, so that a moved prefix or an installed wheel still works.
#ifdef KB_LIBEXEC_FROM_LIBDIR
        add(join_path(dir, KB_LIBEXEC_FROM_LIBDIR));
#endif
#ifdef KB_LIBEXEC_FROM_BINDIR
        add(join_path(dir, KB_LIBEXEC_FROM_BINDIR));
#endif
        add(join_path(dir, "../libexec"));
    }
    if (*KB_INSTALL_LIBEXECDIR) add(KB_INSTALL_LIBEXECDIR);
    return out;
}

std::string programs_dir(const std::string& probe, std::string* looked) {
    std::vector<std::string> tries;
    if (const char* e = std::getenv("KBENCH_PROGRAMS_DIR"); e && *e) tries.push_back(e);
    for (const std::string& d : libexec_dirs()) tries.push_back(join_path(d, "kbench/python"));
    if (*KB_PROGRAMS_SOURCE_DIR) tries.push_back(KB_PROGRAMS_SOURCE_DIR);
    for (const std::string& d : tries) {
        if (is_file(join_path(d, probe))) return d;
        if (looked) *looked += (looked->empty() ? "" : ", ") + d;
    }
    return "";
}

}  // namespace kb

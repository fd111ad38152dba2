#include "util/files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

#include "util/error.h"

namespace kb {

std::string read_file(const std::string& path) {
    // An ifstream opens a directory and reads nothing from it: an empty
    // "file" would surface later as a baffling parse or compile error.
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        fail(KB_ERR_IO, "cannot read '" + path + "': it is a directory; expected a file");
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(KB_ERR_IO, "cannot read '" + path + "': " + std::strerror(errno));
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) fail(KB_ERR_IO, "error while reading '" + path + "'");
    return ss.str();
}

void write_file_atomic(const std::string& path, const std::string& data) {
    std::string tmp = path + ".tmp." + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) fail(KB_ERR_IO, "cannot write '" + tmp + "': " + std::strerror(errno));
        out.write(data.data(), std::streamsize(data.size()));
        if (!out) fail(KB_ERR_IO, "error while writing '" + tmp + "'");
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        int e = errno;
        std::remove(tmp.c_str());
        fail(KB_ERR_IO, "cannot rename '" + tmp + "' to '" + path + "': " + std::strerror(e));
    }
}

bool file_exists(const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
}

std::string dirname_of(const std::string& path) {
    size_t slash = path.find_last_of('/');
    if (slash == std::string::npos) return "";
    if (slash == 0) return "/";
    return path.substr(0, slash);
}

std::string join_path(const std::string& dir, const std::string& name) {
    if (dir.empty() || (!name.empty() && name[0] == '/')) return name;
    if (dir.back() == '/') return dir + name;
    return dir + "/" + name;
}

void make_dirs(const std::string& path) {
    if (path.empty()) return;
    std::string partial;
    size_t pos = 0;
    while (pos != std::string::npos) {
        pos = path.find('/', pos + 1);
        partial = path.substr(0, pos);
        if (partial.empty()) continue;
        if (::mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST)
            fail(KB_ERR_IO, "cannot create directory '" + partial + "': " + std::strerror(errno));
    }
}

std::string make_temp_dir(const std::string& prefix) {
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/" + prefix + "XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!::mkdtemp(buf.data()))
        fail(KB_ERR_IO, "cannot create a temporary folder " + tmpl + ": " + std::strerror(errno) +
                            "; set TMPDIR to a writable folder");
    return buf.data();
}

void remove_tree(const std::string& path) {
    if (DIR* d = ::opendir(path.c_str())) {
        while (dirent* e = ::readdir(d)) {
            std::string n = e->d_name;
            if (n == "." || n == "..") continue;
            std::string p = path + "/" + n;
            struct stat st;
            if (::lstat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) remove_tree(p);
            else ::unlink(p.c_str());
        }
        ::closedir(d);
    }
    ::rmdir(path.c_str());
}

}  // namespace kb

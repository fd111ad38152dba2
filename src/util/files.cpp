#include "util/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
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

FileRead read_regular_file(const std::string& path, uint64_t max_bytes) {
    // O_NONBLOCK: opening a FIFO without a writer would otherwise wait forever.
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) fail(KB_ERR_IO, "cannot read '" + path + "': " + std::strerror(errno));
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat st;
    if (::fstat(fd, &st) != 0) fail(KB_ERR_IO, "cannot read '" + path + "': " + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) {
        const char* kind = S_ISDIR(st.st_mode)   ? "a directory"
                           : S_ISCHR(st.st_mode) ? "a character device"
                           : S_ISBLK(st.st_mode) ? "a block device"
                           : S_ISFIFO(st.st_mode) ? "a FIFO"
                           : S_ISSOCK(st.st_mode) ? "a socket"
                                                  : "not a regular file";
        fail(KB_ERR_IO, "cannot read '" + path + "': it is " + kind + "; expected a regular file");
    }
    FileRead r;
    r.size = uint64_t(st.st_size);
    if (r.size > max_bytes) {
        r.too_large = true;
        return r;
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    // Read to the end but never past the limit: files in /proc report size 0,
    // and a file may grow while it is read.
    char buf[65536];
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail(KB_ERR_IO, "error while reading '" + path + "': " + std::strerror(errno));
        if (n == 0) break;
        if (r.data.size() + size_t(n) > max_bytes) {
            r.size = r.data.size() + size_t(n);
            r.too_large = true;
            r.data.clear();
            return r;
        }
        r.data.append(buf, size_t(n));
    }
    r.size = r.data.size();
    return r;
}

std::string path_inside(const std::string& dir, const std::string& relative, std::string* why) {
    if (relative.empty()) {
        *why = "the path is empty";
        return "";
    }
    if (relative.find('\0') != std::string::npos) {
        *why = "the path contains a NUL byte";
        return "";
    }
    if (relative[0] == '/') {
        *why = "the path is absolute";
        return "";
    }
    for (size_t b = 0; b <= relative.size();) {
        size_t e = relative.find('/', b);
        if (e == std::string::npos) e = relative.size();
        if (relative.compare(b, e - b, "..") == 0 && e - b == 2) {
            *why = "the path has a '..' component";
            return "";
        }
        b = e + 1;
    }
    char root[PATH_MAX], file[PATH_MAX];
    std::string base = dir.empty() ? "." : dir;
    std::string joined = join_path(base, relative);
    // What does not resolve cannot be opened either: reading it then fails
    // with the usual message naming the path.
    if (!::realpath(base.c_str(), root) || !::realpath(joined.c_str(), file)) return joined;
    std::string r = root, f = file;
    if (r != "/" && (f.size() <= r.size() || f.compare(0, r.size(), r) != 0 || f[r.size()] != '/')) {
        *why = "it leads out of its folder (through a symbolic link)";
        return "";
    }
    return f;
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

std::string tail_of_file(const std::string& path, size_t max_bytes) {
    std::string s;
    try {
        s = read_file(path);
    } catch (const Error&) {
        return "";
    }
    if (s.size() > max_bytes) s = "..." + s.substr(s.size() - max_bytes);
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
}

}  // namespace kb

// Small file helpers with error messages that name the path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace kb {

// Reads a whole file; throws kb::Error(KB_ERR_IO) naming the path and errno.
// For files a caller names, use read_regular_file.
std::string read_file(const std::string& path);

// Reads a regular file of at most `max_bytes`. A device (/dev/zero), a FIFO,
// a socket or a directory is refused before a byte is read, so a path can
// neither block the caller nor feed it endless data; so is a file past the
// limit (`too_large` set, `data` empty). Throws kb::Error(KB_ERR_IO) naming
// the path for anything but a readable regular file.
struct FileRead {
    std::string data;
    uint64_t size = 0;  // the size found (past the limit when too_large)
    bool too_large = false;
};
FileRead read_regular_file(const std::string& path, uint64_t max_bytes);

// Resolves `relative` inside folder `dir` ("" for the current directory):
// it must not be absolute nor have a ".." component, and the file it names,
// once symbolic links are followed, must lie inside `dir`. Returns the path
// to open (as joined, when it does not resolve: opening it then fails with
// the usual message naming it), or "" with *why saying which rule it broke.
std::string path_inside(const std::string& dir, const std::string& relative, std::string* why);
// Writes through a temporary file and rename(), so concurrent readers of a
// cache never see half a file.
void write_file_atomic(const std::string& path, const std::string& data);
bool file_exists(const std::string& path);
// The folder part of a path ("" for a bare name), and a join that leaves
// absolute paths alone.
std::string dirname_of(const std::string& path);
std::string join_path(const std::string& dir, const std::string& name);
// Creates a directory and its parents; throws KB_ERR_IO on failure.
void make_dirs(const std::string& path);
// A fresh private folder $TMPDIR/<prefix>XXXXXX (or under /tmp); throws
// KB_ERR_IO when it cannot be made.
std::string make_temp_dir(const std::string& prefix);
// Removes a folder and everything in it (symbolic links are removed, never
// followed); quietly does what it can.
void remove_tree(const std::string& path);
// The last `max_bytes` of a file (a log), "..." before them when cut, without
// trailing newlines or spaces; "" when it cannot be read.
std::string tail_of_file(const std::string& path, size_t max_bytes);

}  // namespace kb

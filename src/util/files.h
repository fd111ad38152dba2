// Small file helpers with error messages that name the path.
#pragma once

#include <string>

namespace kb {

// Reads a whole file; throws kb::Error(KB_ERR_IO) naming the path and errno.
std::string read_file(const std::string& path);
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

}  // namespace kb

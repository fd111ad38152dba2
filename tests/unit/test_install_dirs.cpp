// Where kbench finds its helpers (util/install_dirs.h): the libexec folders
// seen from the binary that holds kbench, and the Python programs' folder
// ($KBENCH_PROGRAMS_DIR, an installed copy, the source tree). The installed
// layouts themselves (a prefix, a wheel) are checked by tests/install and
// tests/pip, which install kbench and ask `kbench info --json` where its
// helpers are.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <string>

#include "support/temp_dir.h"
#include "util/files.h"
#include "util/install_dirs.h"

using namespace kb;

namespace {

std::string this_binary_dir() {
    char buf[PATH_MAX];
    ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return "";
    buf[n] = '\0';
    return dirname_of(buf);
}

struct Env {
    std::string name;
    Env(const char* n, const std::string& v) : name(n) { ::setenv(n, v.c_str(), 1); }
    ~Env() { ::unsetenv(name.c_str()); }
};

const std::string kSourcePrograms = std::string(KB_SOURCE_DIR) + "/python/kbench_programs";

}  // namespace

TEST(InstallDirs, LibexecFoldersStartBesideTheBinaryThatHoldsKbench) {
    std::vector<std::string> dirs = libexec_dirs();
    ASSERT_FALSE(dirs.empty());
    EXPECT_EQ(dirs[0], this_binary_dir());
    EXPECT_NE(std::find(dirs.begin(), dirs.end(), join_path(this_binary_dir(), "../libexec")), dirs.end());
    for (size_t i = 0; i < dirs.size(); ++i)
        for (size_t j = i + 1; j < dirs.size(); ++j) EXPECT_NE(dirs[i], dirs[j]) << "listed twice";
}

TEST(InstallDirs, ProgramsComeFromTheSourceTreeOfAnUninstalledBuild) {
    ::unsetenv("KBENCH_PROGRAMS_DIR");
    EXPECT_EQ(programs_dir("kbench_importer.py"), kSourcePrograms);
    EXPECT_EQ(programs_dir("kbench_program_worker.py"), kSourcePrograms);
}

TEST(InstallDirs, TheEnvironmentNamesAnotherProgramsFolder) {
    test::TempDir dir("kb_programs");
    std::ofstream(dir.path() + "/kbench_importer.py") << "# stand-in\n";
    Env e("KBENCH_PROGRAMS_DIR", dir.path());
    EXPECT_EQ(programs_dir("kbench_importer.py"), dir.path());
    // A folder that lacks the file asked for is passed over, not trusted.
    EXPECT_EQ(programs_dir("kbench_program_worker.py"), kSourcePrograms);
}

TEST(InstallDirs, AFileFoundNowhereListsEveryPlaceLooked) {
    test::TempDir dir("kb_programs_empty");
    Env e("KBENCH_PROGRAMS_DIR", dir.path());
    std::string looked;
    EXPECT_EQ(programs_dir("no_such_helper.py", &looked), "");
    EXPECT_NE(looked.find(dir.path()), std::string::npos) << looked;
    EXPECT_NE(looked.find(kSourcePrograms), std::string::npos) << looked;
    EXPECT_NE(looked.find(join_path(this_binary_dir(), "kbench/python")), std::string::npos) << looked;
}

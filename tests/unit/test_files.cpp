// The small file helpers of util/files.h shared by the compiler, the worker
// host and the CLI: removing a folder tree and reading the tail of a log.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "support/temp_dir.h"
#include "util/files.h"

using namespace kb;

TEST(Files, RemoveTreeRemovesNestedFoldersAndLeavesLinkTargets) {
    test::TempDir keep, doomed;
    std::string kept = keep.write("kept.txt", "stays");
    doomed.write("a/b/c.txt", "x");
    doomed.write("top.txt", "y");
    ASSERT_EQ(::symlink(keep.path().c_str(), (doomed.path() + "/link").c_str()), 0);
    remove_tree(doomed.path());
    EXPECT_FALSE(file_exists(doomed.path()));
    EXPECT_TRUE(file_exists(kept));  // a link is removed, never followed
}

TEST(Files, TailOfFileKeepsTheEndWithoutTrailingBlanks) {
    test::TempDir dir;
    std::string log = dir.write("stderr.log", "first line\nsecond line\nlast line\n \n");
    EXPECT_EQ(tail_of_file(log, 1000), "first line\nsecond line\nlast line");
    EXPECT_EQ(tail_of_file(log, 13), "...\nlast line");
    EXPECT_EQ(tail_of_file(log, 12), "...last line");
    EXPECT_EQ(tail_of_file(dir.path() + "/missing.log", 100), "");
}

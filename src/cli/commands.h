// Subcommands that live in their own files (main.cpp dispatches to them).
// Each takes the arguments after the program name (argv[0] is the command)
// and returns the process's exit status: 0 ok, 1 a failing finding or
// invalid input, 2 a usage error.
#pragma once

namespace kb::cli {

int cmd_extract(int argc, char** argv);  // cmd_extract.cpp
int cmd_report(int argc, char** argv);   // cmd_report.cpp

}  // namespace kb::cli

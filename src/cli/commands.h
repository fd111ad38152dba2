// The kbench tool's subcommands, one per cmd_*.cpp (cli/cli.h says how to
// add one).
#pragma once

#include <vector>

#include "cli/cli.h"

namespace kb::cli {

// Subcommands with options of their own: each takes the arguments after the
// program name (argv[0] is the command) and returns the process's exit
// status: 0 ok, 1 a failing finding or invalid input, 2 a usage error.
int cmd_extract(int argc, char** argv);  // cmd_extract.cpp
int cmd_report(int argc, char** argv);   // cmd_report.cpp
int cmd_run(int argc, char** argv);      // cmd_run.cpp
int cmd_import(int argc, char** argv);   // cmd_programs.cpp
int cmd_devices(int argc, char** argv);  // cmd_devices.cpp
int cmd_sweep(int argc, char** argv);    // cmd_sweep.cpp

// Program candidates (cmd_programs.cpp, docs/programs.md).
// A problem file (.py) given where a task is expected.
bool is_problem_file(const std::string& path);
// The task document of a problem file, made by kbench's importer; a Failure
// naming the command that says why when it cannot be made. `benchmark`:
// "kernelbench" or "tritonbench".
std::string task_from_problem(const std::string& path, const std::string& benchmark);
// Runs kbench's importer (kbench_importer.py) with `args`; its stdout into
// *out when given, else the terminal's. Returns its exit status.
int run_importer(const std::vector<std::string>& args, std::string* out, bool json = false);
int cmd_audit(int argc, char** argv);    // cmd_audit.cpp
// The "program" section of a score's result, as lines under the score's.
void print_program(const Json& result);

extern const Command kInfoCommand;
extern const Command kValidateCommand;
extern const Command kCompileCommand;
extern const Command kScoreCommand;
extern const Command kSuiteCommand;

// Every command, in the order `kbench --help` lists them (commands.cpp).
const std::vector<const Command*>& commands();
// The command of that name, or nullptr.
const Command* find_command(const std::string& name);

}  // namespace kb::cli

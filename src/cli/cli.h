// The kbench tool's shared pieces: parsed options, the command table's entry
// type, errors and exit codes, and helpers every subcommand uses. The tool is
// a client of the public C API (kbench.h), like any program that embeds
// kbench; it uses nothing else of the library but its JSON type.
//
// One subcommand per file (cmd_*.cpp); the table in commands.cpp lists them.
// Adding a subcommand, one of two ways:
//  - on the shared options: write cmd_NAME.cpp with
//    `extern const Command kNameCommand = {...}` and `run`, declare it in
//    commands.h, add it to the table, and add any option it needs to the
//    option table in options.cpp;
//  - with options of its own (extract, report): write
//    `int cmd_NAME(int argc, char** argv)` (argv[0] is the command; it prints
//    its own --help and --json errors and returns 0, 1 or 2), declare it in
//    commands.h and add a table entry whose `run_raw` is it.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "kbench.h"
#include "util/json.h"

namespace kb::cli {

// Exit codes (README.md, `kbench --help`).
enum ExitCode {
    kExitOk = 0,      // done, and every verdict asked for is pass (or as declared, for suite)
    kExitFailed = 1,  // a failing verdict, invalid input (task, candidate, path), or an error
    kExitUsage = 2,   // the command line itself is wrong
};

// A wrong command line: exit 2, with a pointer to the command's --help.
struct BadUsage : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Something the command could not do (a missing file, an invalid task, no
// device for a command that needs one): exit 1. `status` names the kind,
// as kb_status_string does ("i/o error", "task invalid", "no device", ...).
struct Failure : std::runtime_error {
    Failure(std::string status_, const std::string& message) : std::runtime_error(message), status(std::move(status_)) {}
    std::string status;
};

// An option of the tool: its name ("--seed"), the placeholder of its value
// ("" for a switch) and one line of help.
struct OptionInfo {
    const char* name;
    const char* value;
    const char* help;
};
// Every option, in the order --help lists them (options.cpp).
const std::vector<OptionInfo>& all_options();
const OptionInfo* find_option(const std::string& name);

struct Command;

// The command line, parsed: the command, its positional arguments and the
// options given (a switch maps to "").
struct Args {
    std::string command;
    std::vector<std::string> positional;
    std::map<std::string, std::string> options;
    bool help = false;
    bool version = false;  // --version

    bool has(const std::string& name) const { return options.count(name) != 0; }
    bool json() const { return has("--json"); }
    std::string value(const std::string& name, const std::string& fallback = "") const;
    // The value as a number; a BadUsage naming the option when it is not one.
    double number(const std::string& name, double fallback) const;
    uint64_t unsigned_number(const std::string& name, uint64_t fallback) const;
};

// Parses argv. Options may come before or after the command. Throws
// BadUsage for an unknown option or a missing value; whether an option
// applies to the command is checked by check_options.
Args parse_args(int argc, char** argv);
// A BadUsage when an option given does not apply to `cmd`.
void check_options(const Args& a, const Command& cmd);

struct Command {
    const char* name;
    const char* synopsis;     // "score TASK CANDIDATE"
    const char* summary;      // one line, for `kbench --help`
    const char* description;  // what it does, its output and exit codes, for `kbench NAME --help`
    std::vector<std::string> options;  // the options it takes
    const char* examples;     // one or more example command lines, with a comment each
    int (*run)(const Args&);
    // A command that parses its own arguments (run is null): gets them with
    // the command first, and answers --help itself.
    int (*run_raw)(int argc, char** argv) = nullptr;
};

// `kbench --help` and `kbench NAME --help`.
std::string tool_help();
std::string command_help(const Command& cmd);

// Owns a kb_* handle and releases it with its destroy function.
template <class T, void (*Destroy)(T*)>
struct Handle {
    T* p = nullptr;
    Handle() = default;
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    ~Handle() { Destroy(p); }
    T** out() { return &p; }
    T* get() const { return p; }
};
using ContextHandle = Handle<kb_context, kb_context_destroy>;
using TaskHandle = Handle<kb_task, kb_task_destroy>;
using KernelHandle = Handle<kb_kernel, kb_kernel_destroy>;
using ResultHandle = Handle<kb_result, kb_result_destroy>;

// "status: detail" of the last failing call on this thread.
std::string error_text(kb_status s);
// Throws Failure(kb_status_string(s), kb_last_error()).
[[noreturn]] void fail_with(kb_status s);

// A context on the device when there is one (and --no-device was not given),
// else a compile-only one. `no_device_reason` is empty when there is a device.
struct OpenedContext {
    ContextHandle ctx;
    bool device = false;
    std::string no_device_reason;  // short: "no CUDA driver", "--no-device", ...
};
void open_context(const Args& a, OpenedContext& out);
// Loads a task file (checked with require_file first).
void load_task(const std::string& path, TaskHandle& task);

// The one-line notice that nothing will run: "kbench: no CUDA device (why):
// WHAT", on stderr, so that stdout (and --json) stays clean.
void say_no_device(const std::string& why, const std::string& what);

// A Failure when `path` does not name a readable file: missing, a directory
// (with "did you mean DIR/<hint>?" when that file exists there), or unreadable.
void require_file(const std::string& path, const std::string& what, const std::string& hint_in_dir = "");

// The folders under `root` (itself included) that hold a task.json, sorted.
// A task's folder is not searched further (its candidates/ may hold JSON
// documents of their own): tasks/<family>/<task>/.
std::vector<std::string> find_task_dirs(const std::string& root);
// Task files from command-line arguments: a file stays as it is, a folder
// gives every task under it. A Failure when a folder holds no task.
std::vector<std::string> expand_task_args(const std::vector<std::string>& args);
// The subfolders (dirs) or files of `dir`, sorted, without hidden entries.
std::vector<std::string> list_dir(const std::string& dir, bool dirs);

// The candidate for kb_compile/kb_score from a path and --launch.
kb_candidate candidate_for(const std::string& path, const Args& a);
kb_score_options score_options(const Args& a);

// JSON from the library, and JSON printed by the tool: always valid (bytes
// that are not UTF-8 are replaced, never a reason to fail).
Json parse(const char* text);
void print_json(const Json& j);
// The error document --json prints for a Failure or a BadUsage.
Json error_json(const std::string& kind, const std::string& status, const std::string& message);

}  // namespace kb::cli

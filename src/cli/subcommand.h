// The subcommands that parse their own arguments (run, report, extract,
// devices, sweep) share one entry shape: --help anywhere prints the usage,
// --json anywhere makes every error one JSON line on stdout (also when the
// arguments themselves are wrong), a usage error exits 2 and any other
// failure 1, each with a message that names the command.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "evaluate/candidates.h"

namespace kb::cli {

// Thrown by a subcommand's argument parser (or its body) for a wrong command line.
struct UsageError {
    std::string msg;
};

struct Subcommand {
    const char* name;   // "run"
    const char* usage;  // the --help text, also printed after a usage error
};

// Reports an error and returns `status`. With `json`: the tool's error
// document (error_json: {"error": {"kind", "status", "message"}}, kind and
// status "usage" for a usage error, "failure" and "failed" otherwise; a bad
// file's lines in "errors": [{"line", "message"}]) on one stdout line. Otherwise "kbench
// NAME: msg" on stderr, then the line errors, then for a usage error
// (status 2) the usage text.
int report_error(const Subcommand& c, bool json, int status, const std::string& msg,
                 const std::vector<evaluate::LineError>& lines = {});

// Runs `body(json)` (which parses and does the work) under that shape.
int run_subcommand(const Subcommand& c, int argc, char** argv, const std::function<int(bool json)>& body);

}  // namespace kb::cli

// The tool's options and help text: one table of options, parsed once for
// every command; each command lists the ones it takes.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cli/cli.h"
#include "cli/commands.h"

namespace kb::cli {

const std::vector<OptionInfo>& all_options() {
    static const std::vector<OptionInfo> options = {
        {"--json", "", "print the result as JSON on stdout (also errors: {\"error\": {...}})"},
        {"--device", "N", "CUDA device ordinal (default 0)"},
        {"--no-device", "", "validate and compile only, even where a GPU is present"},
        {"--arch", "sm_XY", "compile for this target instead of the device's"},
        {"--ptx", "", "emit PTX instead of a cubin"},
        {"--no-nvcc", "", "never fall back to nvcc when NVRTC rejects the code"},
        {"--in-process", "", "run candidates in this process (trusted kernels only)"},
        {"--seed", "N", "seed of the correctness inputs"},
        {"--runs", "N", "correctness runs per case (>1 checks determinism)"},
        {"--budget-ms", "MS", "timing budget (default 100)"},
        {"--hot", "", "time back-to-back launches (CUDA graph) instead of cold, L2-flushed runs"},
        {"--skip-timing", "", "correctness only"},
        {"--no-recheck", "", "skip the recheck on fresh inputs from a secret seed"},
        {"--launch", "JSON", "the candidate's launch plan ({\"launch\":[...]}), overriding the task's default"},
        {"--oracle", "", "also run each reference on the CPU emulator on its small cases against the task's float64 oracle"},
        {"--oracles", "PATH", "the oracle library (default: libkbench_oracles.so beside kbench)"},
        {"--protocol", "P", "program candidates: strict (default) or kernelbench (docs/programs.md)"},
        {"--torch-compute", "R", "program candidates: allow, report or forbid torch compute (default: the task's)"},
    };
    return options;
}

const OptionInfo* find_option(const std::string& name) {
    for (const OptionInfo& o : all_options())
        if (name == o.name) return &o;
    return nullptr;
}

std::string Args::value(const std::string& name, const std::string& fallback) const {
    auto it = options.find(name);
    return it == options.end() ? fallback : it->second;
}

double Args::number(const std::string& name, double fallback) const {
    auto it = options.find(name);
    if (it == options.end()) return fallback;
    const std::string& s = it->second;
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (s.empty() || *end) throw BadUsage(name + " expects a number, got '" + s + "'");
    return v;
}

uint64_t Args::unsigned_number(const std::string& name, uint64_t fallback) const {
    auto it = options.find(name);
    if (it == options.end()) return fallback;
    const std::string& s = it->second;
    char* end = nullptr;
    unsigned long long v = std::strtoull(s.c_str(), &end, 0);
    if (s.empty() || *end || s[0] == '-') throw BadUsage(name + " expects a non-negative integer, got '" + s + "'");
    return v;
}

Args parse_args(int argc, char** argv) {
    Args a;
    for (int i = 1; i < argc; ++i) {
        std::string s = argv[i];
        if (s == "-h" || s == "--help") {
            a.help = true;
        } else if (s == "--version") {
            a.version = true;
        } else if (s.size() > 1 && s[0] == '-') {
            std::string name = s, value;
            size_t eq = s.find('=');
            bool inline_value = s.compare(0, 2, "--") == 0 && eq != std::string::npos;
            if (inline_value) {
                name = s.substr(0, eq);
                value = s.substr(eq + 1);
            }
            const OptionInfo* o = find_option(name);
            if (!o) throw BadUsage("unknown option '" + name + "'");
            if (*o->value) {
                if (!inline_value) {
                    if (i + 1 >= argc) throw BadUsage(name + " needs a value (" + o->value + ")");
                    value = argv[++i];
                }
            } else if (inline_value) {
                throw BadUsage(name + " takes no value");
            }
            a.options[name] = value;
        } else if (a.command.empty()) {
            a.command = s;
        } else {
            a.positional.push_back(s);
        }
    }
    return a;
}

void check_options(const Args& a, const Command& cmd) {
    for (const auto& kv : a.options) {
        bool ok = false;
        for (const std::string& o : cmd.options) ok = ok || o == kv.first;
        if (!ok)
            throw BadUsage("option " + kv.first + " does not apply to '" + cmd.name + "' (kbench " + cmd.name +
                             " --help lists its options)");
    }
}

namespace {

const char* kExitCodes =
    "exit codes:\n"
    "  0  done: every verdict is pass (suite: every verdict is the one the candidate declares)\n"
    "  1  a failing verdict, invalid input (a task, a candidate, a missing file or an empty suite),\n"
    "     or a command that could not be carried out (score without a GPU)\n"
    "  2  usage: an unknown command or option, a missing argument\n";

std::string option_line(const OptionInfo& o) {
    std::string left = std::string("  ") + o.name + (*o.value ? std::string(" ") + o.value : "");
    if (left.size() < 22) left.resize(22, ' ');
    else left += "  ";
    return left + o.help + "\n";
}

}  // namespace

std::string tool_help() {
    std::string h = "usage: kbench <command> [options] ...\n\ncommands:\n";
    for (const Command* c : commands()) {
        std::string left = std::string("  ") + c->synopsis;
        if (left.size() < 34) left.resize(34, ' ');
        else left += "  ";
        h += left + c->summary + "\n";
    }
    h += "\n`kbench <command> --help` shows a command's options and an example.\n"
         "Every command takes --json: one JSON document on stdout, errors included.\n"
         "Notices (no GPU, ...) go to stderr. `kbench --version` prints the version.\n\n";
    h += kExitCodes;
    return h;
}

std::string command_help(const Command& cmd) {
    std::string h = std::string("usage: kbench ") + cmd.synopsis + " [options]\n\n" + cmd.description + "\n";
    if (!cmd.options.empty()) {
        h += "\noptions:\n";
        for (const std::string& name : cmd.options)
            if (const OptionInfo* o = find_option(name)) h += option_line(*o);
    }
    h += std::string("\nexamples:\n") + cmd.examples;
    h += std::string("\n") + kExitCodes;
    return h;
}

}  // namespace kb::cli

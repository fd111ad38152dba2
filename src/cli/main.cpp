// kbench — the command-line tool: parses the command line, finds the
// subcommand in the table (commands.cpp) and runs it. Errors become one
// message on stderr, or with --json one JSON document on stdout, and the
// exit codes of cli/cli.h.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/commands.h"

using namespace kb::cli;

namespace {

// A command name one edit away, for "did you mean".
const Command* closest_command(const std::string& name) {
    auto distance = [](const std::string& a, const std::string& b) {
        std::vector<size_t> row(b.size() + 1);
        for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
        for (size_t i = 1; i <= a.size(); ++i) {
            size_t diag = row[0];
            row[0] = i;
            for (size_t j = 1; j <= b.size(); ++j) {
                size_t up = row[j];
                row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
                diag = up;
            }
        }
        return row[b.size()];
    };
    for (const Command* c : commands())
        if (distance(name, c->name) <= 2) return c;
    return nullptr;
}

int usage_error(const std::string& msg, const Command* cmd, bool json) {
    std::string hint = cmd ? std::string("kbench ") + cmd->name + " --help" : "kbench --help";
    if (json) print_json(error_json("usage", "", msg + " (" + hint + ")"));
    else std::fprintf(stderr, "kbench: %s\nrun '%s' for usage\n", msg.c_str(), hint.c_str());
    return kExitUsage;
}

// The position of the command in argv (the first word that is neither an
// option nor an option's value), or 0 when there is none.
int command_index(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        std::string s = argv[i];
        if (s.size() > 1 && s[0] == '-') {
            const OptionInfo* o = find_option(s);
            if (o && *o->value) ++i;
            continue;
        }
        return i;
    }
    return 0;
}

// A command that parses its own arguments gets them all, its name first
// (options given before the command are passed on after it).
int run_raw(const Command& cmd, int argc, char** argv, int at) {
    std::vector<char*> args = {argv[at]};
    for (int i = 1; i < argc; ++i)
        if (i != at) args.push_back(argv[i]);
    args.push_back(nullptr);
    return cmd.run_raw(int(args.size()) - 1, args.data());
}

}  // namespace

int main(int argc, char** argv) {
    if (int at = command_index(argc, argv)) {
        const Command* raw = find_command(argv[at]);
        if (raw && raw->run_raw) return run_raw(*raw, argc, argv, at);
        // `kbench help extract` is `kbench extract --help`.
        if (std::string(argv[at]) == "help" && at + 1 < argc) {
            raw = find_command(argv[at + 1]);
            if (raw && raw->run_raw) {
                char help[] = "--help";
                char* args[] = {argv[at + 1], help, nullptr};
                return raw->run_raw(2, args);
            }
        }
    }
    Args a;
    try {
        a = parse_args(argc, argv);
    } catch (const BadUsage& e) {
        // --json is honoured even when the rest of the line is wrong.
        bool json = false;
        for (int i = 1; i < argc; ++i) json = json || std::string(argv[i]) == "--json";
        return usage_error(e.what(), nullptr, json);
    }
    if (a.command == "help") {  // `kbench help [COMMAND]`
        if (a.positional.empty()) {
            std::printf("%s", tool_help().c_str());
            return kExitOk;
        }
        a.command = a.positional[0];
        a.positional.clear();
        a.help = true;
    }
    if (a.version && !a.help) {
        if (a.json()) print_json(kb::Json{{"kbench_version", kb_version_string()}});
        else std::printf("kbench %s\n", kb_version_string());
        return kExitOk;
    }
    if (a.command.empty()) {
        if (a.help) {
            std::printf("%s", tool_help().c_str());
            return kExitOk;
        }
        return usage_error("no command given", nullptr, a.json());
    }
    const Command* cmd = find_command(a.command);
    if (!cmd) {
        std::string msg = "unknown command '" + a.command + "'";
        if (const Command* near = closest_command(a.command)) msg += "; did you mean '" + std::string(near->name) + "'?";
        return usage_error(msg, nullptr, a.json());
    }
    if (a.help) {
        std::printf("%s", command_help(*cmd).c_str());
        return kExitOk;
    }
    try {
        check_options(a, *cmd);
        return cmd->run(a);
    } catch (const BadUsage& e) {
        return usage_error(e.what(), cmd, a.json());
    } catch (const Failure& e) {
        if (a.json()) print_json(error_json("failure", e.status, e.what()));
        else std::fprintf(stderr, "kbench: %s\n", e.what());
        return kExitFailed;
    } catch (const std::exception& e) {
        // A bug in the tool or the library: still one clear line, still valid JSON.
        if (a.json()) print_json(error_json("internal", "internal error", e.what()));
        else std::fprintf(stderr, "kbench: internal error: %s\n", e.what());
        return kExitFailed;
    }
}

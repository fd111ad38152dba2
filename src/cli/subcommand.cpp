#include "cli/subcommand.h"

#include <cstdio>
#include <cstring>

#include "evaluate/jsonl.h"
#include "cli/cli.h"

namespace kb::cli {

int report_error(const Subcommand& c, bool json, int status, const std::string& msg,
                 const std::vector<evaluate::LineError>& lines) {
    if (json) {
        const bool usage = status == kExitUsage;
        Json j = error_json(usage ? "usage" : "failure", usage ? "usage" : "failed", msg);
        if (!lines.empty()) {
            Json l = Json::array();
            for (const auto& e : lines) l.push_back({{"line", e.line}, {"message", e.message}});
            j["error"]["errors"] = l;
        }
        std::printf("%s\n", evaluate::dump_json_line(j).c_str());
        std::fflush(stdout);
    } else {
        std::fprintf(stderr, "kbench %s: %s\n", c.name, msg.c_str());
        if (!lines.empty()) std::fprintf(stderr, "%s\n", evaluate::format_errors(lines).c_str());
        if (status == kExitUsage) std::fprintf(stderr, "\n%s", c.usage);
    }
    return status;
}

int run_subcommand(const Subcommand& c, int argc, char** argv, const std::function<int(bool json)>& body) {
    // Seen before parsing, so that a wrong command line is reported as JSON too.
    bool json = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--json") == 0) json = true;
        if (std::strcmp(argv[i], "-h") == 0 || std::strcmp(argv[i], "--help") == 0) {
            std::printf("%s", c.usage);
            return kExitOk;
        }
    }
    try {
        return body(json);
    } catch (const UsageError& u) {
        return report_error(c, json, kExitUsage, u.msg);
    } catch (const Failure& f) {
        if (!json) return report_error(c, json, kExitFailed, f.what());
        std::printf("%s\n", evaluate::dump_json_line(error_json("failure", f.status, f.what())).c_str());
        std::fflush(stdout);
        return kExitFailed;
    } catch (const std::exception& e) {
        return report_error(c, json, kExitFailed, e.what());
    }
}

}  // namespace kb::cli

// The command table: the one place a new subcommand is added (see cli/cli.h).
#include "cli/commands.h"

namespace kb::cli {

namespace {

// The batch commands parse their own options (cmd_extract.cpp, cmd_report.cpp).
const Command kExtractCommand = {
    "extract", "extract [--task TASK] FILE|-", "show the code kbench would score in a model's answer",
    "", {}, "", nullptr, cmd_extract,
};
const Command kRunCommand = {
    "run", "run --candidates F --out F", "score a candidates file into a results file (resumable, over GPUs)",
    "", {}, "", nullptr, cmd_run,
};
const Command kReportCommand = {
    "report", "report [--by G] RESULTS.jsonl", "accuracy, fast_p, speedup, pass@k of a batch run's results",
    "", {}, "", nullptr, cmd_report,
};
// Program candidates' problems (cmd_programs.cpp, docs/programs.md).
const Command kImportCommand = {
    "import", "import kernelbench|tritonbench PATH", "KernelBench/TritonBench problems as tasks whose reference is Python",
    "", {}, "", nullptr, cmd_import,
};

// Devices and sizes (cmd_devices.cpp, cmd_sweep.cpp; docs/devices.md, docs/sweep.md).
const Command kDevicesCommand = {
    "devices", "devices [--json] [--refresh]", "each GPU's facts and measured ceilings (copy GB/s, cuBLAS TFLOP/s)",
    "", {}, "", nullptr, cmd_devices,
};
const Command kSweepCommand = {
    "sweep", "sweep TASK CANDIDATE --dim N=A..B[:S]", "candidate and baseline over a range of sizes: table and plot",
    "", {}, "", nullptr, cmd_sweep,
};
// Negative controls of tasks and problems (cmd_audit.cpp, docs/tasks.md).
const Command kAuditCommand = {
    "audit", "audit [--json] TASK|DIR|PROBLEM.py...", "which wrong answers (zeros, constants, the input) would pass, per case",
    "", {}, "", nullptr, cmd_audit,
};

}  // namespace

const std::vector<const Command*>& commands() {
    static const std::vector<const Command*> all = {
        &kInfoCommand, &kValidateCommand, &kCompileCommand, &kScoreCommand, &kSuiteCommand,
        &kExtractCommand, &kRunCommand, &kReportCommand, &kImportCommand, &kAuditCommand, &kDevicesCommand,
        &kSweepCommand,
    };
    return all;
}

const Command* find_command(const std::string& name) {
    for (const Command* c : commands())
        if (name == c->name) return c;
    return nullptr;
}

}  // namespace kb::cli

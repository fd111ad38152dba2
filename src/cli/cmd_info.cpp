// kbench info: the device, target and compiler kbench sees.
#include <cstdio>

#include "cli/cli.h"
#include "cli/commands.h"
#include "ipc/confine.h"
#include "util/install_dirs.h"
#include "worker_host/program_workers.h"
#include "worker_host/worker_locate.h"

namespace kb::cli {
namespace {

// Where this kbench finds its helpers (util/install_dirs.h): null for one
// not found, so a broken install shows which is missing.
Json helpers() {
    auto found = [](auto locate) -> Json {
        try {
            std::string p = locate();
            return p.empty() ? Json(nullptr) : Json(p);
        } catch (const std::exception&) {
            return Json(nullptr);
        }
    };
    return Json{{"worker", found([] { return find_worker_executable(""); })},
                {"programs_dir", found([] { return programs_dir("kbench_importer.py"); })},
                {"program_worker", found(locate_program_worker_script)},
                {"gpu_compare_library", found(locate_gpu_compare_library)},
                {"cupti_library", found(locate_cupti_library)}};
}

int run_info(const Args& a) {
    if (!a.positional.empty()) throw BadUsage("info takes no arguments");
    OpenedContext oc;
    open_context(a, oc);
    Json j = parse(kb_context_json(oc.ctx.get()));
    j["helpers"] = helpers();
    j["sandbox"] = sandbox_info();
    if (a.json()) {
        if (!oc.device) j["no_device_reason"] = oc.no_device_reason;
        print_json(j);
        return kExitOk;
    }
    std::printf("kbench %s\n", kb_version_string());
    if (oc.device) {
        const Json& d = j["device"];
        std::printf("device      %s (%s, %d SMs, L2 %lld KiB, %.0f GB/s peak DRAM)\n",
                    d["name"].get<std::string>().c_str(), d["arch"].get<std::string>().c_str(), d["sm_count"].get<int>(),
                    (long long)(d["l2_bytes"].get<int64_t>() / 1024), d["peak_dram_gbps"].get<double>());
    } else {
        std::printf("device      none (%s): validate and compile only\n", oc.no_device_reason.c_str());
    }
    std::printf("target      %s (%s)\n", j["arch"].get<std::string>().c_str(), j["emit"].get<std::string>().c_str());
    std::printf("isolation   %s\n", j["isolation"].get<std::string>().c_str());
    std::printf("nvrtc       %s\n", j["nvrtc_version"].get<std::string>().c_str());
    std::printf("cuda home   %s\n", j["cuda_home"].get<std::string>().c_str());
    const Json& sb = j["sandbox"];
    std::printf("sandbox     %s (untrusted Python: pid %s, fs %s, net %s; seccomp: %s)\n",
                !sb["enabled"].get<bool>()           ? "off ($KBENCH_CONFINE=0)"
                : sb.value("device_workers", false) ? "on"
                                                     : "on for workers without a device; workers on a GPU unconfined: "
                                                       "no user namespace ($KBENCH_CONFINE=1 confines them anyway)",
                sb["pid"].get<std::string>().c_str(), sb["fs"].get<std::string>().c_str(),
                sb["net"].get<std::string>().c_str(), sb["seccomp"].get<std::string>().c_str());
    const Json& dir = j["helpers"]["programs_dir"];
    std::printf("programs    %s\n", dir.is_string() ? dir.get<std::string>().c_str()
                                                    : "not found (kbench import and program candidates need them)");
    return kExitOk;
}

}  // namespace

extern const Command kInfoCommand = {
    "info",
    "info",
    "show the device, architecture and compiler kbench uses",
    "Shows the CUDA device kbench would use (or why there is none), the target\n"
    "architecture, the isolation mode, NVRTC's version and the CUDA toolkit;\n"
    "with --json also where its helpers are (\"helpers\": the worker, the Python\n"
    "programs and their native libraries; null for one not found).\n"
    "Without a GPU it still succeeds: kbench validates and compiles without one.",
    {"--json", "--device", "--no-device", "--arch", "--ptx", "--no-nvcc", "--in-process"},
    "  kbench info                      # the device and compiler\n"
    "  kbench info --json | jq .arch    # the target, for scripts\n",
    run_info,
};

}  // namespace kb::cli

// kbench-worker: the process that runs untrusted kernels (or compiles
// untrusted code) for a kbench host, so that a crash or a hang costs this
// process and never the host. Started by the library, not by people:
//
//   kbench-worker --fd N --parent PID (--device ORDINAL | --no-device) [--test-hooks]
//
// It speaks the protocol of src/ipc/frame.h on descriptor N until the
// host shuts it down or goes away. docs/isolation.md describes the design.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "worker_server/worker_heap.h"
#include "worker_server/worker_server.h"

namespace {

[[noreturn]] void usage(const char* why) {
    std::fprintf(stderr,
                 "kbench-worker: %s\n"
                 "usage: kbench-worker --fd N --parent PID (--device ORDINAL | --no-device) [--test-hooks]\n"
                 "kbench starts this program itself (kb_context_options.isolation); it is not meant to be run by "
                 "hand.\n",
                 why);
    std::exit(2);
}

int number(const char* flag, const char* text) {
    char* end = nullptr;
    long v = std::strtol(text, &end, 10);
    if (!*text || *end || v < -1 || v > 1 << 30) usage((std::string(flag) + " expects a number").c_str());
    return int(v);
}

}  // namespace

int main(int argc, char** argv) {
    kb::WorkerServerOptions o;
    bool device_given = false;
    for (int i = 1; i < argc; ++i) {
        auto value = [&](const char* flag) -> const char* {
            if (i + 1 >= argc) usage((std::string(flag) + " needs a value").c_str());
            return argv[++i];
        };
        if (!std::strcmp(argv[i], "--fd")) o.fd = number("--fd", value("--fd"));
        else if (!std::strcmp(argv[i], "--parent")) o.parent = pid_t(number("--parent", value("--parent")));
        else if (!std::strcmp(argv[i], "--device")) o.device = number("--device", value("--device")), device_given = true;
        else if (!std::strcmp(argv[i], "--no-device")) o.device = -1, device_given = true;
        else if (!std::strcmp(argv[i], "--test-hooks")) o.test_hooks = true;
        else usage((std::string("unknown argument '") + argv[i] + "'").c_str());
    }
    if (o.fd < 3) usage("--fd must name the socket to the host (3 or above)");
    if (!device_given) usage("give --device ORDINAL or --no-device");
    kb::prepare_worker_process(o.fd, o.parent);
    kb::keep_worker_heap();
    try {
        kb::WorkerServer server(o);
        return server.run();
    } catch (const std::exception& e) {
        // Only start-up can get here; requests report their own errors.
        std::fprintf(stderr, "kbench-worker: %s\n", e.what());
        return 1;
    }
}

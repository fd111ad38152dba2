// A device worker's environment (src/ipc/worker_environment.h): one CUDA
// hardware queue unless asked otherwise, the host's variables kept, and a
// bad setting (of the queues or of the workers' heap) refused with the fix. And that WorkerProcess::spawn gives it
// to device workers only: a stand-in script reports what it got.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ipc/worker_environment.h"
#include "ipc/worker_process.h"
#include "util/error.h"

namespace {

// The environment of the worker for the host's device `ordinal`.
std::vector<std::string> env_of(std::vector<const char*> vars, int ordinal = 0, int* worker_ordinal = nullptr) {
    vars.push_back(nullptr);
    kb::DeviceWorkerEnvironment e = kb::device_worker_environment(vars.data(), ordinal);
    if (worker_ordinal) *worker_ordinal = e.ordinal;
    return e.env;
}

int count_of(const std::vector<std::string>& env, const std::string& prefix) {
    int n = 0;
    for (const std::string& e : env) n += e.rfind(prefix, 0) == 0;
    return n;
}

TEST(WorkerEnvironment, OneHardwareQueueByDefaultAndTheRestKept) {
    auto env = env_of({"PATH=/usr/bin", "HOME=/root", "CUDA_VISIBLE_DEVICES=1"});
    EXPECT_EQ(env, (std::vector<std::string>{"PATH=/usr/bin", "HOME=/root", "CUDA_VISIBLE_DEVICES=1",
                                             "CUDA_DEVICE_MAX_CONNECTIONS=1"}));
    env = env_of({"PATH=/usr/bin"});
    EXPECT_EQ(env, (std::vector<std::string>{"PATH=/usr/bin", "CUDA_VISIBLE_DEVICES=0", "CUDA_DEVICE_MAX_CONNECTIONS=1"}));
    // The host's own value is replaced, not doubled; a longer name is not it.
    env = env_of({"CUDA_DEVICE_MAX_CONNECTIONS=32", "CUDA_DEVICE_MAX_CONNECTIONS_X=5", "A=b"});
    EXPECT_EQ(count_of(env, "CUDA_DEVICE_MAX_CONNECTIONS="), 1);
    EXPECT_EQ(env.back(), "CUDA_DEVICE_MAX_CONNECTIONS=1");
    EXPECT_EQ(count_of(env, "CUDA_DEVICE_MAX_CONNECTIONS_X=5"), 1);
    EXPECT_EQ(count_of(env, "A=b"), 1);
}

TEST(WorkerEnvironment, TheSettingAsksForACountOrLeavesTheHostsValue) {
    auto env = env_of({"KBENCH_WORKER_CUDA_CONNECTIONS=8", "CUDA_DEVICE_MAX_CONNECTIONS=2"});
    EXPECT_EQ(env.back(), "CUDA_DEVICE_MAX_CONNECTIONS=8");
    EXPECT_EQ(count_of(env, "CUDA_DEVICE_MAX_CONNECTIONS="), 1);
    env = env_of({"KBENCH_WORKER_CUDA_CONNECTIONS=inherit", "CUDA_DEVICE_MAX_CONNECTIONS=2"});
    EXPECT_EQ(env, (std::vector<std::string>{"KBENCH_WORKER_CUDA_CONNECTIONS=inherit", "CUDA_DEVICE_MAX_CONNECTIONS=2",
                                             "CUDA_VISIBLE_DEVICES=0"}));
    env = env_of({"KBENCH_WORKER_CUDA_CONNECTIONS=inherit"});
    EXPECT_EQ(count_of(env, "CUDA_DEVICE_MAX_CONNECTIONS="), 0);
    env = env_of({"KBENCH_WORKER_CUDA_CONNECTIONS="});  // empty: as if unset
    EXPECT_EQ(env.back(), "CUDA_DEVICE_MAX_CONNECTIONS=1");
}

TEST(WorkerEnvironment, EachWorkerSeesItsOwnGpuAsDeviceZero) {
    int ordinal = -1;
    // No list: the host's device N is the machine's N.
    auto env = env_of({"A=b"}, 1, &ordinal);
    EXPECT_EQ(ordinal, 0);
    EXPECT_EQ(count_of(env, "CUDA_VISIBLE_DEVICES=1"), 1);
    EXPECT_EQ(count_of(env, "CUDA_VISIBLE_DEVICES="), 1);
    // A list: the host's N-th entry, spaces dropped; UUIDs and MIG names pass as they are.
    env = env_of({"CUDA_VISIBLE_DEVICES=3, 5,7"}, 1, &ordinal);
    EXPECT_EQ(ordinal, 0);
    EXPECT_EQ(env.front(), "CUDA_VISIBLE_DEVICES=5");
    EXPECT_EQ(count_of(env, "CUDA_VISIBLE_DEVICES="), 1);
    env = env_of({"CUDA_VISIBLE_DEVICES=GPU-8f3a2c1e-0b9d-4e7a-9c51-2d6b7e8f9a01,MIG-1234"}, 1, &ordinal);
    EXPECT_EQ(env.front(), "CUDA_VISIBLE_DEVICES=MIG-1234");
    env = env_of({"CUDA_VISIBLE_DEVICES=GPU-8f3a2c1e-0b9d-4e7a-9c51-2d6b7e8f9a01,MIG-1234"}, 0, &ordinal);
    EXPECT_EQ(env.front(), "CUDA_VISIBLE_DEVICES=GPU-8f3a2c1e-0b9d-4e7a-9c51-2d6b7e8f9a01");
    // A list that does not reach the ordinal (or an empty entry there): the
    // host's view and ordinal, so CUDA's own error names the device.
    env = env_of({"CUDA_VISIBLE_DEVICES=2"}, 1, &ordinal);
    EXPECT_EQ(ordinal, 1);
    EXPECT_EQ(env.front(), "CUDA_VISIBLE_DEVICES=2");
    env = env_of({"CUDA_VISIBLE_DEVICES=2,,4"}, 1, &ordinal);
    EXPECT_EQ(ordinal, 1);
    EXPECT_EQ(env.front(), "CUDA_VISIBLE_DEVICES=2,,4");
    // all: every GPU the host sees, the host's ordinal.
    env = env_of({"KBENCH_WORKER_DEVICES=all", "CUDA_VISIBLE_DEVICES=3,5"}, 1, &ordinal);
    EXPECT_EQ(ordinal, 1);
    EXPECT_EQ(count_of(env, "CUDA_VISIBLE_DEVICES=3,5"), 1);
    env = env_of({"KBENCH_WORKER_DEVICES=all"}, 1, &ordinal);
    EXPECT_EQ(ordinal, 1);
    EXPECT_EQ(count_of(env, "CUDA_VISIBLE_DEVICES="), 0);
    env = env_of({"KBENCH_WORKER_DEVICES=own", "CUDA_VISIBLE_DEVICES=3,5"}, 1, &ordinal);
    EXPECT_EQ(ordinal, 0);
    EXPECT_EQ(count_of(env, "CUDA_VISIBLE_DEVICES=5"), 1);
}

TEST(WorkerEnvironment, ABadSettingIsRefusedWithTheFix) {
    for (const char* bad : {"KBENCH_WORKER_CUDA_CONNECTIONS=0", "KBENCH_WORKER_CUDA_CONNECTIONS=33",
                            "KBENCH_WORKER_CUDA_CONNECTIONS=one", "KBENCH_WORKER_CUDA_CONNECTIONS=4x"}) {
        try {
            env_of({bad});
            ADD_FAILURE() << bad << " was accepted";
        } catch (const kb::Error& e) {
            EXPECT_EQ(e.status(), KB_ERR_INVALID_ARGUMENT) << bad;
            const std::string m = e.what();
            EXPECT_NE(m.find("KBENCH_WORKER_CUDA_CONNECTIONS"), std::string::npos) << m;
            EXPECT_NE(m.find("from 1 to 32"), std::string::npos) << m;
            EXPECT_NE(m.find("'inherit'"), std::string::npos) << m;
        }
    }
    try {
        env_of({"KBENCH_WORKER_DEVICES=mine"});
        ADD_FAILURE() << "KBENCH_WORKER_DEVICES=mine was accepted";
    } catch (const kb::Error& e) {
        EXPECT_EQ(e.status(), KB_ERR_INVALID_ARGUMENT);
        const std::string m = e.what();
        EXPECT_NE(m.find("'mine'"), std::string::npos) << m;
        EXPECT_NE(m.find("'own'"), std::string::npos) << m;
        EXPECT_NE(m.find("'all'"), std::string::npos) << m;
    }
}

TEST(WorkerEnvironment, TheHeapSettingIsKeepOrRelease) {
    auto check = [](std::vector<const char*> vars) {
        vars.push_back(nullptr);
        kb::check_worker_heap_setting(vars.data());
    };
    EXPECT_NO_THROW(check({}));
    EXPECT_NO_THROW(check({"KBENCH_WORKER_HEAP=keep"}));
    EXPECT_NO_THROW(check({"KBENCH_WORKER_HEAP=release"}));
    EXPECT_NO_THROW(check({"KBENCH_WORKER_HEAP="}));  // empty: as if unset
    EXPECT_NO_THROW(check({"KBENCH_WORKER_HEAPX=1"}));
    for (const char* bad : {"KBENCH_WORKER_HEAP=Keep", "KBENCH_WORKER_HEAP=1", "KBENCH_WORKER_HEAP=released"}) {
        try {
            check({bad});
            ADD_FAILURE() << bad << " was accepted";
        } catch (const kb::Error& e) {
            EXPECT_EQ(e.status(), KB_ERR_INVALID_ARGUMENT) << bad;
            const std::string m = e.what();
            EXPECT_NE(m.find("KBENCH_WORKER_HEAP"), std::string::npos) << m;
            EXPECT_NE(m.find("'keep'"), std::string::npos) << m;
            EXPECT_NE(m.find("'release'"), std::string::npos) << m;
        }
    }
}

// What a process started by WorkerProcess::spawn finds in its environment:
// a script stands in for kbench-worker and writes the variable to a file.
std::string spawned_value(int device, bool as_command,
                          const std::string& expr = "${CUDA_DEVICE_MAX_CONNECTIONS-unset}") {
    char dir[] = "/tmp/kb_worker_env_XXXXXX";
    if (!::mkdtemp(dir)) return "mkdtemp failed";
    const std::string script = std::string(dir) + "/worker.sh", out = std::string(dir) + "/seen";
    std::ofstream(script) << "#!/bin/sh\nprintf '%s' \"" << expr << "\" > " << out << ".tmp\nmv "
                          << out << ".tmp " << out << "\n";
    ::chmod(script.c_str(), 0755);
    kb::SpawnOptions o;
    o.device = device;
    if (as_command) o.command = {"/bin/sh", script};
    else o.executable = script;
    auto w = kb::WorkerProcess::spawn(o);
    std::string seen = "nothing written";
    for (int i = 0; i < 500; ++i) {
        std::ifstream f(out);
        if (f) {
            std::stringstream ss;
            ss << f.rdbuf();
            seen = ss.str();
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    w->reap(5.0);
    ::unlink(out.c_str());
    ::unlink(script.c_str());
    ::rmdir(dir);
    return seen;
}

TEST(WorkerEnvironment, SpawnGivesItToDeviceWorkersOnly) {
    ASSERT_EQ(::unsetenv("KBENCH_WORKER_CUDA_CONNECTIONS"), 0);
    ASSERT_EQ(::setenv("CUDA_DEVICE_MAX_CONNECTIONS", "7", 1), 0);
    EXPECT_EQ(spawned_value(0, false), "1");   // a device worker
    EXPECT_EQ(spawned_value(-1, false), "7");  // a compile worker: the host's
    EXPECT_EQ(spawned_value(0, true), "7");    // a program worker (another command): the host's
    ::unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
    EXPECT_EQ(spawned_value(-1, false), "unset");
    // The device worker for the host's GPU 1 sees that GPU alone, as its 0.
    ASSERT_EQ(::setenv("CUDA_VISIBLE_DEVICES", "4,6", 1), 0);
    // ($5 and $6: --device and its value, after --fd N --parent PID.)
    EXPECT_EQ(spawned_value(1, false, "${CUDA_VISIBLE_DEVICES-unset} $5 $6"), "6 --device 0");
    EXPECT_EQ(spawned_value(1, true, "${CUDA_VISIBLE_DEVICES-unset} $5 $6"), "4,6 --device 1");  // a program worker
    EXPECT_EQ(spawned_value(-1, false, "${CUDA_VISIBLE_DEVICES-unset}"), "4,6");
    ::unsetenv("CUDA_VISIBLE_DEVICES");
    // A bad setting fails the start, naming it; nothing is left running.
    ASSERT_EQ(::setenv("KBENCH_WORKER_CUDA_CONNECTIONS", "lots", 1), 0);
    kb::SpawnOptions o;
    o.device = 0;
    o.executable = "/bin/true";
    try {
        kb::WorkerProcess::spawn(o);
        ADD_FAILURE() << "a bad setting started a worker";
    } catch (const kb::Error& e) {
        EXPECT_EQ(e.status(), KB_ERR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(e.what()).find("'lots'"), std::string::npos) << e.what();
    }
    ::unsetenv("KBENCH_WORKER_CUDA_CONNECTIONS");
    // A bad heap setting fails every worker's start, a compile worker's too.
    ASSERT_EQ(::setenv("KBENCH_WORKER_HEAP", "most", 1), 0);
    o.device = -1;
    try {
        kb::WorkerProcess::spawn(o);
        ADD_FAILURE() << "a bad heap setting started a worker";
    } catch (const kb::Error& e) {
        EXPECT_EQ(e.status(), KB_ERR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(e.what()).find("'most'"), std::string::npos) << e.what();
    }
    ::unsetenv("KBENCH_WORKER_HEAP");
}

}  // namespace

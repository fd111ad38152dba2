#include "emulate/oracle_plugin.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"
#include "util/files.h"

namespace kb::emulate {
namespace {

template <class F>
void resolve(void* handle, const char* name, F& out, const std::string& path) {
    out = reinterpret_cast<F>(dlsym(handle, name));
    if (!out)
        fail(KB_ERR_IO, path + " is not an oracle library: it lacks " + name +
                            " (the entry points are declared in src/emulate/oracle_abi.h)");
}

std::vector<kb_oracle_dim> to_dims(const std::map<std::string, int64_t>& dims) {
    std::vector<kb_oracle_dim> out;
    for (const auto& kv : dims) out.push_back({kv.first.c_str(), kv.second});
    return out;
}

}  // namespace

OraclePlugin::OraclePlugin(const std::string& path) : path_(path) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0)
        fail(KB_ERR_NOT_FOUND, "no oracle library at " + path +
                                   "; build kbench with its tests (libkbench_oracles.so is built beside the kbench "
                                   "executable) or pass --oracles PATH");
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) fail(KB_ERR_IO, "cannot load the oracle library " + path + ": " + dlerror());
    int (*version)(void) = nullptr;
    resolve(handle_, "kb_oracle_abi_version", version, path);
    if (version() != KB_ORACLE_ABI_VERSION)
        fail(KB_ERR_IO, path + " implements oracle ABI version " + std::to_string(version()) + ", kbench speaks " +
                            std::to_string(KB_ORACLE_ABI_VERSION) + "; rebuild it against this kbench");
    resolve(handle_, "kb_oracle_has", has_, path);
    resolve(handle_, "kb_oracle_compute", compute_, path);
    resolve(handle_, "kb_oracle_result_error", error_, path);
    resolve(handle_, "kb_oracle_result_count", count_, path);
    resolve(handle_, "kb_oracle_result_get", get_, path);
    resolve(handle_, "kb_oracle_result_free", free_, path);
    resolve(handle_, "kb_oracle_bound", bound_, path);
}

OraclePlugin::~OraclePlugin() {
    if (handle_) dlclose(handle_);
}

bool OraclePlugin::has(const std::string& task) const { return has_(task.c_str()) != 0; }

std::map<std::string, std::vector<double>> OraclePlugin::compute(
    const std::string& task, const std::map<std::string, int64_t>& dims,
    const std::map<std::string, std::vector<double>>& inputs) const {
    std::vector<kb_oracle_dim> d = to_dims(dims);
    std::vector<kb_oracle_tensor> in;
    for (const auto& kv : inputs) in.push_back({kv.first.c_str(), kv.second.data(), kv.second.size()});
    kb_oracle_result* r = compute_(task.c_str(), d.data(), d.size(), in.data(), in.size());
    std::map<std::string, std::vector<double>> out;
    std::string error;
    if (const char* e = error_(r)) error = e;
    else
        for (size_t i = 0; i < count_(r); ++i) {
            kb_oracle_tensor t = get_(r, i);
            out[t.name].assign(t.data, t.data + t.count);
        }
    free_(r);
    if (!error.empty()) fail(KB_ERR_REFERENCE_FAILED, "the oracle of " + task + " failed: " + error);
    return out;
}

std::pair<double, double> OraclePlugin::bound(const std::string& task, const std::string& output,
                                              const std::map<std::string, int64_t>& dims) const {
    std::vector<kb_oracle_dim> d = to_dims(dims);
    double atol = 0, rtol = 0;
    char err[512] = {0};
    if (bound_(task.c_str(), output.c_str(), d.data(), d.size(), &atol, &rtol, err, sizeof err) != 0)
        fail(KB_ERR_REFERENCE_FAILED, "the oracle of " + task + " has no bound for '" + output + "': " + err);
    return {atol, rtol};
}

std::string OraclePlugin::default_path() {
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return "";
    buf[n] = '\0';
    std::string p = join_path(dirname_of(buf), "libkbench_oracles.so");
    struct stat st;
    return stat(p.c_str(), &st) == 0 ? p : "";
}

}  // namespace kb::emulate

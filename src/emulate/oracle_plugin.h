// An oracle library (src/emulate/oracle_abi.h) loaded with dlopen: the
// float64 implementations `kbench validate --oracle` checks references
// against.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "emulate/oracle_abi.h"

namespace kb::emulate {

class OraclePlugin {
public:
    // Loads the library at `path`. Throws kb::Error(KB_ERR_NOT_FOUND) when it
    // does not exist, KB_ERR_IO when it is not an oracle library of this ABI.
    explicit OraclePlugin(const std::string& path);
    ~OraclePlugin();
    OraclePlugin(const OraclePlugin&) = delete;
    OraclePlugin& operator=(const OraclePlugin&) = delete;

    const std::string& path() const { return path_; }
    bool has(const std::string& task) const;
    // The task's outputs from its inputs (values as double, keyed by
    // argument name). Throws kb::Error(KB_ERR_REFERENCE_FAILED) with the
    // oracle's message when it fails.
    std::map<std::string, std::vector<double>> compute(const std::string& task,
                                                       const std::map<std::string, int64_t>& dims,
                                                       const std::map<std::string, std::vector<double>>& inputs) const;
    // {atol, rtol} for one output at these dims; throws like compute.
    std::pair<double, double> bound(const std::string& task, const std::string& output,
                                    const std::map<std::string, int64_t>& dims) const;

    // The default library: libkbench_oracles.so beside the running executable
    // (the build tree puts it next to kbench). "" when there is none.
    static std::string default_path();

private:
    std::string path_;
    void* handle_ = nullptr;
    int (*has_)(const char*) = nullptr;
    kb_oracle_result* (*compute_)(const char*, const kb_oracle_dim*, size_t, const kb_oracle_tensor*, size_t) = nullptr;
    const char* (*error_)(const kb_oracle_result*) = nullptr;
    size_t (*count_)(const kb_oracle_result*) = nullptr;
    kb_oracle_tensor (*get_)(const kb_oracle_result*, size_t) = nullptr;
    void (*free_)(kb_oracle_result*) = nullptr;
    int (*bound_)(const char*, const char*, const kb_oracle_dim*, size_t, double*, double*, char*, size_t) = nullptr;
};

}  // namespace kb::emulate

// The oracle registry behind the C interface kbench loads
// (src/emulate/oracle_abi.h): this file makes libkbench_oracles.so, which
// `kbench validate --oracle` finds beside the kbench executable.
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "emulate/oracle_abi.h"
#include "oracles/oracle.h"

struct kb_oracle_result {
    std::string error;
    std::vector<std::string> names;
    std::vector<std::vector<double>> data;
};

namespace {

kb::oracle::Dims to_dims(const kb_oracle_dim* dims, size_t n) {
    kb::oracle::Dims d;
    for (size_t i = 0; i < n; ++i) d[dims[i].name] = dims[i].value;
    return d;
}

}  // namespace

#define KB_ORACLE_EXPORT extern "C" __attribute__((visibility("default")))

KB_ORACLE_EXPORT int kb_oracle_abi_version(void) { return KB_ORACLE_ABI_VERSION; }

KB_ORACLE_EXPORT int kb_oracle_has(const char* task) { return task && kb::oracle::find(task) ? 1 : 0; }

KB_ORACLE_EXPORT kb_oracle_result* kb_oracle_compute(const char* task, const kb_oracle_dim* dims, size_t ndims,
                                                     const kb_oracle_tensor* inputs, size_t ninputs) {
    auto* r = new kb_oracle_result();
    try {
        const kb::oracle::Oracle* o = task ? kb::oracle::find(task) : nullptr;
        if (!o) {
            r->error = std::string("no oracle for task '") + (task ? task : "(null)") + "'";
            return r;
        }
        kb::oracle::Tensors in;
        for (size_t i = 0; i < ninputs; ++i)
            in[inputs[i].name].assign(inputs[i].data, inputs[i].data + inputs[i].count);
        kb::oracle::Tensors out = o->compute(to_dims(dims, ndims), in);
        for (auto& kv : out) {
            r->names.push_back(kv.first);
            r->data.push_back(std::move(kv.second));
        }
    } catch (const std::exception& e) {
        r->error = e.what();
    }
    return r;
}

KB_ORACLE_EXPORT const char* kb_oracle_result_error(const kb_oracle_result* r) {
    return r && !r->error.empty() ? r->error.c_str() : nullptr;
}

KB_ORACLE_EXPORT size_t kb_oracle_result_count(const kb_oracle_result* r) { return r ? r->names.size() : 0; }

KB_ORACLE_EXPORT kb_oracle_tensor kb_oracle_result_get(const kb_oracle_result* r, size_t i) {
    if (!r || i >= r->names.size()) return kb_oracle_tensor{nullptr, nullptr, 0};
    return kb_oracle_tensor{r->names[i].c_str(), r->data[i].data(), r->data[i].size()};
}

KB_ORACLE_EXPORT void kb_oracle_result_free(kb_oracle_result* r) { delete r; }

KB_ORACLE_EXPORT int kb_oracle_bound(const char* task, const char* output, const kb_oracle_dim* dims, size_t ndims,
                                     double* atol, double* rtol, char* err, size_t errlen) {
    auto set_error = [&](const std::string& m) {
        if (err && errlen) {
            std::strncpy(err, m.c_str(), errlen - 1);
            err[errlen - 1] = '\0';
        }
        return -1;
    };
    try {
        const kb::oracle::Oracle* o = task ? kb::oracle::find(task) : nullptr;
        if (!o) return set_error(std::string("no oracle for task '") + (task ? task : "(null)") + "'");
        kb::oracle::Bound b = o->bound(output ? output : "", to_dims(dims, ndims));
        *atol = b.atol;
        *rtol = b.rtol;
        return 0;
    } catch (const std::exception& e) {
        return set_error(e.what());
    }
}

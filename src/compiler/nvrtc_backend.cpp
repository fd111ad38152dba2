#include "compiler/nvrtc_backend.h"

#include <nvrtc.h>

#include <chrono>

namespace kb {
namespace {

struct Deadline {
    std::chrono::steady_clock::time_point until;
};

int cancel_after_deadline(void* payload, void*) {
    const Deadline* d = static_cast<const Deadline*>(payload);
    return std::chrono::steady_clock::now() > d->until ? 1 : 0;
}

struct Program {
    nvrtcProgram p = nullptr;
    ~Program() {
        if (p) nvrtcDestroyProgram(&p);
    }
};

}  // namespace

NvrtcResult run_nvrtc(const std::string& source, const std::string& source_name,
                      const std::vector<std::string>& options,
                      const std::vector<std::pair<std::string, std::string>>& headers,
                      const std::vector<std::string>& name_expressions, bool want_cubin, double timeout_s) {
    NvrtcResult r;
    r.is_cubin = want_cubin;
    auto t0 = std::chrono::steady_clock::now();
    std::vector<const char*> hdr_text, hdr_name;
    for (const auto& h : headers) {
        hdr_name.push_back(h.first.c_str());
        hdr_text.push_back(h.second.c_str());
    }
    Program prog;
    nvrtcResult rc = nvrtcCreateProgram(&prog.p, source.c_str(), source_name.c_str(), int(headers.size()),
                                        hdr_text.data(), hdr_name.data());
    if (rc != NVRTC_SUCCESS) {
        r.error = nvrtcGetErrorString(rc);
        return r;
    }
    for (const std::string& e : name_expressions) {
        rc = nvrtcAddNameExpression(prog.p, e.c_str());
        if (rc != NVRTC_SUCCESS) {
            r.error = std::string(nvrtcGetErrorString(rc)) + " (name expression '" + e + "')";
            r.compile_error = true;
            r.log = source_name + ": error: invalid kernel name '" + e + "'\n";
            return r;
        }
    }
    Deadline deadline;
    if (timeout_s > 0) {
        deadline.until = t0 + std::chrono::microseconds(static_cast<long long>(timeout_s * 1e6));
        nvrtcSetFlowCallback(prog.p, &cancel_after_deadline, &deadline);
    }
    std::vector<const char*> opts;
    for (const std::string& o : options) opts.push_back(o.c_str());
    rc = nvrtcCompileProgram(prog.p, int(opts.size()), opts.data());

    size_t log_size = 0;
    if (nvrtcGetProgramLogSize(prog.p, &log_size) == NVRTC_SUCCESS && log_size > 1) {
        r.log.resize(log_size);
        nvrtcGetProgramLog(prog.p, &r.log[0]);
        r.log.resize(log_size - 1);  // drop the terminating NUL
    }
    if (rc != NVRTC_SUCCESS) {
        r.error = nvrtcGetErrorString(rc);
        r.invalid_option = rc == NVRTC_ERROR_INVALID_OPTION;
        r.compile_error = rc == NVRTC_ERROR_COMPILATION || rc == NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID ||
                          rc == NVRTC_ERROR_CANCELLED;
        if (rc == NVRTC_ERROR_CANCELLED)
            r.log += "\n" + source_name + ": error: NVRTC compilation cancelled after " +
                     std::to_string(static_cast<long long>(timeout_s)) + " s\n";
        r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        return r;
    }
    size_t size = 0;
    if (want_cubin) {
        rc = nvrtcGetCUBINSize(prog.p, &size);
        if (rc == NVRTC_SUCCESS && size > 0) {
            r.image.resize(size);
            rc = nvrtcGetCUBIN(prog.p, &r.image[0]);
        }
    } else {
        rc = nvrtcGetPTXSize(prog.p, &size);
        if (rc == NVRTC_SUCCESS && size > 0) {
            r.image.resize(size);
            rc = nvrtcGetPTX(prog.p, &r.image[0]);
            while (!r.image.empty() && r.image.back() == '\0') r.image.pop_back();
        }
    }
    if (rc != NVRTC_SUCCESS || r.image.empty()) {
        r.error = rc != NVRTC_SUCCESS ? nvrtcGetErrorString(rc) : "NVRTC produced an empty image";
        return r;
    }
    for (const std::string& e : name_expressions) {
        const char* lowered = nullptr;
        if (nvrtcGetLoweredName(prog.p, e.c_str(), &lowered) == NVRTC_SUCCESS && lowered) r.lowered[e] = lowered;
    }
    r.ok = true;
    r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

std::string nvrtc_version_string() {
    int major = 0, minor = 0;
    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "";
    return std::to_string(major) + "." + std::to_string(minor);
}

}  // namespace kb

// What the C boundary's files share (c_api.cpp, batch_api.cpp, launch.cpp): the handles
// behind the opaque types, the exception firewall `guard`, and the readers
// that turn the C option structs into the engine's values. Internal: never
// installed, never included outside src/capi.
#pragma once

#include <memory>
#include <new>
#include <string>

#include "capi/versioned.h"
#include "compiler/compiler.h"
#include "engine/context.h"
#include "engine/result_json.h"
#include "kbench.h"
#include "util/error.h"
#include "util/json.h"

// --- handles ------------------------------------------------------------

struct kb_context {
    std::unique_ptr<kb::Context> ctx;
    std::string json;
};

struct kb_task {
    kb::TaskPtr task;
};

struct kb_kernel {
    kb::KernelPtr kernel;
    std::string json;
};

// Built once from a typed result and never changed after: any number of
// threads may read one (kb_result_get_string hands out pointers into `doc`).
struct kb_result {
    kb::Json doc;
    std::string text;
    std::string message;
    kb_verdict verdict = KB_VERDICT_NONE;
};

namespace kb::capi {

// The detail kb_last_error() returns, per thread.
extern thread_local std::string t_last_error;

inline kb_status set_error(kb_status s, const std::string& msg) {
    t_last_error = msg;
    return s;
}

// KB_OK when the library reads `version` of T, else the status and why.
template <class T>
kb_status check_version(unsigned version) {
    std::string why = kb::capi::unsupported_version<T>(version);
    return why.empty() ? KB_OK : set_error(KB_ERR_UNSUPPORTED_VERSION, why);
}

// Runs an exported function's body: any C++ exception becomes a status and
// the thread's detail message.
template <class F>
kb_status guard(F&& body) {
    t_last_error.clear();
    try {
        return body();
    } catch (const kb::CompileError& e) {
        // The summary alone when the log adds nothing (a kernel-name or
        // parameter check, a file that is not text).
        bool has_log = e.log().find_first_not_of(" \n") != std::string::npos;
        return set_error(KB_ERR_COMPILE, std::string(e.what()) + (has_log ? "\n--- compiler log ---\n" + e.log() : ""));
    } catch (const kb::Error& e) {
        return set_error(e.status(), e.what());
    } catch (const std::bad_alloc&) {
        return set_error(KB_ERR_OUT_OF_MEMORY, "out of host memory");
    } catch (const std::exception& e) {
        return set_error(KB_ERR_INTERNAL, std::string("internal error: ") + e.what());
    } catch (...) {
        return set_error(KB_ERR_INTERNAL, "internal error: unknown exception");
    }
}

#define KB_REQUIRE(cond, what)                                                        \
    do {                                                                              \
        if (!(cond)) return set_error(KB_ERR_INVALID_ARGUMENT, std::string(what));    \
    } while (0)

inline kb_verdict verdict_of(const kb::ReferenceResult&) { return KB_VERDICT_NONE; }
template <class Result>
kb_verdict verdict_of(const Result& r) {
    return r.verdict;
}

// The boundary: a typed result becomes the JSON document the caller reads.
template <class Result>
kb_result* make_result(const Result& result) {
    auto r = std::make_unique<kb_result>();
    r->doc = kb::to_json(result);
    r->verdict = verdict_of(result);
    r->message = result.message;
    r->text = r->doc.dump(2);
    return r.release();
}

kb_status check_case(const kb_task* task, int case_index);
kb::TimeRequest time_request(const kb_time_options* o);
kb_status check_time_options(const kb_time_options* o);
kb_status candidate_input(const kb_candidate* c, kb::CandidateInput* in);
// kb_score_options (NULL: defaults) as the engine's ScoreOptions.
kb_status score_options(const kb_task* task, const kb_score_options* opts, kb::ScoreOptions* out);

}  // namespace kb::capi

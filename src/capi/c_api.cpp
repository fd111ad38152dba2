// The C boundary. Every exported function runs its body inside `guard`,
// which turns any C++ exception into a kb_status plus the thread-local
// detail message: nothing throws across extern "C" (docs/c-api.md, "Errors").
#include "kbench.h"

#include <cstring>
#include <new>
#include <string>

#include "capi/boundary.h"
#include "capi/option_readers.h"
#include "engine/verdict.h"
#include "worker_host/isolation.h"

namespace kb::capi {

thread_local std::string t_last_error;

// The header's version macros and the size tables (capi/versioned.h) move together.
static_assert(kb::capi::current_version<kb_context_options>() == KB_CONTEXT_OPTIONS_VERSION, "versioned.h");
static_assert(kb::capi::current_version<kb_time_options>() == KB_TIME_OPTIONS_VERSION, "versioned.h");
static_assert(kb::capi::current_version<kb_score_options>() == KB_SCORE_OPTIONS_VERSION, "versioned.h");
static_assert(kb::capi::current_version<kb_candidate>() == KB_CANDIDATE_VERSION, "versioned.h");
static_assert(kb::capi::current_version<kb_limits>() == KB_LIMITS_VERSION, "versioned.h");

kb_status check_case(const kb_task* task, int case_index) {
    kb::check_case_index(*task->task, case_index);  // throws; `guard` turns it into the status
    return KB_OK;
}

kb::TimeRequest time_request(const kb_time_options* o) {
    kb::TimeRequest r;
    if (!o) return r;
    r.case_index = o->case_index;
    r.against_baseline = o->against_baseline != 0;
    r.timing.hot = o->mode == KB_TIME_HOT;
    if (o->budget_ms > 0) r.timing.budget_ms = o->budget_ms;
    if (o->warmup_ms > 0) r.timing.warmup_ms = o->warmup_ms;
    if (o->min_samples) r.timing.min_samples = o->min_samples;
    if (o->max_samples) r.timing.max_samples = o->max_samples;
    if (o->target_rel_noise > 0) r.timing.target_rel_noise = o->target_rel_noise;
    if (r.timing.max_samples < r.timing.min_samples) r.timing.max_samples = r.timing.min_samples;
    return r;
}

kb_status check_time_options(const kb_time_options* o) {
    if (!o) return KB_OK;
    if (kb_status s = check_version<kb_time_options>(o->version)) return s;
    if (o->mode != KB_TIME_COLD && o->mode != KB_TIME_HOT)
        return set_error(KB_ERR_INVALID_ARGUMENT, "kb_time_options.mode must be KB_TIME_COLD or KB_TIME_HOT");
    if (o->budget_ms < 0 || o->warmup_ms < 0 || o->target_rel_noise < 0)
        return set_error(KB_ERR_INVALID_ARGUMENT, "kb_time_options: budget_ms, warmup_ms and target_rel_noise must be >= 0");
    return KB_OK;
}

kb_status candidate_input(const kb_candidate* c, kb::CandidateInput* in) {
    if (kb_status s = check_version<kb_candidate>(c->version)) return s;
    KB_REQUIRE(c->code || c->path, "kb_candidate: set code (with code_size, or NUL-terminated text) or path");
    switch (c->language) {
        case KB_LANG_AUTO: in->language_given = false; break;
        case KB_LANG_CUDA: in->language = kb::Language::cuda; in->language_given = true; break;
        case KB_LANG_PTX: in->language = kb::Language::ptx; in->language_given = true; break;
        case KB_LANG_CUBIN: in->language = kb::Language::cubin; in->language_given = true; break;
        case KB_LANG_TRITON:
            // Before Triton source was supported, KB_LANG_TRITON meant a
            // compiled cubin with its metadata: that call keeps its meaning.
            in->language = c->metadata_json ? kb::Language::triton_binary : kb::Language::triton;
            in->language_given = true;
            break;
        case KB_LANG_TRITON_BINARY: in->language = kb::Language::triton_binary; in->language_given = true; break;
        case KB_LANG_PYTHON: in->language = kb::Language::python; in->language_given = true; break;
        default: return set_error(KB_ERR_INVALID_ARGUMENT, "kb_candidate.language is not a kb_language value");
    }
    if (c->code) {
        size_t n = c->code_size ? c->code_size : std::strlen(c->code);
        KB_REQUIRE(n > 0, "kb_candidate.code is empty");
        in->code.assign(c->code, n);
    }
    if (c->path) in->path = c->path;
    if (c->launch_json) in->launch_json = std::string(c->launch_json);
    if (c->metadata_json) in->triton_metadata = c->metadata_json;
    if (c->label) in->label = c->label;
    return KB_OK;
}

kb_status score_options(const kb_task* task, const kb_score_options* given, kb::ScoreOptions* so) {
    if (!given) return KB_OK;
    if (kb_status s = check_version<kb_score_options>(given->version)) return s;
    // The caller's version, with the fields it lacks at their defaults.
    const kb_score_options o = read_versioned(given, kb_score_options KB_SCORE_OPTIONS_INIT);
    if (kb_status s = check_time_options(&o.timing)) return s;
    const unsigned known = KB_SCORE_SKIP_TIMING | KB_SCORE_NO_RECHECK | KB_SCORE_COMPILE_ONLY;
    if (o.flags & ~known)
        return set_error(KB_ERR_INVALID_ARGUMENT, "kb_score_options.flags has bits this library does not know (" +
                                                      std::to_string(o.flags & ~known) + "); use KB_SCORE_* values");
    if (o.protocol) so->protocol = o.protocol;
    if (o.torch_compute) so->torch_compute = o.torch_compute;
    so->timing_given =
        o.timing.budget_ms > 0 || o.timing.warmup_ms > 0 || o.timing.min_samples || o.timing.max_samples;
    so->seed = o.seed;
    so->correctness_runs = o.correctness_runs;  // 0: kbench's default (see score.cpp)
    so->skip_timing = (o.flags & KB_SCORE_SKIP_TIMING) != 0;
    so->recheck = (o.flags & KB_SCORE_NO_RECHECK) == 0;
    so->compile_only = (o.flags & KB_SCORE_COMPILE_ONLY) != 0;
    so->timing = time_request(&o.timing);
    if (so->timing.case_index != -1) return check_case(task, so->timing.case_index);
    return KB_OK;
}

}  // namespace kb::capi

using namespace kb::capi;

extern "C" {

// --- status, version, verdicts ---------------------------------------------

const char* kb_status_string(kb_status s) {
    switch (s) {
        case KB_OK: return "ok";
        case KB_ERR_INVALID_ARGUMENT: return "invalid argument";
        case KB_ERR_UNSUPPORTED_VERSION: return "unsupported options version";
        case KB_ERR_IO: return "i/o error";
        case KB_ERR_TASK_INVALID: return "task invalid";
        case KB_ERR_COMPILE: return "compile error";
        case KB_ERR_NO_DEVICE: return "no device";
        case KB_ERR_CUDA: return "cuda error";
        case KB_ERR_OUT_OF_MEMORY: return "out of memory";
        case KB_ERR_REFERENCE_FAILED: return "reference failed";
        case KB_ERR_CONTEXT_LOST: return "context lost";
        case KB_ERR_WORKER: return "worker error";
        case KB_ERR_NOT_FOUND: return "not found";
        case KB_ERR_INTERNAL: return "internal error";
        case KB_ERR_TIMEOUT: return "timed out";
        case KB_ERR_CANCELLED: return "cancelled";
    }
    return "unknown status";
}

const char* kb_last_error(void) { return t_last_error.c_str(); }

unsigned kb_version_number(void) { return KB_VERSION_NUMBER; }

const char* kb_version_string(void) {
#define KB_STR2(x) #x
#define KB_STR(x) KB_STR2(x)
    return KB_STR(KB_VERSION_MAJOR) "." KB_STR(KB_VERSION_MINOR) "." KB_STR(KB_VERSION_PATCH);
}

const char* kb_verdict_string(kb_verdict v) { return kb::verdict_name(v); }

// --- options ---------------------------------------------------------------

kb_status kb_context_options_init(kb_context_options* o, unsigned version) {
    return guard([&] {
        KB_REQUIRE(o, "kb_context_options_init: opts is NULL");
        if (kb_status s = check_version<kb_context_options>(version)) return s;
        kb::capi::write_versioned(o, version, kb_context_options KB_CONTEXT_OPTIONS_INIT);
        return KB_OK;
    });
}

kb_status kb_limits_init(kb_limits* l, unsigned version) {
    return guard([&] {
        KB_REQUIRE(l, "kb_limits_init: limits is NULL");
        if (kb_status s = check_version<kb_limits>(version)) return s;
        kb::capi::write_versioned(l, version, kb::capi::default_c_limits());
        return KB_OK;
    });
}

kb_status kb_time_options_init(kb_time_options* o, unsigned version) {
    return guard([&] {
        KB_REQUIRE(o, "kb_time_options_init: opts is NULL");
        if (kb_status s = check_version<kb_time_options>(version)) return s;
        kb::capi::write_versioned(o, version, kb_time_options KB_TIME_OPTIONS_INIT);
        return KB_OK;
    });
}

kb_status kb_score_options_init(kb_score_options* o, unsigned version) {
    return guard([&] {
        KB_REQUIRE(o, "kb_score_options_init: opts is NULL");
        if (kb_status s = check_version<kb_score_options>(version)) return s;
        kb::capi::write_versioned(o, version, kb_score_options KB_SCORE_OPTIONS_INIT);
        return KB_OK;
    });
}

// --- context -----------------------------------------------------------------

kb_status kb_device_count(int* out) {
    return guard([&] {
        KB_REQUIRE(out, "kb_device_count: out is NULL");
        *out = 0;
        std::string why;
        const kb::CudaDriver* d = kb::CudaDriver::try_get(&why);
        if (!d) {
            t_last_error = why;  // informative, not a failure
            return KB_OK;
        }
        int n = 0;
        if (d->cuDeviceGetCount(&n) == CUDA_SUCCESS) *out = n;
        return KB_OK;
    });
}

kb_status kb_context_create(const kb_context_options* opts, kb_context** out) {
    return guard([&] {
        KB_REQUIRE(out, "kb_context_create: out is NULL");
        *out = nullptr;
        kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
        if (opts) {
            if (kb_status s = check_version<kb_context_options>(opts->version)) return s;
            o = kb::capi::read_versioned(opts, o);
        }
        KB_REQUIRE(o.device >= KB_DEVICE_NONE, "kb_context_options.device must be an ordinal or KB_DEVICE_NONE");
        KB_REQUIRE(o.isolation >= KB_ISOLATION_DEFAULT && o.isolation <= KB_ISOLATION_WORKER,
                   "kb_context_options.isolation is not a kb_isolation value");
        KB_REQUIRE(o.timeout_s >= 0, "kb_context_options.timeout_s must be >= 0");
        const unsigned known = KB_CONTEXT_EMIT_PTX | KB_CONTEXT_NO_NVCC_FALLBACK | KB_CONTEXT_CONTAIN_TRAPS |
                               KB_CONTEXT_NO_CONTAIN_TRAPS | KB_CONTEXT_NO_CONFINE;
        KB_REQUIRE(!(o.flags & ~known), "kb_context_options.flags has bits this library does not know (" +
                                            std::to_string(o.flags & ~known) + "); use KB_CONTEXT_* values");
        KB_REQUIRE(!((o.flags & KB_CONTEXT_CONTAIN_TRAPS) && (o.flags & KB_CONTEXT_NO_CONTAIN_TRAPS)),
                   "kb_context_options.flags has both KB_CONTEXT_CONTAIN_TRAPS and KB_CONTEXT_NO_CONTAIN_TRAPS; "
                   "keep one (neither: only correctness-only builds are contained)");
        kb::ContextOptions co;
        co.device = o.device;
        co.isolation = o.isolation;
        if (o.arch) co.arch = o.arch;
        if (o.cache_dir) co.cache_dir = o.cache_dir;
        if (o.cuda_home) co.cuda_home = o.cuda_home;
        if (o.worker_path) co.worker_path = o.worker_path;
        co.timeout_s = o.timeout_s;
        co.emit_ptx = (o.flags & KB_CONTEXT_EMIT_PTX) != 0;
        co.nvcc_fallback = (o.flags & KB_CONTEXT_NO_NVCC_FALLBACK) == 0;
        co.contain_traps = (o.flags & KB_CONTEXT_CONTAIN_TRAPS) != 0;
        co.contain_comparisons = (o.flags & KB_CONTEXT_NO_CONTAIN_TRAPS) == 0;
        co.confine = (o.flags & KB_CONTEXT_NO_CONFINE) == 0;
        if (o.limits) {
            if (kb_status s = check_version<kb_limits>(o.limits->version)) return s;
            std::string why = kb::capi::apply_limits(kb::capi::read_versioned(o.limits, kb_limits KB_LIMITS_INIT), &co);
            KB_REQUIRE(why.empty(), why);
        }
        auto c = std::make_unique<kb_context>();
        c->ctx = std::make_unique<kb::Context>(co, kb::worker_isolation());
        c->json = c->ctx->info().dump(2);
        *out = c.release();
        return KB_OK;
    });
}

void kb_context_destroy(kb_context* ctx) {
    try {
        delete ctx;
    } catch (...) {
    }
}

const char* kb_context_json(const kb_context* ctx) { return ctx ? ctx->json.c_str() : "null"; }

// --- tasks -------------------------------------------------------------------

kb_status kb_load_task(const char* source, kb_task** out) {
    return guard([&] {
        KB_REQUIRE(out, "kb_load_task: out is NULL");
        *out = nullptr;
        KB_REQUIRE(source && *source, "kb_load_task: source is NULL or empty (give a path or JSON text)");
        auto t = std::make_unique<kb_task>();
        t->task = kb::load_task(source);
        *out = t.release();
        return KB_OK;
    });
}

kb_status kb_load_task_with_limits(const char* source, const kb_limits* limits, kb_task** out) {
    return guard([&] {
        KB_REQUIRE(out, "kb_load_task_with_limits: out is NULL");
        *out = nullptr;
        KB_REQUIRE(source && *source, "kb_load_task_with_limits: source is NULL or empty (give a path or JSON text)");
        kb::ContextOptions co;  // its document limits start at the defaults
        if (limits) {
            if (kb_status s = check_version<kb_limits>(limits->version)) return s;
            std::string why = kb::capi::apply_limits(kb::capi::read_versioned(limits, kb_limits KB_LIMITS_INIT), &co);
            KB_REQUIRE(why.empty(), why);
        }
        auto t = std::make_unique<kb_task>();
        t->task = kb::load_task(source, co.limits);
        *out = t.release();
        return KB_OK;
    });
}

void kb_task_destroy(kb_task* task) { delete task; }

const char* kb_task_name(const kb_task* task) { return task ? task->task->name.c_str() : nullptr; }
int kb_task_case_count(const kb_task* task) { return task ? int(task->task->cases.size()) : 0; }
const char* kb_task_case_name(const kb_task* task, int i) {
    if (!task || i < 0 || i >= int(task->task->cases.size())) return nullptr;
    return task->task->cases[size_t(i)].name.c_str();
}
int kb_task_perf_case(const kb_task* task) { return task ? task->task->perf_index : -1; }
int kb_task_find_case(const kb_task* task, const char* name) {
    if (!task || !name) return -1;
    for (size_t i = 0; i < task->task->cases.size(); ++i)
        if (task->task->cases[i].name == name) return int(i);
    return -1;
}
const char* kb_task_json(const kb_task* task) { return task ? task->task->normalized_json.c_str() : nullptr; }

// --- compilation ---------------------------------------------------------------

static kb_kernel* wrap_kernel(kb::KernelPtr k) {
    auto* out = new kb_kernel;
    out->json = kb::kernel_json(*k).dump(2);
    out->kernel = std::move(k);
    return out;
}

kb_status kb_compile(kb_context* ctx, const kb_task* task, const kb_candidate* candidate, kb_kernel** out) {
    return guard([&] {
        KB_REQUIRE(out, "kb_compile: out is NULL");
        *out = nullptr;
        KB_REQUIRE(ctx && task && candidate, "kb_compile: ctx, task and candidate must not be NULL");
        kb::CandidateInput in;
        kb_status s = candidate_input(candidate, &in);
        if (s != KB_OK) return s;
        *out = wrap_kernel(ctx->ctx->compile_candidate(task->task, in));
        return KB_OK;
    });
}

kb_status kb_compile_task_program(kb_context* ctx, const kb_task* task, kb_program_role role, kb_kernel** out) {
    return guard([&] {
        KB_REQUIRE(out, "kb_compile_task_program: out is NULL");
        *out = nullptr;
        KB_REQUIRE(ctx && task, "kb_compile_task_program: ctx and task must not be NULL");
        KB_REQUIRE(role == KB_ROLE_REFERENCE || role == KB_ROLE_BASELINE, "role must be KB_ROLE_REFERENCE or KB_ROLE_BASELINE");
        *out = wrap_kernel(ctx->ctx->compile_task_program(task->task, role));
        return KB_OK;
    });
}

void kb_kernel_destroy(kb_kernel* kernel) { delete kernel; }

const char* kb_kernel_log(const kb_kernel* k) { return k ? k->kernel->image.log.c_str() : ""; }

kb_status kb_kernel_image(const kb_kernel* k, const void** data, size_t* size) {
    return guard([&] {
        KB_REQUIRE(k && data && size, "kb_kernel_image: kernel, data and size must not be NULL");
        *data = k->kernel->image.bytes.c_str();
        *size = k->kernel->image.bytes.size();
        return KB_OK;
    });
}

const char* kb_kernel_json(const kb_kernel* k) { return k ? k->json.c_str() : "null"; }

// --- running ---------------------------------------------------------------------

kb_status kb_run_reference(kb_context* ctx, const kb_task* task, int case_index, uint64_t seed, kb_result** out) {
    return guard([&] {
        KB_REQUIRE(out, "kb_run_reference: out is NULL");
        *out = nullptr;
        KB_REQUIRE(ctx && task, "kb_run_reference: ctx and task must not be NULL");
        kb_status s = check_case(task, case_index);
        if (s != KB_OK) return s;
        *out = make_result(ctx->ctx->run_reference(task->task, case_index, seed ? seed : kb::kDefaultSeed));
        return KB_OK;
    });
}

kb_status kb_compare(kb_context* ctx, const kb_task* task, const kb_kernel* kernel, int case_index, uint64_t seed,
                     kb_result** out) {
    return guard([&] {
        KB_REQUIRE(out, "kb_compare: out is NULL");
        *out = nullptr;
        KB_REQUIRE(ctx && task && kernel, "kb_compare: ctx, task and kernel must not be NULL");
        kb_status s = check_case(task, case_index);
        if (s != KB_OK) return s;
        *out = make_result(ctx->ctx->compare(task->task, kernel->kernel, case_index, seed ? seed : kb::kDefaultSeed));
        return KB_OK;
    });
}

kb_status kb_time(kb_context* ctx, const kb_task* task, const kb_kernel* kernel, const kb_time_options* opts,
                  kb_result** out) {
    return guard([&] {
        KB_REQUIRE(out, "kb_time: out is NULL");
        *out = nullptr;
        KB_REQUIRE(ctx && task, "kb_time: ctx and task must not be NULL");
        kb_status s = check_time_options(opts);
        if (s != KB_OK) return s;
        kb::TimeRequest req = time_request(opts);
        if (req.case_index != -1) {
            s = check_case(task, req.case_index);
            if (s != KB_OK) return s;
        }
        *out = make_result(ctx->ctx->time(task->task, kernel ? kernel->kernel : nullptr, req));
        return KB_OK;
    });
}

kb_status kb_score(kb_context* ctx, const kb_task* task, const kb_candidate* candidate, const kb_score_options* opts,
                   kb_result** out) {
    return guard([&] {
        KB_REQUIRE(out, "kb_score: out is NULL");
        *out = nullptr;
        KB_REQUIRE(ctx && task && candidate, "kb_score: ctx, task and candidate must not be NULL");
        kb::CandidateInput in;
        kb_status s = candidate_input(candidate, &in);
        if (s != KB_OK) return s;
        kb::ScoreOptions so;
        s = score_options(task, opts, &so);
        if (s != KB_OK) return s;
        *out = make_result(ctx->ctx->score(task->task, in, so));
        return KB_OK;
    });
}

// --- results -------------------------------------------------------------------------

kb_verdict kb_result_verdict(const kb_result* r) { return r ? r->verdict : KB_VERDICT_NONE; }
const char* kb_result_message(const kb_result* r) { return r ? r->message.c_str() : ""; }
const char* kb_result_json(const kb_result* r) { return r ? r->text.c_str() : "null"; }

static const kb::Json* result_at(const kb_result* r, const char* pointer) {
    if (!r || !pointer) return nullptr;
    try {
        kb::Json::json_pointer p(pointer);
        if (!r->doc.contains(p)) return nullptr;
        return &r->doc.at(p);
    } catch (...) {
        return nullptr;
    }
}

kb_status kb_result_get_number(const kb_result* r, const char* pointer, double* out) {
    return guard([&] {
        KB_REQUIRE(r && pointer && out, "kb_result_get_number: result, pointer and out must not be NULL");
        const kb::Json* v = result_at(r, pointer);
        if (!v) return set_error(KB_ERR_NOT_FOUND, std::string("no field at ") + pointer);
        if (v->is_boolean()) *out = v->get<bool>() ? 1.0 : 0.0;
        else if (v->is_number()) *out = v->get<double>();
        else if (v->is_string() && (*v == "nan" || *v == "inf" || *v == "-inf"))
            *out = *v == "nan" ? NAN : *v == "inf" ? INFINITY : -INFINITY;
        else return set_error(KB_ERR_NOT_FOUND, std::string("the field at ") + pointer + " is not a number");
        return KB_OK;
    });
}

kb_status kb_result_get_string(const kb_result* r, const char* pointer, const char** out) {
    return guard([&] {
        KB_REQUIRE(r && pointer && out, "kb_result_get_string: result, pointer and out must not be NULL");
        const kb::Json* v = result_at(r, pointer);
        if (!v) return set_error(KB_ERR_NOT_FOUND, std::string("no field at ") + pointer);
        if (!v->is_string()) return set_error(KB_ERR_NOT_FOUND, std::string("the field at ") + pointer + " is not a string");
        // The string lives in the result's document, which never changes.
        *out = v->get_ref<const std::string&>().c_str();
        return KB_OK;
    });
}

void kb_result_destroy(kb_result* r) { delete r; }

}  // extern "C"

// kb_batch_*: the C face of engine/batch.h. A job handed to the caller owns
// its completion; kb_batch_job_take_result turns it into what kb_score would
// have returned (a result, or a status with its detail).
#include "engine/batch.h"

#include "capi/boundary.h"

struct kb_batch {
    std::unique_ptr<kb::Batch> batch;
};

struct kb_batch_job {
    kb::BatchCompletion completion;
    bool taken = false;
};

using namespace kb::capi;

static_assert(current_version<kb_batch_options>() == KB_BATCH_OPTIONS_VERSION, "versioned.h");

extern "C" {

kb_status kb_batch_options_init(kb_batch_options* o, unsigned version) {
    return guard([&] {
        KB_REQUIRE(o, "kb_batch_options_init: opts is NULL");
        if (kb_status s = check_version<kb_batch_options>(version)) return s;
        write_versioned(o, version, kb_batch_options KB_BATCH_OPTIONS_INIT);
        return KB_OK;
    });
}

kb_status kb_batch_create(kb_context* ctx, const kb_batch_options* opts, kb_batch** out) {
    return guard([&] {
        KB_REQUIRE(out, "kb_batch_create: out is NULL");
        *out = nullptr;
        KB_REQUIRE(ctx, "kb_batch_create: ctx is NULL");
        kb_batch_options o = KB_BATCH_OPTIONS_INIT;
        if (opts) {
            if (kb_status s = check_version<kb_batch_options>(opts->version)) return s;
            o = read_versioned(opts, o);
        }
        constexpr unsigned kMaxThreads = 256;
        KB_REQUIRE(o.compile_threads <= kMaxThreads,
                   "kb_batch_options.compile_threads is " + std::to_string(o.compile_threads) +
                       "; at most " + std::to_string(kMaxThreads) + " (0: the machine's cores, at most 8)");
        constexpr unsigned kMaxLanes = 16;
        KB_REQUIRE(o.device_lanes <= kMaxLanes,
                   "kb_batch_options.device_lanes is " + std::to_string(o.device_lanes) + "; at most " +
                       std::to_string(kMaxLanes) + " (each is a worker process with a CUDA context; 0: 4)");
        kb::BatchOptions bo;
        bo.capacity = o.capacity;
        bo.compile_threads = o.compile_threads;
        bo.device_lanes = o.device_lanes;
        auto b = std::make_unique<kb_batch>();
        b->batch = std::make_unique<kb::Batch>(*ctx->ctx, bo);
        *out = b.release();
        return KB_OK;
    });
}

kb_status kb_batch_submit(kb_batch* batch, const kb_task* task, const kb_candidate* candidate,
                          const kb_score_options* opts, uint64_t tag, double timeout_s, uint64_t* id_out) {
    return guard([&] {
        if (id_out) *id_out = 0;
        KB_REQUIRE(batch && task && candidate, "kb_batch_submit: batch, task and candidate must not be NULL");
        KB_REQUIRE(timeout_s == timeout_s, "kb_batch_submit: timeout_s is NaN");
        kb::CandidateInput in;
        if (kb_status s = candidate_input(candidate, &in)) return s;
        kb::ScoreOptions so;
        if (kb_status s = score_options(task, opts, &so)) return s;
        std::optional<uint64_t> id = batch->batch->submit(task->task, std::move(in), so, tag, timeout_s);
        if (!id)
            return set_error(KB_ERR_TIMEOUT, "kb_batch_submit: the batch holds " +
                                                 std::to_string(batch->batch->options().capacity) +
                                                 " jobs not yet collected (its capacity); collect results with "
                                                 "kb_batch_next, or submit with a longer timeout");
        if (id_out) *id_out = *id;
        return KB_OK;
    });
}

kb_status kb_batch_next(kb_batch* batch, double timeout_s, kb_batch_job** out) {
    return guard([&] {
        KB_REQUIRE(out, "kb_batch_next: out is NULL");
        *out = nullptr;
        KB_REQUIRE(batch, "kb_batch_next: batch is NULL");
        KB_REQUIRE(timeout_s == timeout_s, "kb_batch_next: timeout_s is NaN");
        bool idle = false;
        std::optional<kb::BatchCompletion> c = batch->batch->next(timeout_s, &idle);
        if (!c) {
            if (idle) return set_error(KB_ERR_NOT_FOUND, "kb_batch_next: no job is in flight or waiting to be collected");
            return set_error(KB_ERR_TIMEOUT, "kb_batch_next: no job completed within the timeout");
        }
        auto job = std::make_unique<kb_batch_job>();
        job->completion = std::move(*c);
        *out = job.release();
        return KB_OK;
    });
}

kb_status kb_batch_cancel(kb_batch* batch, uint64_t id) {
    return guard([&] {
        KB_REQUIRE(batch, "kb_batch_cancel: batch is NULL");
        if (!batch->batch->cancel(id))
            return set_error(KB_ERR_NOT_FOUND, "kb_batch_cancel: job " + std::to_string(id) +
                                                   " is not waiting: it completed already, is running on the "
                                                   "device, or was never submitted to this batch");
        return KB_OK;
    });
}

kb_status kb_batch_cancel_all(kb_batch* batch, size_t* count) {
    return guard([&] {
        if (count) *count = 0;
        KB_REQUIRE(batch, "kb_batch_cancel_all: batch is NULL");
        size_t n = batch->batch->cancel_all();
        if (count) *count = n;
        return KB_OK;
    });
}

size_t kb_batch_in_flight(const kb_batch* batch) { return batch ? batch->batch->in_flight() : 0; }

void kb_batch_destroy(kb_batch* batch) {
    try {
        delete batch;
    } catch (...) {
        // Joining threads does not throw in practice; nothing may cross the boundary.
    }
}

uint64_t kb_batch_job_id(const kb_batch_job* job) { return job ? job->completion.id : 0; }
uint64_t kb_batch_job_tag(const kb_batch_job* job) { return job ? job->completion.tag : 0; }

kb_status kb_batch_job_take_result(kb_batch_job* job, kb_result** out) {
    return guard([&] {
        KB_REQUIRE(out, "kb_batch_job_take_result: out is NULL");
        *out = nullptr;
        KB_REQUIRE(job, "kb_batch_job_take_result: job is NULL");
        if (job->taken) return set_error(KB_ERR_NOT_FOUND, "kb_batch_job_take_result: the result was taken already");
        job->taken = true;
        const kb::BatchCompletion& c = job->completion;
        if (c.status != KB_OK) return set_error(c.status, c.error);
        *out = make_result(*c.result);
        return KB_OK;
    });
}

void kb_batch_job_destroy(kb_batch_job* job) { delete job; }

}  // extern "C"

// The Backend that runs everything in a kbench-worker process: the same
// verbs as LocalBackend, forwarded over the protocol, with a deadline on
// every request. A candidate that hangs or kills its worker gets a verdict
// (timeout, runtime_error) naming the deadline or the signal; the worker is
// replaced by the warm standby and the next request is served normally.
// Results already returned are the caller's: a later crash cannot touch them.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>

#include "engine/backend.h"
#include "engine/options.h"
#include "worker_host/deadlines.h"
#include "worker_host/supervisor.h"

namespace kb {

class WorkerBackend : public Backend {
public:
    // Starts the first worker now (hello and canary), so that a broken
    // set-up fails at context creation rather than at the first candidate.
    WorkerBackend(WorkerSettings settings, DeadlinePolicy deadlines);

    Json device_info() override;
    ReferenceResult run_reference(const TaskBinding& tb, int case_index, uint64_t seed) override;
    CompareResult compare(const TaskBinding& tb, const KernelPtr& kernel, int case_index, uint64_t seed,
                          unsigned runs) override;
    CompareResult recheck(const TaskBinding& tb, const KernelPtr& kernel, int case_index, uint64_t seed) override;
    // The cases in as few requests as the worker's references allow (a
    // request's round trip cost more than a small case's runs); see
    // Backend::compare_cases.
    std::vector<CompareResult> compare_cases(const TaskBinding& tb, const KernelPtr& kernel,
                                             const std::vector<CaseRuns>& cases, uint64_t seed) override;
    TimeResult time(const TaskBinding& tb, const KernelPtr& kernel, const TimeRequest& req) override;

    void let_go() override { sup_.let_go(); }

    Supervisor& supervisor() { return sup_; }
    const DeadlinePolicy& deadlines() const { return deadlines_; }

    // Tests: the next request of this kind ("compare", "time", "run_reference")
    // makes the worker perform `fault` first ("abort", "segv", "exit:N",
    // "sleep:S"). Only a worker started with test hooks obeys
    // ($KBENCH_WORKER_TEST_HOOKS=1 when the context is created).
    void inject_fault_once(const std::string& request, const std::string& fault);

    // References our workers ran, and those a replacement held from an
    // earlier worker's digest instead (ensure_reference).
    unsigned references_run() const { return references_run_; }
    unsigned references_installed() const { return references_installed_; }
    size_t digests_held() const { return digests_.size(); }
    // Tests: every digest held now gets checksums no rerun reproduces, as
    // a reference that is not bitwise deterministic would.
    void spoil_digests_for_tests();

private:
    // One `compare` request; `timed_build` asks for the build that is timed
    // rather than the checked one (Backend::recheck).
    CompareResult compare_request(const TaskBinding& tb, const KernelPtr& kernel, int case_index, uint64_t seed,
                                  unsigned runs, bool timed_build);
    // Sends a request carrying what the worker lacks (the task, the kernels),
    // resending once if the worker had dropped something it was thought to hold.
    // `blobs` go first in the request (a body's blob indexes count from 0).
    template <class MakeDeadline>
    Outcome exchange(wire::Msg type, const Json& body, const TaskBinding& tb, const KernelPtr& kernel,
                     MakeDeadline make_deadline, Deadline* used, const std::vector<std::string>& blobs = {});
    // Runs the reference at (case, seed) unless this worker has its outputs,
    // or hands it the digest an earlier worker's run left (install_reference).
    void ensure_reference(const TaskBinding& tb, int case_index, uint64_t seed);
    // Gives the worker in use the reference of `key` from its digest; false
    // when it could not take it (the digest is dropped then).
    bool install_reference(const TaskBinding& tb, int case_index, uint64_t seed, const std::string& key);
    bool holds_reference(const Task& task, int case_index, uint64_t seed) const;
    // compare_cases' request for cases whose references the worker holds.
    std::vector<CompareResult> compare_in_one_request(const TaskBinding& tb, const KernelPtr& kernel,
                                                      const std::vector<CaseRuns>& cases, uint64_t seed);
    // `statistics`: the outputs' statistics and findings too (run_reference),
    // or the run time alone (ensure_reference).
    ReferenceResult reference_request(const TaskBinding& tb, int case_index, uint64_t seed, bool statistics);
    // The reply to a candidate request (the worker's result document), or an
    // exception for kbench's own failures; null when the worker timed out or
    // died (the caller reports that as the candidate's verdict).
    const Json* candidate_reply(wire::Msg type, const Outcome& o, const TaskBinding& tb, int case_index,
                                const KernelPtr& kernel);
    WorkerFacts worker_facts(const Outcome& o) const;

    Supervisor sup_;
    DeadlinePolicy deadlines_;
    std::map<std::string, double> reference_ms_;  // "<task hash>/<case>" -> the reference's run time
    std::set<std::string> ran_before_;            // "<task hash>/<case>/<seed>" any worker of ours ran
    // References whose rerun on the device once differed from their first
    // run (not bitwise deterministic, or tampered with): their runs copy
    // every output to the host, for the comparisons to upload. Without this
    // a worker would run such a reference without them again, and be
    // replaced again, at every comparison.
    std::set<std::string> not_reproduced_;
    // The digests of references our workers ran (exec/reference_cache.h), by
    // "<task hash>/<case>/<seed>": a replacement after a crash holds them
    // without running them again. Bounded by kDigestBytes (dropped whole
    // past it: a dropped digest costs one reference run).
    struct HeldDigest {
        Json doc;                        // wire::reference_digest_to_json
        std::vector<std::string> blobs;  // the host-compared outputs' bytes
    };
    static constexpr size_t kDigestBytes = size_t(256) << 20;
    std::map<std::string, HeldDigest> digests_;
    size_t digest_bytes_ = 0;
    unsigned references_run_ = 0;
    unsigned references_installed_ = 0;
    void keep_digest(const std::string& key, const Json& doc, const std::vector<std::string>& blobs);
    void drop_digest(const std::string& key);
    std::map<std::string, std::string> faults_;   // request kind -> fault (tests)
};

// The results of a candidate request whose worker timed out or died: the
// verdict (timeout, or runtime_error for a death), a message naming the
// deadline or the signal and what to do about it, and the worker's facts.
CompareResult compare_failure(const Task& task, int case_index, uint64_t seed, const std::string& kernel_label,
                              const Outcome& o, const Deadline& d);
TimeResult time_failure(const Task& task, int case_index, const Outcome& o, const Deadline& d);
// The same as the JSON document the caller sees, by request kind ("compare", "time").
Json worker_failure_result(const char* kind, const Task& task, int case_index, uint64_t seed,
                           const std::string& kernel_label, const Outcome& o, const Deadline& d);

// The worker settings a context's options ask for: the executable (found as
// worker_locate.h says), the device, and test hooks when
// $KBENCH_WORKER_TEST_HOOKS is 1. Throws kb::Error(KB_ERR_WORKER) when there
// is no worker to be found.
WorkerSettings worker_settings(const ContextOptions& opts, int device);

// The backend of a device context with worker isolation: starts the worker,
// which refuses with KB_ERR_NO_DEVICE when the driver or the device is
// missing (as an in-process context would say). This process asks the
// driver itself only when no worker can be found, so that a context's start
// does not wait for a cuInit here as well as in the worker.
std::unique_ptr<Backend> make_worker_backend(const ContextOptions& opts);

}  // namespace kb

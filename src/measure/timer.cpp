#include "measure/timer.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "exec/launcher.h"  // fault_from_cuda
#include "util/error.h"

namespace kb {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Owns CUDA events and graphs for one measurement; releases them on any exit.
class Resources {
public:
    explicit Resources(Device& dev) : dev_(dev) {}
    ~Resources() {
        const CudaDriver& d = dev_.driver();
        for (CUevent e : events_) d.cuEventDestroy(e);
        for (CUgraphExec g : execs_) d.cuGraphExecDestroy(g);
        for (CUgraph g : graphs_) d.cuGraphDestroy(g);
    }
    CUevent event() {
        CUevent e = nullptr;
        dev_.check(dev_.driver().cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate");
        events_.push_back(e);
        return e;
    }
    CUgraphExec capture(const std::function<void()>& plan, unsigned times) {
        const CudaDriver& d = dev_.driver();
        dev_.check(d.cuStreamBeginCapture(dev_.stream(), CU_STREAM_CAPTURE_MODE_RELAXED), "cuStreamBeginCapture");
        try {
            for (unsigned i = 0; i < times; ++i) plan();
        } catch (...) {
            CUgraph g = nullptr;
            d.cuStreamEndCapture(dev_.stream(), &g);
            if (g) d.cuGraphDestroy(g);
            throw;
        }
        CUgraph g = nullptr;
        dev_.check(d.cuStreamEndCapture(dev_.stream(), &g), "cuStreamEndCapture");
        graphs_.push_back(g);
        CUgraphExec exec = nullptr;
        dev_.check(d.cuGraphInstantiateWithFlags(&exec, g, 0), "cuGraphInstantiate");
        execs_.push_back(exec);
        return exec;
    }

private:
    Device& dev_;
    std::vector<CUevent> events_;
    std::vector<CUgraph> graphs_;
    std::vector<CUgraphExec> execs_;
};

void wait(Device& dev, const char* during) {
    CUresult r = dev.sync_raw();
    if (r != CUDA_SUCCESS) throw fault_from_cuda(r, during);
}

}  // namespace

TimingRun measure_plans(Device& dev, const std::vector<std::function<void()>>& plans, const TimingOptions& opts) {
    if (plans.empty()) fail(KB_ERR_INVALID_ARGUMENT, "nothing to time");
    dev.throw_if_lost();
    const CudaDriver& d = dev.driver();
    const size_t P = plans.size();
    TimingRun run;
    run.samples_us.resize(P);
    Resources res(dev);
    auto t0 = Clock::now();

    // Warm-up: every plan at least once, until warmup_ms has passed. Module
    // loading, first-touch and clock ramp-up stay out of the samples.
    do {
        for (const auto& p : plans) p();
        wait(dev, "warm-up");
    } while (ms_since(t0) < opts.warmup_ms);

    // One timed run of each plan: sizes the batches (and the hot graphs).
    CUevent probe_a = res.event(), probe_b = res.event();
    std::vector<double> single_us(P, 0.0);
    for (size_t i = 0; i < P; ++i) {
        if (!opts.hot) dev.enqueue_l2_flush();
        d.cuEventRecord(probe_a, dev.stream());
        plans[i]();
        d.cuEventRecord(probe_b, dev.stream());
        wait(dev, "timing");
        float ms = 0;
        dev.check(d.cuEventElapsedTime(&ms, probe_a, probe_b), "cuEventElapsedTime");
        single_us[i] = std::max(0.5, double(ms) * 1000.0);
    }

    std::vector<CUgraphExec> graphs;
    if (opts.hot) {
        // Enough back-to-back launches that one replay lasts ~200 us, far above event resolution.
        double longest = *std::max_element(single_us.begin(), single_us.end());
        run.hot_launches_per_sample = unsigned(std::clamp(std::ceil(200.0 / longest), 1.0, 10000.0));
        for (const auto& p : plans) graphs.push_back(res.capture(p, run.hot_launches_per_sample));
        for (CUgraphExec g : graphs) dev.check(d.cuGraphLaunch(g, dev.stream()), "cuGraphLaunch");  // upload + warm
        wait(dev, "warm-up");
    }

    run.sm_clock_start_mhz = dev.measure_sm_clock_mhz();

    // A round is one sample of every plan, in order: A B A B ...
    double flush_us = opts.hot ? 0.0 : 30.0;
    double round_us = flush_us * double(P);
    for (double s : single_us) round_us += s * (opts.hot ? run.hot_launches_per_sample : 1);
    const unsigned kMaxBatch = 64;
    std::vector<CUevent> starts, stops;
    for (unsigned i = 0; i < kMaxBatch * P; ++i) {
        starts.push_back(res.event());
        stops.push_back(res.event());
    }

    auto sample_start = Clock::now();
    unsigned n = 0;
    for (;;) {
        double elapsed = ms_since(sample_start);
        double remaining_us = std::max(0.0, (opts.budget_ms - elapsed) * 1000.0);
        // Batches of ~10 ms keep the host's bookkeeping off the GPU's critical
        // path. The first is only as long as min_samples rounds (at least
        // ~2 ms): a quiet kernel meets the noise target there, and a score's
        // timing took 16 ms when it always ran 10 ms of samples.
        double batch_us = n == 0 ? std::max(2000.0, double(opts.min_samples) * round_us) : 10000.0;
        unsigned rounds = unsigned(std::clamp(std::min(batch_us, remaining_us) / round_us, 1.0, double(kMaxBatch)));
        rounds = std::min(rounds, opts.max_samples - n);
        for (unsigned r = 0; r < rounds; ++r) {
            for (size_t i = 0; i < P; ++i) {
                size_t e = r * P + i;
                if (!opts.hot) dev.enqueue_l2_flush();
                d.cuEventRecord(starts[e], dev.stream());
                if (opts.hot) dev.check(d.cuGraphLaunch(graphs[i], dev.stream()), "cuGraphLaunch");
                else plans[i]();
                d.cuEventRecord(stops[e], dev.stream());
            }
        }
        wait(dev, "timing");
        for (unsigned r = 0; r < rounds; ++r) {
            double round_samples[2] = {0, 0};
            for (size_t i = 0; i < P; ++i) {
                float ms = 0;
                dev.check(d.cuEventElapsedTime(&ms, starts[r * P + i], stops[r * P + i]), "cuEventElapsedTime");
                double us = double(ms) * 1000.0 / run.hot_launches_per_sample;
                run.samples_us[i].push_back(us);
                if (i < 2) round_samples[i] = us;
            }
            if (P >= 2 && round_samples[1] > 0) run.round_ratios.push_back(round_samples[0] / round_samples[1]);
        }
        n += rounds;

        bool quiet = n >= opts.min_samples;
        for (size_t i = 0; quiet && i < P; ++i)
            quiet = summarize(run.samples_us[i]).rel_noise <= opts.target_rel_noise;
        if (quiet) { run.stop_reason = "noise"; break; }
        if (n >= opts.max_samples) { run.stop_reason = "max_samples"; break; }
        // The budget is a hard stop once there are a few samples to report.
        if (ms_since(sample_start) >= opts.budget_ms && n >= std::min(3u, opts.min_samples)) {
            run.stop_reason = "budget";
            break;
        }
    }

    run.sm_clock_end_mhz = dev.measure_sm_clock_mhz();
    for (const auto& s : run.samples_us) run.stats.push_back(summarize(s));
    // Throttled: the clock fell during the run, or sits far below the rated clock.
    double rated = dev.props().clock_rate_khz / 1000.0;
    run.throttled = run.sm_clock_end_mhz < 0.9 * run.sm_clock_start_mhz ||
                    (rated > 0 && run.sm_clock_end_mhz < 0.75 * rated);
    run.wall_ms = ms_since(t0);
    return run;
}

}  // namespace kb

#include "engine/program_builders.h"

#include <algorithm>

#include "util/env_number.h"

namespace kb {

std::optional<ProgramPrebuild> ProgramBuilders::prebuild(const std::string& source, const std::string& source_name,
                                                         const TaskPtr& task) {
    std::unique_ptr<PythonWorkers> w;
    {
        std::unique_lock<std::mutex> lock(mutex_);
        freed_.wait(lock, [&] { return letting_go_ || !broken_.empty() || !idle_.empty() || started_ < count_; });
        if (letting_go_ || !broken_.empty()) return std::nullopt;
        if (!idle_.empty()) {
            w = std::move(idle_.back());
            idle_.pop_back();
        } else {
            ++started_;
        }
    }
    if (!w) {
        try {
            w = start_();
        } catch (const Error& e) {
            std::lock_guard<std::mutex> lock(mutex_);
            --started_;
            broken_ = e.what();
            freed_.notify_all();
            return std::nullopt;
        }
    }
    std::optional<ProgramPrebuild> out;
    try {
        out = w->prebuild(source, source_name, task);
    } catch (const Error&) {
        // kbench's failure (the builder's set-up): the lane builds instead.
        std::lock_guard<std::mutex> lock(mutex_);
        --started_;
        freed_.notify_all();
        return std::nullopt;
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        idle_.push_back(std::move(w));
    }
    freed_.notify_one();
    return out;
}

void ProgramBuilders::let_go() {
    std::lock_guard<std::mutex> lock(mutex_);
    letting_go_ = true;
    for (auto& w : idle_) w->let_go();
    freed_.notify_all();
}

std::vector<std::unique_ptr<PythonWorkers>> ProgramBuilders::release() {
    std::lock_guard<std::mutex> lock(mutex_);
    letting_go_ = true;
    freed_.notify_all();
    return std::move(idle_);
}

unsigned ProgramBuilders::default_count(unsigned cores) {
    if (std::optional<unsigned long> n =
            env_number("KBENCH_PROGRAM_BUILDERS", 1, 64, "the default (three quarters of the CPU threads, 1 to 16)"))
        return unsigned(*n);
    return std::clamp(cores * 3 / 4, 1u, 16u);
}

bool ProgramBuilders::wanted(const std::string& source) {
    return source.find("load_inline") != std::string::npos;
}

}  // namespace kb

#include "exec/external_launch.h"

#include "compiler/triton_specialize.h"
#include "task/dtype.h"
#include "util/error.h"

namespace kb {
namespace {

constexpr size_t kEntries = 8;  // (kernel, dims) pairs whose scratch stays allocated

std::string dims_text(const DimValues& dims) {
    std::string s;
    for (const auto& [name, v] : dims) s += (s.empty() ? "" : ", ") + name + "=" + std::to_string(v);
    return "{" + s + "}";
}

std::string names_text(const std::vector<std::string>& names) {
    std::string s;
    for (const std::string& n : names) s += (s.empty() ? "'" : ", '") + n + "'";
    return s.empty() ? "none" : s;
}

}  // namespace

TaskPtr task_at_dims(const TaskPtr& task, const DimValues& dims) {
    for (const auto& [name, v] : dims) {
        bool declared = false;
        for (const std::string& d : task->dims) declared = declared || d == name;
        if (!declared)
            fail(KB_ERR_INVALID_ARGUMENT, "dim '" + name + "' is not a dim of task '" + task->name +
                                              "' (its dims: " + names_text(task->dims) + ")");
        if (v < 1)
            fail(KB_ERR_INVALID_ARGUMENT,
                 "dim '" + name + "' = " + std::to_string(v) + ": dims are sizes, at least 1");
    }
    for (const std::string& d : task->dims)
        if (!dims.count(d))
            fail(KB_ERR_INVALID_ARGUMENT, "dim '" + d + "' of task '" + task->name +
                                              "' is not given; a launch needs every dim (" +
                                              names_text(task->dims) + ")");
    auto t = std::make_shared<Task>(*task);
    t->cases = {Case{"kb_launch", dims, false}};
    t->perf_index = 0;
    for (size_t i = 0; i < t->args.size(); ++i) {
        const Arg& a = t->args[i];
        if (!a.is_buffer()) continue;
        try {
            element_count(a.shape, dims, "argument '" + a.name + "'");
        } catch (const Error& e) {
            fail(KB_ERR_INVALID_ARGUMENT, std::string(e.what()) + " at dims " + dims_text(dims));
        }
    }
    return t;
}

ExternalRuns::~ExternalRuns() {
    // Launches may still be running on the caller's stream with this scratch.
    if (!entries_.empty() && !dev_.lost()) dev_.sync_raw();
}

ExternalRuns::Entry& ExternalRuns::entry(const Kernel& kernel, const TaskPtr& at,
                                         std::vector<CaseBuffers::External> ext) {
    const std::string key = kernel.id + " " + dims_text(at->cases[0].dims);
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
        if (it->key != key) continue;
        entries_.splice(entries_.begin(), entries_, it);
        entries_.front().buffers->set_external(std::move(ext));
        return entries_.front();
    }
    if (entries_.size() >= kEntries) {
        // Its scratch may be in use by launches not finished yet.
        dev_.sync("kb_launch: waiting before freeing the scratch of an earlier launch");
        entries_.pop_back();
    }
    Entry e{key, at, nullptr, nullptr};
    e.buffers = std::make_unique<CaseBuffers>(dev_, *e.task, 0, std::move(ext));
    entries_.push_front(std::move(e));
    return entries_.front();
}

void ExternalRuns::launch(const Kernel& kernel, const TaskPtr& task, const ExternalLaunch& x) {
    const Program& p = kernel.program;
    if (p.language == Language::python)
        fail(KB_ERR_INVALID_ARGUMENT, "'" + kernel.label +
                                          "' is a Python program, not a kernel: call it from Python instead");
    // A contained trap (compiler/trap_containment.h) is reported from a flag
    // read after the run; kb_launch returns before its kernel ends, so
    // nobody would read it and a trapping thread would end unseen.
    if (!kernel.image.trap_flag.empty())
        fail(KB_ERR_INVALID_ARGUMENT, "kb_launch: " + kernel.label +
                                          " was compiled with its traps contained ($KBENCH_CONTAIN_TRAPS=1 or "
                                          "ContextOptions::contain_traps), which kb_launch cannot report on the caller's "
                                          "stream; launch it from a context that does not contain traps");
    TaskPtr at = task_at_dims(task, x.dims);
    const Task& t = *at;
    for (const auto& [name, b] : x.buffers) {
        int ai = t.arg_index(name);
        if (ai < 0) {
            std::vector<std::string> names;
            for (const Arg& a : t.args)
                if (a.is_buffer()) names.push_back(a.name);
            fail(KB_ERR_INVALID_ARGUMENT, "buffer '" + name + "' is not an argument of task '" + t.name +
                                              "' (its buffers: " + names_text(names) + ")");
        }
        if (!t.args[size_t(ai)].is_buffer())
            fail(KB_ERR_INVALID_ARGUMENT, "'" + name + "' is a scalar argument of task '" + t.name +
                                              "': kbench computes it from the dims; pass the dims instead");
    }
    std::vector<CaseBuffers::External> ext(t.args.size());
    for (size_t i = 0; i < t.args.size(); ++i) {
        const Arg& a = t.args[i];
        if (!a.is_buffer()) continue;
        auto it = x.buffers.find(a.name);
        if (it == x.buffers.end())
            fail(KB_ERR_INVALID_ARGUMENT, "buffer '" + a.name + "' (" + dtype_name(a.dtype) + ", " +
                                              role_name(a.role) + ") of task '" + t.name + "' is not given");
        const ExternalBuffer& b = it->second;
        const std::string what = "buffer '" + a.name + "'";
        const size_t need = size_t(element_count(a.shape, t.cases[0].dims, what)) * dtype_size(a.dtype);
        if (!b.dtype.empty() && b.dtype != dtype_name(a.dtype))
            fail(KB_ERR_INVALID_ARGUMENT, what + " holds " + b.dtype + ", the task's argument is " +
                                              dtype_name(a.dtype) + "; convert it (torch: .to(...)) first");
        if (b.bytes < need)
            fail(KB_ERR_INVALID_ARGUMENT, what + " has " + std::to_string(b.bytes) + " bytes; at dims " +
                                              dims_text(t.cases[0].dims) + " the task's shape needs " +
                                              std::to_string(need));
        if (b.ptr % kExternalAlignment != 0)
            fail(KB_ERR_INVALID_ARGUMENT, what + " starts at an address that is not a multiple of " +
                                              std::to_string(kExternalAlignment) +
                                              " bytes (a view into a larger tensor?); kernels may assume that "
                                              "alignment: pass a copy (torch: .clone())");
        dev_.check_caller_memory(b.ptr, need, what);
        ext[i] = {b.ptr, need};
    }
    if (p.language == Language::triton) {
        // Triton compiled one binary per specialisation of the task's cases;
        // another would break the assumptions the binary was compiled under.
        for (size_t si = 0; si < p.launch.size(); ++si) {
            if (!p.launch[si].triton) continue;
            const std::string key = triton_spec_at(t, p, si, t.cases[0].dims).key();
            std::string have;
            bool found = false;
            for (const TritonVariant& v : kernel.variants) {
                if (v.step != si) continue;
                found = found || v.key == key;
                have += "\n  " + v.key;
            }
            if (!found)
                fail(KB_ERR_INVALID_ARGUMENT,
                     "launch[" + std::to_string(si) + "]: this Triton kernel was compiled for the specialisations "
                     "of the task's cases, and dims " + dims_text(t.cases[0].dims) + " need " + key +
                     ", which is not among them (" + have + "\n); use dims that specialise like one of the "
                     "task's cases (the same divisibility by 16 and ones)");
        }
    }

    Entry& e = entry(kernel, at, std::move(ext));
    if (!e.module) e.module = modules_.get(dev_, kernel);
    dev_.wait_for(x.stream);
    e.buffers->reset_scratch(p, "caller");
    BoundPlan plan = bind_plan(dev_, *e.module, p, *e.buffers, "caller", builtins_);
    plan.enqueue(dev_);
    dev_.make_wait(x.stream);
}

}  // namespace kb

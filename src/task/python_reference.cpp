// Tasks whose reference is Python (python_reference.h, docs/programs.md).
#include "task/python_reference.h"

#include <algorithm>

#include "task/task_json.h"

namespace kb::taskjson {
namespace {

const std::vector<std::string> kStyles = {"kernelbench", "tritonbench"};
const std::vector<std::string> kTorchCompute = {"allow", "report", "forbid"};
const std::vector<std::string> kProgramKeys = {"timing"};

std::vector<std::string> reference_keys() {
    std::vector<std::string> k = program_code_keys();
    k.insert(k.end(), {"style", "entry", "candidate_entry", "candidate_functions", "get_inputs", "get_init_inputs",
                       "test_source", "perf_source", "precision", "inputs", "outputs", "input_transforms"});
    return k;
}

std::string identifier(const Json& v, const std::string& path, const std::string& what) {
    std::string s = as_string(v, path, "expected the name of " + what + " (a Python identifier)");
    check_identifier(s, path, "Python identifier");
    return s;
}

void read_transforms(const Json& v, const std::string& path, PythonReference& py) {
    const std::string expected = "expected an array of {\"input\": index, \"scale\": s, \"shift\": b} (x -> s*x + b, "
                                 "applied to floating inputs after get_inputs())";
    as_array(v, path, expected);
    for (size_t i = 0; i < v.size(); ++i) {
        const std::string p = index_path(path, i);
        check_object(v[i], p, {"input", "scale", "shift"}, "an input transform");
        int64_t input = as_int(require(v[i], p, "input", expected), child_path(p, "input"));
        if (input < 0) fail_at(child_path(p, "input"), "a negative input index", "expected an index >= 0");
        for (const char* k : {"scale", "shift"})
            if (const Json* x = find(v[i], k)) as_number(*x, child_path(p, k));
    }
    py.input_transforms = v;
}

}  // namespace

bool has_python_reference(const Json& doc) {
    const Json* r = doc.is_object() ? find(doc, "reference") : nullptr;
    if (!r || !r->is_object()) return false;
    const Json* l = find(*r, "language");
    return l && l->is_string() && l->get<std::string>() == "python";
}

void read_python_reference(const Json& v, const std::string& path, Task& t, const Limits& limits) {
    as_object(v, path, "expected the Python reference {\"language\": \"python\", \"source_file\": \"problem.py\", ...}");
    check_object(v, path, reference_keys(), "a Python reference");
    Program p;
    read_program_code(v, path, t.base_dir, "reference", p, limits, FileScope::any_regular_file);
    PythonReference py;
    if (const Json* s = find(v, "style")) {
        const std::string sp = child_path(path, "style");
        py.style = as_string(*s, sp);
        if (std::find(kStyles.begin(), kStyles.end(), py.style) == kStyles.end()) {
            std::string hint;
            if (auto near = closest(py.style, kStyles)) hint = "did you mean '" + *near + "'? ";
            fail_at(sp, "unknown style '" + py.style + "'", hint + "expected one of: " + join(kStyles));
        }
    }
    const bool kb = py.style == "kernelbench";
    py.entry = kb ? "Model" : "";
    py.candidate_entry = kb ? "ModelNew" : "";
    if (const Json* e = find(v, "entry")) py.entry = identifier(*e, child_path(path, "entry"), "the reference");
    if (py.entry.empty())
        fail_at(child_path(path, "entry"), "a TritonBench reference needs its test function",
                "expected \"entry\": \"test_<operator>\"");
    if (const Json* e = find(v, "candidate_entry"))
        py.candidate_entry = identifier(*e, child_path(path, "candidate_entry"), "the class a candidate defines");
    if (const Json* f = find(v, "candidate_functions")) {
        const std::string fp = child_path(path, "candidate_functions");
        as_array(*f, fp, "expected the names of the functions a candidate defines");
        for (size_t i = 0; i < f->size(); ++i)
            py.candidate_functions.push_back(identifier((*f)[i], index_path(fp, i), "a function"));
    }
    if (!kb && py.candidate_functions.empty())
        fail_at(child_path(path, "candidate_functions"), "a TritonBench reference names no function a candidate "
                                                         "defines",
                "expected the operator's wrapper functions the test calls, e.g. [\"relu\"]");
    if (const Json* g = find(v, "get_inputs")) py.get_inputs = identifier(*g, child_path(path, "get_inputs"), "a function");
    if (const Json* g = find(v, "get_init_inputs"))
        py.get_init_inputs = identifier(*g, child_path(path, "get_init_inputs"), "a function");
    if (const Json* ts = find(v, "test_source")) py.test_source = as_string(*ts, child_path(path, "test_source"));
    if (!kb && py.test_source.empty())
        fail_at(child_path(path, "test_source"), "a TritonBench reference has no test section",
                "expected the test function's code (the part after the line of 146 '#')");
    if (const Json* ps = find(v, "perf_source")) {
        const std::string pp = child_path(path, "perf_source");
        if (kb)
            fail_at(pp, "a KernelBench reference is timed on its own inputs",
                    "expected perf_source only in a TritonBench reference (its performance script)");
        py.perf_source = as_string(*ps, pp);
    }
    if (const Json* pr = find(v, "precision")) {
        const std::string pp = child_path(path, "precision");
        py.precision = as_dtype(*pr, pp);
        if (!dtype_is_float(py.precision))
            fail_at(pp, std::string(dtype_name(py.precision)) + " is not a floating dtype",
                    "expected f16, bf16, f32 or f64 (the dtype floating inputs and parameters are cast to)");
    }
    if (const Json* in = find(v, "inputs")) py.inputs = as_array(*in, child_path(path, "inputs"), "expected an array");
    if (const Json* out = find(v, "outputs")) py.outputs = as_array(*out, child_path(path, "outputs"), "expected an array");
    if (const Json* tr = find(v, "input_transforms")) read_transforms(*tr, child_path(path, "input_transforms"), py);
    t.reference = std::move(p);
    t.python = std::move(py);
}

Json python_reference_json(const Task& t) {
    const PythonReference& py = *t.python;
    Json j = Json::object();
    write_program_code(t.reference, j);
    j["style"] = py.style;
    j["entry"] = py.entry;
    if (!py.candidate_entry.empty()) j["candidate_entry"] = py.candidate_entry;
    if (!py.candidate_functions.empty()) j["candidate_functions"] = py.candidate_functions;
    if (py.style == "kernelbench") {
        j["get_inputs"] = py.get_inputs;
        j["get_init_inputs"] = py.get_init_inputs;
    }
    if (!py.test_source.empty()) j["test_source"] = py.test_source;
    if (!py.perf_source.empty()) j["perf_source"] = py.perf_source;
    j["precision"] = dtype_name(py.precision);
    if (!py.inputs.empty()) j["inputs"] = py.inputs;
    if (!py.outputs.empty()) j["outputs"] = py.outputs;
    if (!py.input_transforms.empty()) j["input_transforms"] = py.input_transforms;
    return j;
}

void read_program_section(const Json& v, const std::string& path, Task& t) {
    if (!t.python)
        fail_at(path, "the program section applies to tasks whose reference is Python",
                "expected \"reference\": {\"language\": \"python\", ...}, or no \"program\" section");
    check_object(v, path, kProgramKeys, "the program section {\"timing\"}");
    if (const Json* x = find(v, "timing")) t.program.timing = as_bool(*x, child_path(path, "timing"));
}

Json program_section_json(const Task& t) { return Json{{"timing", t.program.timing}}; }

void read_torch_compute(const Json& v, const std::string& path, Task& t) {
    const std::string expected = "expected one of: allow, report, forbid";
    std::string s = as_string(v, path, expected);
    if (std::find(kTorchCompute.begin(), kTorchCompute.end(), s) == kTorchCompute.end()) {
        std::string hint;
        if (auto near = closest(s, kTorchCompute)) hint = "did you mean '" + *near + "'? ";
        fail_at(path, "unknown rule '" + s + "'", hint + expected);
    }
    if (!t.python)
        fail_at(path, "torch_compute applies to tasks whose reference is Python (program candidates)",
                "expected no torch_compute in a task with a CUDA reference");
    t.program.torch_compute = s;
}

}  // namespace kb::taskjson

#include "engine/verdict.h"

namespace kb {
namespace {

struct Name {
    kb_verdict v;
    const char* name;
};

constexpr Name kNames[] = {
    {KB_VERDICT_NONE, "none"},
    {KB_VERDICT_PASS, "pass"},
    {KB_VERDICT_COMPILE_ERROR, "compile_error"},
    {KB_VERDICT_LAUNCH_ERROR, "launch_error"},
    {KB_VERDICT_RUNTIME_ERROR, "runtime_error"},
    {KB_VERDICT_TIMEOUT, "timeout"},
    {KB_VERDICT_WRONG_ANSWER, "wrong_answer"},
    {KB_VERDICT_INPUT_MODIFIED, "input_modified"},
    {KB_VERDICT_OUTPUT_NOT_WRITTEN, "output_not_written"},
    {KB_VERDICT_OUT_OF_BOUNDS_WRITE, "out_of_bounds_write"},
    {KB_VERDICT_NONDETERMINISTIC, "nondeterministic"},
    {KB_VERDICT_NO_CODE, "no_code"},
    {KB_VERDICT_POLICY_VIOLATION, "policy_violation"},
};

}  // namespace

const char* verdict_name(kb_verdict v) {
    for (const Name& n : kNames)
        if (n.v == v) return n.name;
    return "unknown";
}

kb_verdict verdict_from_name(const std::string& name) {
    for (const Name& n : kNames)
        if (name == n.name) return n.v;
    return KB_VERDICT_NONE;
}

}  // namespace kb

#include "oracles/oracle.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace kb::oracle {
namespace {

// A function-local static: registrations from other files' static
// initialisers may run before this file's.
std::map<std::string, Oracle>& registry() {
    static std::map<std::string, Oracle> r;
    return r;
}

}  // namespace

bool add(Oracle o) {
    if (o.task.empty() || !o.compute || !o.bound) throw std::logic_error("oracle::add: task, compute and bound are required");
    std::string name = o.task;
    if (!registry().emplace(name, std::move(o)).second)
        throw std::logic_error("oracle::add: a second oracle for task '" + name + "'");
    return true;
}

const Oracle* find(const std::string& task) {
    auto it = registry().find(task);
    return it == registry().end() ? nullptr : &it->second;
}

std::vector<std::string> names() {
    std::vector<std::string> out;
    for (const auto& kv : registry()) out.push_back(kv.first);
    return out;
}

bool within(double value, double truth, const Bound& b) {
    if (std::isnan(value) || std::isnan(truth)) return false;
    if (std::isinf(value) || std::isinf(truth)) return value == truth;
    return std::fabs(value - truth) <= b.atol + b.rtol * std::fabs(truth);
}

int64_t dim(const Dims& dims, const char* name) {
    auto it = dims.find(name);
    if (it == dims.end()) throw std::invalid_argument(std::string("oracle: missing dim '") + name + "'");
    if (it->second < 0) throw std::invalid_argument(std::string("oracle: negative dim '") + name + "'");
    return it->second;
}

const std::vector<double>& input(const Tensors& inputs, const char* name, int64_t expected) {
    auto it = inputs.find(name);
    if (it == inputs.end()) throw std::invalid_argument(std::string("oracle: missing input '") + name + "'");
    if (static_cast<int64_t>(it->second.size()) != expected)
        throw std::invalid_argument(std::string("oracle: input '") + name + "' has " +
                                    std::to_string(it->second.size()) + " elements, the dims give " +
                                    std::to_string(expected));
    return it->second;
}

}  // namespace kb::oracle

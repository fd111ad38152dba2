// JSON is nlohmann::json throughout the core; ordered_json keeps the field
// order of documents we write, so results read in the order they were built.
#pragma once

#include <nlohmann/json.hpp>

namespace kb {
using Json = nlohmann::ordered_json;
}  // namespace kb

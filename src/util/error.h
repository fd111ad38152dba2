// The one exception type inside the C++ core. The C boundary (src/capi)
// turns it into a kb_status plus the thread-local detail message; nothing
// else in the core needs to know about the C error model.
#pragma once

#include <stdexcept>
#include <string>

#include "kbench.h"

namespace kb {

class Error : public std::runtime_error {
public:
    Error(kb_status status, const std::string& message) : std::runtime_error(message), status_(status) {}
    kb_status status() const { return status_; }

private:
    kb_status status_;
};

[[noreturn]] inline void fail(kb_status status, const std::string& message) { throw Error(status, message); }

}  // namespace kb

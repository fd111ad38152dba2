// Reference runs of Python references, kept host-side per (task, case,
// seed, input mode, model seed): a second candidate neither has the
// reference worker make its inputs again nor rerun the problem. Least
// recently used first out past the byte budget.
#pragma once

#include "engine/python_workers.h"
#include "util/byte_budget_lru.h"

namespace kb {

class ProgramReferenceCache : public ByteBudgetLru<ProgramRunReply> {
public:
    explicit ProgramReferenceCache(size_t budget_bytes = size_t(2) << 30) : ByteBudgetLru(budget_bytes) {}
};

}  // namespace kb

// Verdict names as they appear in results ("pass", "wrong_answer", ...).
#pragma once

#include <string>

#include "kbench.h"

namespace kb {

const char* verdict_name(kb_verdict v);
// KB_VERDICT_NONE for names it does not know.
kb_verdict verdict_from_name(const std::string& name);

}  // namespace kb

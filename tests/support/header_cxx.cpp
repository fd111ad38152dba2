// Compiled as C++11 with -pedantic -Werror: the public header must serve C++
// programs too (extern "C", initialiser macros as aggregate initialisers).
#include "kbench.h"

#include <type_traits>

static_assert(std::is_standard_layout<kb_context_options>::value, "options structs are plain C structs");
static_assert(std::is_standard_layout<kb_score_options>::value, "options structs are plain C structs");

int kb_header_cxx_probe() {
    kb_context_options c = KB_CONTEXT_OPTIONS_INIT;
    kb_candidate d = KB_CANDIDATE_INIT;
    kb_time_options t = KB_TIME_OPTIONS_INIT;
    kb_score_options s = KB_SCORE_OPTIONS_INIT;
    // The functions have C linkage: taking their address as plain function
    // pointers must work.
    const char* (*name)(kb_status) = &kb_status_string;
    return int(c.version + d.version + t.version + s.version) + (name ? 1 : 0);
}

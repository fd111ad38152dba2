/* Compiled with -std=c99 -pedantic -Werror: the public header must be plain C. */
#include "kbench.h"

int kb_header_c99_probe(void) {
    kb_context_options c = KB_CONTEXT_OPTIONS_INIT;
    kb_candidate d = KB_CANDIDATE_INIT;
    kb_time_options t = KB_TIME_OPTIONS_INIT;
    kb_score_options s = KB_SCORE_OPTIONS_INIT;
    return (int)c.version + (int)d.version + (int)t.version + (int)s.version;
}

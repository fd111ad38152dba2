/*
 * The language-neutral half of kbench's SWIG interfaces, %included by
 * bindings/python/kbench.i and bindings/go/internal/capi/capi.swig. Each of
 * those adds its own typemaps for statuses, out-parameters and strings, then
 * %includes this file, which wraps include/kbench.h itself.
 *
 * What this file decides, and why:
 *  - Options structs (kb_context_options, kb_candidate, kb_time_options,
 *    kb_score_options) get a constructor that fills them with their ..._INIT
 *    value, so a binding can never send a wrong `version`, and a destructor.
 *    kb_limits starts with every default as a value (kb_limits_init), so a
 *    binding reads and scales the real numbers. kb_context_options.limits is
 *    read (copied) by kb_context_create only.
 *  - Their `const char*` members own a copy of what is assigned to them.
 *    SWIG's default for a const char* member copies the value and never frees
 *    it (warning 451); here assignment frees the previous copy and the
 *    destructor frees the last one. This is safe because these structs are
 *    only ever created by the constructors below, which start every member
 *    at NULL.
 *  - kb_candidate.code is binary (a cubin may hold NUL bytes), so it is set
 *    through set_code(bytes) with an explicit size instead of as a string.
 */

%{
#include <stdlib.h>
#include <string.h>

#include "kbench.h"

static char* kb_swig_strdup(const char* s) {
    size_t n;
    char* copy;
    if (!s) return NULL;
    n = strlen(s) + 1;
    copy = (char*)malloc(n);
    if (copy) memcpy(copy, s, n);
    return copy;
}
%}

/* Struct members of type const char* own their value (see above). */
/* uint64_t seeds, size_t sizes: plain integers in every language. */
%include <stdint.i>

%typemap(memberin) const char* {
    free((char*)$1);
    $1 = kb_swig_strdup($input);
}

/* Set through kb_candidate.set_code instead (binary, with a size). */
%ignore kb_candidate::code;
%ignore kb_candidate::code_size;

/* The C initialisers are replaced by the constructors below. */
%ignore kb_context_options_init;
%ignore kb_time_options_init;
%ignore kb_score_options_init;
%ignore kb_batch_options_init;
%ignore kb_limits_init;

%extend kb_context_options {
    kb_context_options() {
        kb_context_options init = KB_CONTEXT_OPTIONS_INIT;
        kb_context_options* o = (kb_context_options*)malloc(sizeof *o);
        if (o) *o = init;
        return o;
    }
    ~kb_context_options() {
        free((char*)$self->arch);
        free((char*)$self->cache_dir);
        free((char*)$self->cuda_home);
        free((char*)$self->worker_path);
        free($self);
    }
}

%extend kb_candidate {
    kb_candidate() {
        kb_candidate init = KB_CANDIDATE_INIT;
        kb_candidate* c = (kb_candidate*)malloc(sizeof *c);
        if (c) *c = init;
        return c;
    }
    ~kb_candidate() {
        free((char*)$self->code);
        free((char*)$self->path);
        free((char*)$self->launch_json);
        free((char*)$self->metadata_json);
        free((char*)$self->label);
        free($self);
    }
    /* Source text or a binary image; `size` bytes are copied. The copy is
     * NUL-terminated too, so text also reads correctly as a C string. */
    void set_code(const char* code_bytes, size_t code_len) {
        char* copy = (char*)malloc(code_len + 1);
        if (!copy) return;
        if (code_len) memcpy(copy, code_bytes, code_len);
        copy[code_len] = '\0';
        free((char*)$self->code);
        $self->code = copy;
        $self->code_size = code_len;
    }
}

%extend kb_time_options {
    kb_time_options() {
        kb_time_options init = KB_TIME_OPTIONS_INIT;
        kb_time_options* o = (kb_time_options*)malloc(sizeof *o);
        if (o) *o = init;
        return o;
    }
    ~kb_time_options() { free($self); }
}

%extend kb_score_options {
    kb_score_options() {
        kb_score_options init = KB_SCORE_OPTIONS_INIT;
        kb_score_options* o = (kb_score_options*)malloc(sizeof *o);
        if (o) *o = init;
        return o;
    }
    ~kb_score_options() {
        free((char*)$self->protocol);
        free((char*)$self->torch_compute);
        free($self);
    }
}

%extend kb_batch_options {
    kb_batch_options() {
        kb_batch_options init = KB_BATCH_OPTIONS_INIT;
        kb_batch_options* o = (kb_batch_options*)malloc(sizeof *o);
        if (o) *o = init;
        return o;
    }
    ~kb_batch_options() { free($self); }
}

%extend kb_limits {
    kb_limits() {
        kb_limits* l = (kb_limits*)malloc(sizeof *l);
        if (l && kb_limits_init(l, KB_LIMITS_VERSION) != KB_OK) {
            kb_limits init = KB_LIMITS_INIT;
            *l = init;
        }
        return l;
    }
    ~kb_limits() { free($self); }
}

%include "kbench.h"

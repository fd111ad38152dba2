/* The C interface of an oracle library: float64 implementations of tasks
 * that `kbench validate --oracle` checks references against. kbench's own
 * oracles (tests/oracles/, built as libkbench_oracles.so beside the kbench
 * executable) implement it; a project with tasks of its own can ship a
 * library with the same entry points and pass it with --oracles PATH.
 *
 * Values cross as doubles: inputs are the values kbench drew (f16, bf16 and
 * integers widened exactly), outputs are flattened row-major. Every call is
 * thread-compatible, not thread-safe. */
#ifndef KB_ORACLE_ABI_H
#define KB_ORACLE_ABI_H

#include <stddef.h>
#include <stdint.h>

#define KB_ORACLE_ABI_VERSION 1

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kb_oracle_dim {
    const char* name;
    int64_t value;
} kb_oracle_dim;

typedef struct kb_oracle_tensor {
    const char* name;
    const double* data;
    uint64_t count;
} kb_oracle_tensor;

/* Opaque: the outputs of one computation, or the error that stopped it. */
typedef struct kb_oracle_result kb_oracle_result;

/* KB_ORACLE_ABI_VERSION of the library. */
int kb_oracle_abi_version(void);
/* 1 when the library has an oracle for the task named `task`, else 0. */
int kb_oracle_has(const char* task);
/* Computes the task's outputs (every out/inout argument, by name) from its
 * inputs (every in/inout argument). Never NULL; check kb_oracle_result_error. */
kb_oracle_result* kb_oracle_compute(const char* task, const kb_oracle_dim* dims, size_t ndims,
                                    const kb_oracle_tensor* inputs, size_t ninputs);
/* NULL on success, else why the computation failed (valid until freed). */
const char* kb_oracle_result_error(const kb_oracle_result* r);
size_t kb_oracle_result_count(const kb_oracle_result* r);
/* Output i (0 <= i < count); its name and data stay valid until freed. */
kb_oracle_tensor kb_oracle_result_get(const kb_oracle_result* r, size_t i);
void kb_oracle_result_free(kb_oracle_result* r);
/* How far the task's reference may be from the oracle for `output` at these
 * dims: |ref - truth| <= atol + rtol * |truth|. 0 on success; otherwise -1
 * and a message in err (NUL-terminated, at most errlen bytes). */
int kb_oracle_bound(const char* task, const char* output, const kb_oracle_dim* dims, size_t ndims, double* atol,
                    double* rtol, char* err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* KB_ORACLE_ABI_H */

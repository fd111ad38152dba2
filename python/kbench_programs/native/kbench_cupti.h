/* libkbench_cupti: the CUPTI activity records kbench's Python program worker
 * reads through ctypes (kbench_attribution.py). Every kernel, memcpy and
 * memset of the process, on every stream, with its start and end in CUPTI's
 * clock (the clock kbc_now reads), its stream and its name.
 *
 * Not thread-safe against itself: one caller (the worker's main thread)
 * calls start, now, flush, take; CUPTI's own threads deliver buffers. */
#ifndef KBENCH_CUPTI_H
#define KBENCH_CUPTI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { KBC_KERNEL = 1, KBC_MEMCPY = 2, KBC_MEMSET = 3 };

typedef struct kbc_record {
    uint64_t start, end;  /* ns, CUPTI's clock */
    uint32_t kind;        /* KBC_* */
    uint32_t stream;      /* CUPTI's stream id */
    uint32_t device;
    uint32_t name_id;     /* kbc_name(name_id); memcpy/memset: 0 */
    uint64_t bytes;       /* memcpy/memset */
} kbc_record;

/* Enables the activity kinds; 0 on success, else see kbc_error(). */
int kbc_start(void);
const char* kbc_error(void);
/* CUPTI's timestamp now (ns): the clock of every record's start and end. */
uint64_t kbc_now(void);
/* Asks CUPTI to deliver every completed record (cuptiActivityFlushAll). */
int kbc_flush(void);
/* Moves up to `max` delivered records into `out`; returns how many. */
size_t kbc_take(kbc_record* out, size_t max);
/* A kernel's name by id ("" for 0 or an unknown id); valid for the process's life. */
const char* kbc_name(uint32_t name_id);
/* Records CUPTI dropped (buffers full). */
uint64_t kbc_dropped(void);

#ifdef __cplusplus
}
#endif
#endif

// The environment a device worker starts with: the host's, with its CUDA
// context limited to one hardware work queue (CUDA_DEVICE_MAX_CONNECTIONS=1)
// and its GPU the only one it sees (CUDA_VISIBLE_DEVICES).
//
// Why: the driver creates CUDA contexts one at a time across the whole
// machine (docs/isolation.md, "Standby after a loss"), and a context's
// hardware queues are most of what that creation does. A worker issues all
// its work on one stream, so the driver's default of eight queues buys it
// nothing. On an H100 host (bench/context_starts.c), eight fresh
// processes starting together get their contexts after 0.25-0.36 s with one
// queue, against 0.85-1.12 s with the default; one process alone, 0.06 s
// against 0.15 s.
//
// $KBENCH_WORKER_CUDA_CONNECTIONS=N (1-32) asks for N queues instead, and
// =inherit leaves the variable as the host has it (the driver's default
// when unset): both for measuring. Python program workers are not device
// workers here: a program may use several streams, and keeps the host's
// environment.
//
// Why one GPU: cuInit sets up every device a process sees, and the line the
// driver keeps for starts is machine-wide, so on a host with several GPUs
// each device worker's start waited for the set-up of GPUs it never uses. A
// worker for the host's device N gets the host's N-th CUDA_VISIBLE_DEVICES
// entry (N itself when the host has none), and is told to use its device 0.
// $KBENCH_WORKER_DEVICES=all lets it see every GPU the host sees, as before
// (for measuring).
#pragma once

#include <string>
#include <vector>

namespace kb {

struct DeviceWorkerEnvironment {
    std::vector<std::string> env;  // "NAME=value"
    int ordinal = 0;               // the device the worker is to open: 0 when it sees only its own
};

// `env` is a NULL-terminated array of "NAME=value" (the host's environ);
// `ordinal` is the host's CUDA ordinal of the worker's device. When the
// host's CUDA_VISIBLE_DEVICES has no entry at that place, the worker sees
// what the host sees and opens `ordinal` (CUDA reports the error it would).
// Throws kb::Error(KB_ERR_INVALID_ARGUMENT) naming the fix when
// $KBENCH_WORKER_CUDA_CONNECTIONS is neither a count from 1 to 32 nor
// "inherit", or $KBENCH_WORKER_DEVICES neither "own" nor "all".
DeviceWorkerEnvironment device_worker_environment(const char* const* env, int ordinal);

// Every kbench worker (device or compile) keeps its freed heap for the next
// request unless $KBENCH_WORKER_HEAP is `release` (worker_server/worker_heap.h).
// The worker cannot report a bad value where anyone would see it, so the host
// checks it before a start: throws kb::Error(KB_ERR_INVALID_ARGUMENT) naming
// the two values when it is set to anything else.
void check_worker_heap_setting(const char* const* env);

}  // namespace kb

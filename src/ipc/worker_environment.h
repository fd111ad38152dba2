// The environment a device worker starts with: the host's, with its CUDA
// context limited to one hardware work queue (CUDA_DEVICE_MAX_CONNECTIONS=1).
//
// Why: the driver creates CUDA contexts one at a time across the whole
// machine (docs/isolation.md, "Standby after a loss"), and a context's
// hardware queues are most of what that creation does. A worker issues all
// its work on one stream, so the driver's default of eight queues buys it
// nothing. On an H100 host (bench/RESULTS.md, session 22), eight fresh
// processes starting together got their contexts after 0.25-0.36 s with one
// queue, against 0.85-1.12 s with the default; one process alone, 0.06 s
// against 0.15 s.
//
// $KBENCH_WORKER_CUDA_CONNECTIONS=N (1-32) asks for N queues instead, and
// =inherit leaves the variable as the host has it (the driver's default
// when unset): both for measuring. Python program workers are not device
// workers here: a program may use several streams, and keeps the host's
// environment.
#pragma once

#include <string>
#include <vector>

namespace kb {

// `env` is a NULL-terminated array of "NAME=value" (the host's environ).
// Throws kb::Error(KB_ERR_INVALID_ARGUMENT) naming the fix when
// $KBENCH_WORKER_CUDA_CONNECTIONS is neither a count from 1 to 32 nor "inherit".
std::vector<std::string> device_worker_environment(const char* const* env);

// Every kbench worker (device or compile) keeps its freed heap for the next
// request unless $KBENCH_WORKER_HEAP is `release` (worker_server/worker_heap.h).
// The worker cannot report a bad value where anyone would see it, so the host
// checks it before a start: throws kb::Error(KB_ERR_INVALID_ARGUMENT) naming
// the two values when it is set to anything else.
void check_worker_heap_setting(const char* const* env);

}  // namespace kb

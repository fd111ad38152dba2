// Destroying several owners at once, each on a thread of its own: for what
// ends slowly and independently, such as worker processes that each free
// their device memory and their CUDA context before they exit (tens to
// hundreds of milliseconds each). One after another, a run's end waited for
// the sum; side by side it waits for the slowest.
#pragma once

#include <memory>
#include <thread>
#include <utility>
#include <vector>

namespace kb {

// Destroys every element of `owned` (unique_ptrs or other movable owners),
// each on its own thread, and returns when all are gone. An owner whose
// thread cannot start is destroyed here instead: never left alive.
template <class Owner>
void release_together(std::vector<Owner> owned) {
    std::vector<std::thread> ending;
    ending.reserve(owned.size());
    for (Owner& o : owned) {
        Owner mine = std::move(o);
        try {
            ending.emplace_back([gone = std::move(mine)]() mutable { Owner drop = std::move(gone); });
        } catch (...) {
            // std::thread could not start (std::system_error): the lambda,
            // and the owner it holds, are destroyed on this thread.
        }
    }
    for (std::thread& t : ending) t.join();
}

}  // namespace kb

// Compiles run below the GPU's host side: the calling thread's CPU priority, lowered for compiles
// that must never take a core from a judge timing on the GPU, and the nice values they use.
#pragma once

namespace kb::search {

// Compiles a round is waiting for: below the judge and the variant servers, whose host side
// (launches, synchronizations, the wall-clock check, the time to answer a sample request) is part
// of what is measured, above compiles that only may be needed.
inline constexpr int kRoundCompileNice = 10;
// Compiles run ahead on a guess (round 1's likely variants, later kernels' originals): lowest.
inline constexpr int kSpeculativeCompileNice = 19;

// Sets the calling thread's nice value to `nice` unless it is already higher (lower priority);
// the processes it starts afterwards (nvcc and its tools) inherit it. Raising it back would need
// a privilege, so a thread that lowered itself stays low: call it on threads made for the work.
// Returns the thread's nice value afterwards.
int lower_this_thread_priority(int nice);

}  // namespace kb::search

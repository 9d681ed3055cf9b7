// Runs n independent pieces of work on a bounded pool of threads and hands each result on in
// index order as soon as it and every earlier one are done: work that takes long in parallel, a
// report that reads as if it had run in sequence (`kernelbot check --compile`).
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace kb {

// Calls work(i) for i in [0, n) on at most `jobs` threads (at least 1), and on_ready(i, result)
// for i = 0, 1, ... in order, on the calling thread. Returns the results in index order. The
// first exception thrown by work or on_ready is rethrown after every started piece has ended;
// pieces not yet started then are skipped.
template <class T>
std::vector<T> run_ordered_parallel(size_t n, size_t jobs, const std::function<T(size_t)>& work,
                                    const std::function<void(size_t, const T&)>& on_ready = {}) {
  std::vector<std::optional<T>> done(n);
  std::mutex mutex;
  std::condition_variable ready;
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  std::exception_ptr failure;
  auto worker = [&] {
    for (size_t i; !stop && (i = next++) < n;) {
      try {
        T result = work(i);
        std::lock_guard<std::mutex> lock(mutex);
        done[i] = std::move(result);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!failure) failure = std::current_exception();
        stop = true;
      }
      ready.notify_all();
    }
  };
  std::vector<std::thread> threads;
  const size_t count = std::min(std::max<size_t>(1, jobs), std::max<size_t>(1, n));
  for (size_t t = 0; t < count; ++t) threads.emplace_back(worker);
  for (size_t i = 0; i < n; ++i) {
    std::unique_lock<std::mutex> lock(mutex);
    ready.wait(lock, [&] { return done[i].has_value() || failure; });
    if (failure) break;
    lock.unlock();
    if (on_ready) {
      try {
        on_ready(i, *done[i]);
      } catch (...) {
        std::lock_guard<std::mutex> guard(mutex);
        if (!failure) failure = std::current_exception();
        stop = true;
        break;
      }
    }
  }
  for (auto& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
  std::vector<T> out;
  out.reserve(n);
  for (auto& d : done) out.push_back(std::move(*d));
  return out;
}

}  // namespace kb

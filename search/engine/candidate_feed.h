// A round's candidates as the engine learns them. Ideas are implemented concurrently, and a
// model's replies take seconds each; the engine adds each idea's branches as soon as they are
// known, so the compile pool and the GPUs work on the first ones while the model still writes
// the rest, instead of waiting for the slowest reply of the round.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "search/types/search_types.h"

namespace kb::search {

class CandidateFeed {
 public:
  CandidateFeed() = default;
  // A feed of candidates known up front: already closed.
  explicit CandidateFeed(std::vector<CandidateRecord> candidates);
  CandidateFeed(const CandidateFeed&) = delete;
  CandidateFeed& operator=(const CandidateFeed&) = delete;

  // Adds a candidate and returns its index: its place in the runner's output order.
  size_t add(CandidateRecord candidate);
  // No more candidates will come; takers are woken. Safe to call twice.
  void close();

  // The next candidate not yet taken with its index, waiting while the feed is open;
  // nullopt once it is closed and every candidate was taken.
  std::optional<std::pair<size_t, CandidateRecord>> take();

  // How many candidates were added so far, and whether more may come.
  size_t size() const;
  bool closed() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<CandidateRecord> added_;
  size_t taken_ = 0;
  bool closed_ = false;
};

// Closes the feed when the scope ends, however it ends: a round pipeline waiting on an open feed would
// wait forever if the code feeding it threw.
class FeedCloser {
 public:
  explicit FeedCloser(CandidateFeed& feed) : feed_(feed) {}
  ~FeedCloser() { feed_.close(); }
  FeedCloser(const FeedCloser&) = delete;
  FeedCloser& operator=(const FeedCloser&) = delete;

 private:
  CandidateFeed& feed_;
};

}  // namespace kb::search

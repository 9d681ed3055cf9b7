#include "search/engine/candidate_feed.h"

namespace kb::search {

CandidateFeed::CandidateFeed(std::vector<CandidateRecord> candidates) : added_(std::move(candidates)), closed_(true) {}

size_t CandidateFeed::add(CandidateRecord candidate) {
  size_t index;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    index = added_.size();
    added_.push_back(std::move(candidate));
  }
  changed_.notify_one();
  return index;
}

void CandidateFeed::close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
  }
  changed_.notify_all();
}

std::optional<std::pair<size_t, CandidateRecord>> CandidateFeed::take() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return taken_ < added_.size() || closed_; });
  if (taken_ == added_.size()) return std::nullopt;
  const size_t index = taken_++;
  return std::make_pair(index, added_[index]);
}

size_t CandidateFeed::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return added_.size();
}

bool CandidateFeed::closed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return closed_;
}

}  // namespace kb::search

// Work on a bounded pool, results handed on in index order.
#include "common/ordered_parallel.h"

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <string>

namespace kb {
namespace {

TEST(OrderedParallel, HandsResultsOnInIndexOrderWhateverOrderTheyFinishIn) {
  std::vector<size_t> seen;
  std::atomic<int> running{0}, most{0};
  auto results = run_ordered_parallel<std::string>(
      8, 3,
      [&](size_t i) {
        int now = ++running;
        for (int m = most; now > m && !most.compare_exchange_weak(m, now);) {
        }
        // Early pieces take longest, so later ones finish first.
        std::this_thread::sleep_for(std::chrono::milliseconds(5 * (8 - static_cast<int>(i))));
        --running;
        return "k" + std::to_string(i);
      },
      [&](size_t i, const std::string& r) {
        EXPECT_EQ(r, "k" + std::to_string(i));
        seen.push_back(i);
      });
  EXPECT_EQ(seen, (std::vector<size_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  ASSERT_EQ(results.size(), 8u);
  EXPECT_EQ(results[7], "k7");
  EXPECT_LE(most.load(), 3) << "never more threads than jobs";
  EXPECT_GE(most.load(), 2) << "the work ran in parallel";
}

TEST(OrderedParallel, OneJobAndNoWorkAreFine) {
  EXPECT_TRUE(run_ordered_parallel<int>(0, 4, [](size_t) { return 1; }).empty());
  auto one = run_ordered_parallel<int>(3, 0, [](size_t i) { return static_cast<int>(i) * 2; });
  EXPECT_EQ(one, (std::vector<int>{0, 2, 4}));
}

TEST(OrderedParallel, AFailureIsRethrownAfterTheStartedWorkEnds) {
  std::atomic<int> finished{0};
  EXPECT_THROW(run_ordered_parallel<int>(6, 2,
                                         [&](size_t i) {
                                           if (i == 1) throw std::runtime_error("piece 1");
                                           std::this_thread::sleep_for(std::chrono::milliseconds(2));
                                           ++finished;
                                           return 0;
                                         }),
               std::runtime_error);
  EXPECT_LT(finished.load(), 6) << "pieces not started when one failed are skipped";
}

}  // namespace
}  // namespace kb

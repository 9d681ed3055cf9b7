#include "bot/job/publish_queue.h"

#include <gtest/gtest.h>

#include <future>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace kb::bot {
namespace {

TEST(PublishQueue, TasksRunInTheOrderPostedOnAnotherThreadWhileThePosterGoesOn) {
  std::promise<void> next_search_done;
  std::shared_future<void> search_done = next_search_done.get_future().share();
  std::mutex mutex;
  std::vector<int> order;
  std::thread::id ran_on;
  PublishQueue queue;
  queue.post([&] {
    search_done.wait();  // the first PR waits until the poster has moved on: post did not wait for it
    std::lock_guard lock(mutex);
    order.push_back(1);
    ran_on = std::this_thread::get_id();
  });
  queue.post([&] {
    std::lock_guard lock(mutex);
    order.push_back(2);
  });
  {
    std::lock_guard lock(mutex);
    EXPECT_TRUE(order.empty());
  }
  next_search_done.set_value();
  queue.post([&] {
    std::lock_guard lock(mutex);
    order.push_back(3);
  });
  queue.drain();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
  EXPECT_NE(ran_on, std::this_thread::get_id());
}

TEST(PublishQueue, DrainRethrowsTheFirstFailureAfterEveryTaskRan) {
  PublishQueue queue;
  int ran = 0;
  queue.post([&] {
    ++ran;
    throw std::runtime_error("the GPU vanished");
  });
  queue.post([&] {
    ++ran;
    throw std::runtime_error("a second failure");
  });
  queue.post([&] { ++ran; });
  try {
    queue.drain();
    ADD_FAILURE() << "drain() did not rethrow";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "the GPU vanished");
  }
  EXPECT_EQ(ran, 3);
  queue.drain();  // rethrown once
  queue.post([&] { ++ran; });
  queue.drain();
  EXPECT_EQ(ran, 4);
}

TEST(PublishQueue, WhatWasPostedIsFinishedWhenTheQueueEnds) {
  int ran = 0;
  {
    PublishQueue queue;
    for (int i = 0; i < 5; ++i)
      queue.post([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        ++ran;
      });
    queue.post([] { throw std::runtime_error("dropped by the destructor, not thrown from it"); });
  }
  EXPECT_EQ(ran, 5);
}

}  // namespace
}  // namespace kb::bot

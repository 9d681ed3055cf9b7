// Frames over a pipe: what one side writes the other reads whole, in one piece or byte by byte,
// and anything that is not a frame is refused rather than guessed at.
#include "common/frame_io.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <thread>

namespace {

struct Pipe {
  int fds[2] = {-1, -1};
  Pipe() { EXPECT_EQ(::pipe(fds), 0); }
  ~Pipe() {
    for (int fd : fds)
      if (fd >= 0) ::close(fd);
  }
  void close_write() { ::close(fds[1]), fds[1] = -1; }
};

}  // namespace

TEST(FrameIo, WhatIsWrittenIsReadWholeIncludingNewlinesAndEmptyFrames) {
  Pipe p;
  const std::string big(300000, 'x');  // more than a pipe holds: the reader must run meanwhile
  std::thread writer([&] {
    EXPECT_TRUE(kb::write_frame(p.fds[1], "one\ntwo\n"));
    EXPECT_TRUE(kb::write_frame(p.fds[1], ""));
    EXPECT_TRUE(kb::write_frame(p.fds[1], big));
    p.close_write();
  });
  std::string got;
  ASSERT_TRUE(kb::read_frame(p.fds[0], got, 1 << 20));
  EXPECT_EQ(got, "one\ntwo\n");
  ASSERT_TRUE(kb::read_frame(p.fds[0], got, 1 << 20));
  EXPECT_EQ(got, "");
  ASSERT_TRUE(kb::read_frame(p.fds[0], got, 1 << 20));
  EXPECT_EQ(got, big);
  writer.join();
  EXPECT_FALSE(kb::read_frame(p.fds[0], got, 1 << 20)) << "end of file";
}

TEST(FrameIo, MalformedTruncatedAndOversizedFramesAreRefused) {
  for (const std::string& bytes :
       {std::string("12x\nabc"), std::string("\nabc"), std::string("-1\n"), std::string("5\nabc"),
        std::string("99999999999999999999999\n"), std::string("11\nhello world")}) {
    Pipe p;
    ASSERT_EQ(::write(p.fds[1], bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
    p.close_write();
    std::string got;
    EXPECT_FALSE(kb::read_frame(p.fds[0], got, 10)) << bytes;
  }
}

TEST(FrameIo, TheReaderAssemblesFramesFromPiecesInAnyCut) {
  const std::string stream = "3\nabc0\n5\nhe\nlo";
  for (size_t cut = 1; cut < stream.size(); ++cut) {
    kb::FrameReader reader(100);
    std::vector<std::string> frames;
    for (size_t at = 0; at < stream.size(); at += cut) {
      reader.feed(stream.data() + at, std::min(cut, stream.size() - at));
      while (auto f = reader.next()) frames.push_back(*f);
    }
    EXPECT_EQ(frames, (std::vector<std::string>{"abc", "", "he\nlo"})) << "cut " << cut;
    EXPECT_FALSE(reader.malformed());
  }
  kb::FrameReader bad(100);
  bad.feed("hello\n", 6);
  EXPECT_FALSE(bad.next());
  EXPECT_TRUE(bad.malformed());
  kb::FrameReader too_big(4);
  too_big.feed("5\nhello", 7);
  EXPECT_FALSE(too_big.next());
  EXPECT_TRUE(too_big.malformed());
  kb::FrameReader endless(100);
  const std::string digits(40, '1');
  endless.feed(digits.data(), digits.size());
  EXPECT_FALSE(endless.next());
  EXPECT_TRUE(endless.malformed()) << "a header that never ends is not waited for";
}

#include "profiler/judge/wire/server_wire.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <thread>

namespace kb::judge {
namespace {

struct Pair {
  int judge = -1, server = -1;
  Pair() {
    int sv[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
    judge = sv[0];
    server = sv[1];
  }
  ~Pair() {
    if (judge >= 0) ::close(judge);
    if (server >= 0) ::close(server);
  }
};

// The job's text crosses in records of at most 64 KiB: several of them, an exact multiple, empty.
TEST(ServerWire, AJobTextCrossesWholeInChunks) {
  for (size_t size : {size_t{0}, size_t{10}, size_t{64 * 1024}, size_t{150 * 1024 + 7}}) {
    Pair p;
    std::string text(size, 'x');
    for (size_t i = 0; i < size; ++i) text[i] = static_cast<char>('a' + i % 26);
    std::thread sender([&] { EXPECT_TRUE(send_text(p.judge, text)); });
    std::string got;
    EXPECT_TRUE(receive_text(p.server, got, 1 << 20)) << size;
    sender.join();
    EXPECT_EQ(got, text) << size;
  }
}

TEST(ServerWire, ATextOverTheLimitOrCutShortIsRefused) {
  {
    Pair p;
    ASSERT_TRUE(send_text(p.judge, std::string(2000, 'x')));
    std::string got;
    EXPECT_FALSE(receive_text(p.server, got, 1000));
  }
  {
    Pair p;
    const uint64_t size = 100;
    ASSERT_EQ(::send(p.judge, &size, sizeof size, 0), static_cast<ssize_t>(sizeof size));
    ASSERT_EQ(::send(p.judge, "only ten b", 10, 0), 10);
    ::close(p.judge);
    p.judge = -1;
    std::string got;
    EXPECT_FALSE(receive_text(p.server, got, 1000)) << "a record shorter than the length said, then the end";
  }
}

TEST(ServerWire, ARequestAndItsReplyCrossIntact) {
  Pair p;
  Request r;
  r.op = Op::sample;
  r.value = 17;
  r.slot_count = 2;
  r.slots[0] = 1000;
  r.slots[1] = 1001;
  r.has_scalar[2] = 1;
  r.scalars[2] = 2.5;
  ASSERT_TRUE(send_request(p.judge, r));
  Request got;
  ASSERT_TRUE(receive_request(p.server, got));
  EXPECT_EQ(got.op, Op::sample);
  EXPECT_EQ(got.value, 17);
  EXPECT_EQ(got.slots[1], 1001);
  EXPECT_EQ(got.scalars[2], 2.5);
  ASSERT_TRUE(send_reply(p.server, make_reply(Status::ok, "", 4.25)));
  Reply reply;
  ASSERT_TRUE(receive_reply(p.judge, reply, 5, nullptr));
  EXPECT_EQ(reply.status, Status::ok);
  EXPECT_EQ(reply.value, 4.25);
}

TEST(ServerWire, ASilentServerTimesOut) {
  Pair p;
  Reply reply;
  bool timed_out = false;
  EXPECT_FALSE(receive_reply(p.judge, reply, 0.05, &timed_out));
  EXPECT_TRUE(timed_out);
}

TEST(ServerWire, ADeadServerIsNoReply) {
  Pair p;
  ::close(p.server);
  p.server = -1;
  Reply reply;
  bool timed_out = true;
  EXPECT_FALSE(receive_reply(p.judge, reply, 5, &timed_out));
  EXPECT_FALSE(timed_out);
  Request r;
  EXPECT_FALSE(send_request(p.judge, r));
}

TEST(ServerWire, RecordsOfTheWrongSizeOrMagicOrStatusAreRejected) {
  Pair p;
  const char junk[] = "kb-harness: candidate crashed: here is the token";
  ASSERT_EQ(::send(p.server, junk, sizeof junk, 0), static_cast<ssize_t>(sizeof junk));
  Reply reply;
  EXPECT_FALSE(receive_reply(p.judge, reply, 5, nullptr));

  Reply bad_magic = make_reply(Status::ok);
  bad_magic.magic = 0;
  ASSERT_TRUE(send_reply(p.server, bad_magic));
  EXPECT_FALSE(receive_reply(p.judge, reply, 5, nullptr));

  Reply bad_status = make_reply(Status::ok);
  std::memset(&bad_status.status, 0x7f, sizeof bad_status.status);
  ASSERT_TRUE(send_reply(p.server, bad_status));
  EXPECT_FALSE(receive_reply(p.judge, reply, 5, nullptr));

  // A longer record (the server writing more than a reply) is truncated and refused, not split.
  std::string big(sizeof(Reply) + 100, 'x');
  ASSERT_EQ(::send(p.server, big.data(), big.size(), 0), static_cast<ssize_t>(big.size()));
  EXPECT_FALSE(receive_reply(p.judge, reply, 5, nullptr));
}

TEST(ServerWire, NotesAreBoundedPrintableText) {
  Reply r = make_reply(Status::late_work, std::string("kernel \x1b[31mred\n") + std::string(2000, 'a'));
  const std::string note = untrusted_note(r, 40);
  EXPECT_EQ(note.size(), 40u);
  EXPECT_EQ(note.find('\x1b'), std::string::npos);
  EXPECT_EQ(note.find('\n'), std::string::npos);
  // An unterminated note from a hostile server stops at the record's end.
  std::memset(r.note, 'b', sizeof r.note);
  EXPECT_LE(untrusted_note(r, 5000).size(), kNoteBytes);
}

// CUDA IPC maps a buffer's whole allocation: the bind says where in it the buffer starts (its
// guard zone, plus the alignment pass's shift), per argument.
TEST(ServerWire, ABindCarriesEachBuffersOffsetIntoItsAllocation) {
  Pair p;
  Request r;
  r.op = Op::bind;
  r.slot_count = 1;
  r.slots[0] = 900;
  r.has_handle[0] = 1;
  r.has_handle[1] = 1;
  r.handles[1][63] = 0x5A;
  r.offsets[0] = 65536 + 4;
  r.offsets[1] = 65536;
  r.offsets[kMaxArgs - 1] = 65536 + 16;
  ASSERT_TRUE(send_request(p.judge, r));
  Request got;
  ASSERT_TRUE(receive_request(p.server, got));
  EXPECT_EQ(got.op, Op::bind);
  EXPECT_EQ(got.offsets[0], 65540u);
  EXPECT_EQ(got.offsets[1], 65536u);
  EXPECT_EQ(got.offsets[2], 0u);
  EXPECT_EQ(got.offsets[kMaxArgs - 1], 65552u);
  EXPECT_EQ(got.handles[1][63], 0x5A);
}

}  // namespace
}  // namespace kb::judge

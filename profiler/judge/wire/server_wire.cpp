#include "profiler/judge/wire/server_wire.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace kb::judge {
namespace {

bool send_all(int fd, const void* data, size_t n) {
  for (;;) {
    const ssize_t w = ::send(fd, data, n, MSG_NOSIGNAL);
    if (w == static_cast<ssize_t>(n)) return true;
    if (w < 0 && errno == EINTR) continue;
    return false;
  }
}

// One whole record of exactly `n` bytes (a SEQPACKET socket keeps record boundaries).
bool receive_record(int fd, void* data, size_t n, double timeout_s, bool* timed_out) {
  if (timed_out) *timed_out = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s < 0 ? 0 : timeout_s);
  for (;;) {
    if (timeout_s >= 0) {
      const double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
      pollfd p{fd, POLLIN, 0};
      const int ms = left <= 0 ? 0 : static_cast<int>(left * 1000) + 1;
      const int rc = ::poll(&p, 1, ms);
      if (rc < 0 && errno == EINTR) continue;
      if (rc == 0) {
        if (timed_out) *timed_out = true;
        return false;
      }
      if (rc < 0) return false;
    }
    const ssize_t got = ::recv(fd, data, n, MSG_TRUNC);
    if (got < 0 && errno == EINTR) continue;
    return got == static_cast<ssize_t>(n);
  }
}

}  // namespace

constexpr size_t kTextChunk = 64 * 1024;

bool send_text(int fd, const std::string& text) {
  const uint64_t size = text.size();
  if (!send_all(fd, &size, sizeof size)) return false;
  for (size_t at = 0; at < text.size(); at += kTextChunk)
    if (!send_all(fd, text.data() + at, std::min(kTextChunk, text.size() - at))) return false;
  return true;
}

bool receive_text(int fd, std::string& text, size_t max) {
  uint64_t size = 0;
  if (!receive_record(fd, &size, sizeof size, -1, nullptr) || size > max) return false;
  text.assign(size, '\0');
  for (size_t at = 0; at < size; at += kTextChunk)
    if (!receive_record(fd, text.data() + at, std::min<size_t>(kTextChunk, size - at), -1, nullptr)) return false;
  return true;
}

bool send_request(int fd, const Request& r) { return send_all(fd, &r, sizeof r); }
bool send_reply(int fd, const Reply& r) { return send_all(fd, &r, sizeof r); }

bool receive_request(int fd, Request& r) {
  if (!receive_record(fd, &r, sizeof r, -1, nullptr)) return false;
  return r.magic == kProtocolMagic && r.slot_count <= kMaxSlots;
}

bool receive_reply(int fd, Reply& r, double timeout_s, bool* timed_out) {
  if (!receive_record(fd, &r, sizeof r, timeout_s, timed_out)) return false;
  if (r.magic != kProtocolMagic) return false;
  const auto s = static_cast<uint32_t>(r.status);
  if (s < static_cast<uint32_t>(Status::ok) || s > static_cast<uint32_t>(Status::harness_error)) return false;
  r.note[kNoteBytes - 1] = '\0';
  return true;
}

Reply make_reply(Status s, const std::string& note, double value, double value2) {
  Reply r;
  r.status = s;
  r.value = value;
  r.value2 = value2;
  std::strncpy(r.note, note.c_str(), kNoteBytes - 1);
  return r;
}

std::string untrusted_note(const Reply& r, size_t max) {
  std::string out;
  for (size_t i = 0; i < kNoteBytes && r.note[i] != '\0' && out.size() < max; ++i) {
    const char c = r.note[i];
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  return out;
}

const char* to_string(Op op) {
  switch (op) {
    case Op::bind: return "bind";
    case Op::call: return "call";
    case Op::warm_up: return "warm-up";
    case Op::profile: return "profile";
    case Op::sample: return "sample";
    case Op::capture: return "capture";
    case Op::drop_graph: return "drop-graph";
    case Op::batch: return "batch";
    case Op::local_metrics: return "metrics";
    case Op::local_call: return "sanitizer call";
    case Op::unbind: return "unbind";
    case Op::quit: return "quit";
    case Op::renew: return "renew";
    case Op::graph_capture: return "graph capture";
    case Op::graph_replay: return "graph replay";
    case Op::concurrent: return "concurrent calls";
    case Op::ledger: return "ledger";
    case Op::set_scalars: return "set scalars";
    case Op::pending_error: return "call with an error pending";
    case Op::slice_call: return "a call on a slice of the GPU";
  }
  return "unknown";
}

}  // namespace kb::judge

// The wire between the judge (kernelbot-harness --job: loads no variant code) and a variant
// server (kernelbot-harness --serve: loads exactly one compiled variant). One request, one reply,
// fixed-size records over a SOCK_SEQPACKET socket pair: nothing the server sends is parsed as
// text, so a hostile candidate can at most send wrong numbers (the judge checks outputs itself and
// bounds the times from outside) or a bounded, sanitized note.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace kb::judge {

inline constexpr uint32_t kProtocolMagic = 0x4B42524E;  // "KBRN"
inline constexpr size_t kMaxArgs = 64;
inline constexpr size_t kMaxSlots = 256;       // argument sets named in one request
inline constexpr size_t kIpcHandleBytes = 64;  // sizeof(cudaIpcMemHandle_t)
inline constexpr size_t kNoteBytes = 1024;
inline constexpr size_t kMaxJobBytes = 64u << 20;  // a job's text, as send_text carries it

enum class Op : uint32_t {
  bind = 1,       // slot `slots[0]`: the buffers (IPC handles, offsets, counts) and scalars; `value`:
                  // the stream its launcher is given (StreamChoice, stream_choice.h)
  call,           // one call on slot `slots[0]`, waited for as a caller would; traced when `value` != 0
  warm_up,        // `value` calls on slots[0], then synchronize
  profile,        // `value` traced calls on slots[0]: GPU span, streams, kernel resources
  sample,         // one timed sample: `value` launches, launch k on slots[k % count]; graph if captured
  capture,        // capture `value` launches over the slots as a CUDA graph (replaces any earlier one)
  drop_graph,     // forget the captured graph
  batch,          // one call per slot, back to back, then a device synchronize (the judge's clock)
  local_metrics,  // CUPTI metrics of one call at `size_index`, on buffers of its own, seed `seed`
  local_call,     // one call at `size_index` on buffers of its own filled from `seed` (sanitizer runs)
  unbind,         // unmap `slots` (the judge frees their buffers next)
  quit,           // end; `value` kQuitDestroyingContext: first free everything and destroy the CUDA context
  renew,          // the original's server in a session: a new job's text follows (send_text); it
                  // drops its argument slots and timer and serves the new job with the same library
  graph_capture,  // capture one call on slots[0] in global mode and instantiate it (contract_calls.h)
  graph_replay,   // launch slots[0]'s captured graph and wait for it
  concurrent,     // one call on slots[0] and one on slots[1] at once; `value` 1: from two host threads
  ledger,         // `value` calls on slots[0] and the ledger of what they left behind (in the note)
  set_scalars,    // the request's scalars, for slots[0]'s later calls
  pending_error,  // one call on slots[0] with an error left pending; the note says what became of it
  slice_call,     // one call on slots[0] on a slice of at least `value` SMs (gpu_slice.h); reply value:
                  // the slice's SMs (0: no slice on this GPU, the note says why), value2: the GPU's
};

// quit's `value` under compute-sanitizer: the server frees its buffers and streams and destroys its
// CUDA context (cudaDeviceReset) before it answers. memcheck's leak check reports what is still
// allocated when a context is destroyed, and a server ends with _Exit, which destroys none: without
// this, the variant's leaks would never be reported. Sent after the last call, when no variant
// code runs any more.
inline constexpr int32_t kQuitDestroyingContext = 1;

// What the judge asks.
struct Request {
  uint32_t magic = kProtocolMagic;
  Op op = Op::quit;
  int32_t size_index = 0;
  int32_t value = 0;
  uint64_t seed = 0;
  uint32_t distribution = 0;
  uint32_t slot_count = 0;
  int32_t slots[kMaxSlots] = {};
  // bind: per argument, whether it is a buffer with a handle, whether a scalar value is set.
  uint8_t has_handle[kMaxArgs] = {};
  unsigned char handles[kMaxArgs][kIpcHandleBytes] = {};
  // bind: where each buffer starts in the allocation its handle maps (the judge's guard zone
  // before it, plus the alignment pass's shift): CUDA IPC maps whole allocations.
  uint64_t offsets[kMaxArgs] = {};
  // bind: each buffer's element count. The server's job holds only the configured size sets
  // (served_job.h): a bind names no size set, so verification's own sizes come as bare counts.
  uint64_t counts[kMaxArgs] = {};
  uint8_t has_scalar[kMaxArgs] = {};
  double scalars[kMaxArgs] = {};
  // No word of what the judge is doing (which trial, verifying or timing): the variant in the
  // server's process could read it. The judge names its phase in its own messages.
};

enum class Status : uint32_t {
  ok = 1,
  fault,          // the variant failed (launch refused, kb_launch returned non-zero): process still usable
  sticky_fault,   // the variant's fault lost the CUDA context: the server exits after this reply
  late_work,      // a traced call left work running after the caller's stream reported it done
  blocked,        // the launcher synchronizes inside: the sample was void (timed without the blocker next)
  harness_error,  // the server's own work failed (out of memory, CUPTI missing): not the variant's fault
};

// What the server answers. `note` is text from a process that ran variant code: the judge treats
// it as untrusted (printable ASCII only, bounded) and never builds a verdict from it alone.
struct Reply {
  uint32_t magic = kProtocolMagic;
  Status status = Status::ok;
  double value = 0;   // sample: us per launch; profile: GPU span us; capture: 1 when captured
  double value2 = 0;  // profile: 1 when every activity ran on the capture stream (TimedCalls::capture_stream)
  char note[kNoteBytes] = {};
};

// Blocking send/receive of one record. `timeout_s` < 0 waits forever. Receive returns false on
// end of file (the peer died), a timeout (sets *timed_out) or a malformed record; send returns
// false when the peer is gone.
bool send_request(int fd, const Request& r);
bool send_reply(int fd, const Reply& r);
bool receive_request(int fd, Request& r);
bool receive_reply(int fd, Reply& r, double timeout_s, bool* timed_out);

// The job a server is to run, sent once when the server has started: a length record, then the
// text in records of at most 64 KiB. receive_text waits forever and refuses texts over `max` bytes.
bool send_text(int fd, const std::string& text);
bool receive_text(int fd, std::string& text, size_t max);

// A reply with `note` set (truncated to fit).
Reply make_reply(Status s, const std::string& note = "", double value = 0, double value2 = 0);

// The note of a reply as text a judge may quote: printable ASCII, at most `max` characters.
std::string untrusted_note(const Reply& r, size_t max = 300);

const char* to_string(Op op);

}  // namespace kb::judge

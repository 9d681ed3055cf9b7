#include "profiler/judge/server/variant_server.h"

#include <cuda_runtime_api.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>

#include "profiler/judge/buffers/arg_inputs.h"
#include "profiler/judge/buffers/arg_set.h"
#include "profiler/judge/library/variant_library.h"
#include "profiler/judge/library/variant_setup.h"
#include "profiler/judge/runtime/cuda_check.h"
#include "profiler/judge/runtime/server_identity.h"
#include "profiler/judge/server/contract_calls.h"
#include "profiler/judge/server/gpu_slice.h"
#include "profiler/judge/server/launcher_stream.h"
#include "profiler/judge/server/timer.h"
#include "profiler/judge/server/traced_call.h"
#include "profiler/judge/tracing/api_ledger.h"
#include "profiler/judge/tracing/metrics_collector.h"
#include "profiler/judge/wire/server_wire.h"

namespace kb::judge {
namespace {

class Server {
 public:
  Server(const DecodedJob& job, EntryFn fn, Who who, const LauncherStream& stream, const BeforeTheCalls& before)
      : job_(job), fn_(fn), who_(who), stream_(stream), before_(before) {}
  ~Server() {
    for (const auto& [id, exec] : graphs_)
      if (exec) cudaGraphExecDestroy(exec);
  }
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  Reply handle(const Request& r) {
    switch (r.op) {
      case Op::bind: return bind(r);
      case Op::call: {
        ArgSet& a = slot(r.slots[0]);
        apply_scalars(r, a);
        ActivityMonitor* monitor = r.value != 0 ? &ActivityMonitor::instance() : nullptr;
        if (monitor) monitor->enable();
        const std::string late = run_and_check_streams(fn_, a.args(), who_, monitor, stream_, slot_stream(r.slots[0]));
        if (monitor) monitor->disable();
        return late.empty() ? make_reply(Status::ok) : make_reply(Status::late_work, late);
      }
      case Op::warm_up: timer().warm_up(calls(r), r.value); return make_reply(Status::ok);
      case Op::profile: {
        const CallProfile p = timer().profile_calls(calls(r), r.value);
        std::string kernels;
        for (const auto& rec : p.records)
          if (rec.kind == ActivityRecord::Kind::kernel) kernels += (kernels.empty() ? "" : ", ") + rec.name;
        return make_reply(Status::ok, p.note.empty() ? kernels : p.note, p.span_us, p.on_capture_stream ? 1 : 0);
      }
      case Op::capture: return make_reply(Status::ok, "", timer().capture(calls(r), r.value) ? 1 : 0);
      case Op::drop_graph: timer().drop_graph(); return make_reply(Status::ok);
      case Op::sample: {
        const SampleTime t = timer().sample(calls(r), r.value);
        return t.blocked ? make_reply(Status::blocked) : make_reply(Status::ok, "", t.us_per_launch);
      }
      case Op::batch: {
        const TimedCalls c = calls(r);
        for (const auto& slot : c.slots) call_variant(fn_, slot->args(), who_);
        CallScope scope(who_, "");
        check_variant_sync(cudaDeviceSynchronize(), who_, "");
        return make_reply(Status::ok);
      }
      case Op::graph_capture: {
        ArgSet& a = slot(r.slots[0]);
        apply_scalars(r, a);
        if (!stream_.given()) throw HarnessError("graph capture needs a stream argument");
        auto& exec = graphs_[r.slots[0]];
        return capture_one_call(fn_, who_, a, slot_handle(r.slots[0]), &exec);
      }
      case Op::graph_replay: {
        auto it = graphs_.find(r.slots[0]);
        if (it == graphs_.end()) throw HarnessError("no graph captured on that slot");
        return replay_graph(it->second, who_, slot_handle(r.slots[0]));
      }
      case Op::concurrent: {
        if (r.slot_count != 2) throw HarnessError("concurrent calls need two slots");
        ArgSet& a = slot(r.slots[0]);
        ArgSet& b = slot(r.slots[1]);
        return call_concurrently(fn_, who_, a, slot_handle(r.slots[0]), b, slot_handle(r.slots[1]), r.value != 0);
      }
      case Op::pending_error: {
        ArgSet& a = slot(r.slots[0]);
        apply_scalars(r, a);
        return call_with_error_pending(fn_, who_, a, slot_handle(r.slots[0]));
      }
      case Op::set_scalars: apply_scalars(r, slot(r.slots[0])); return make_reply(Status::ok);
      case Op::ledger: {
        ArgSet& a = slot(r.slots[0]);
        apply_scalars(r, a);
        return ledger_calls(fn_, who_, a, slot_handle(r.slots[0]), std::max(1, r.value), before_);
      }
      case Op::slice_call: return slice_call(r);
      case Op::local_metrics: return local_metrics(r);
      case Op::local_call: return local_call(r);
      case Op::unbind:
        for (uint32_t k = 0; k < r.slot_count; ++k) {
          drop_graph_of(r.slots[k]);
          slots_.erase(r.slots[k]);
          slot_streams_.erase(r.slots[k]);
        }
        return make_reply(Status::ok);
      case Op::quit: return make_reply(Status::ok);
      case Op::renew: break;  // serve_variant's own: it replaces the job and this Server with it
    }
    return make_reply(Status::harness_error, "unknown request");
  }

 private:
  Reply slice_call(const Request& r) {
    ArgSet& a = slot(r.slots[0]);
    apply_scalars(r, a);
    if (!slice_) {
      int device = 0;
      cuda_check(cudaGetDevice(&device), "reading the current device");
      std::string why;
      slice_ = GpuSlice::create(device, static_cast<unsigned>(std::max(1, r.value)), &why);
      if (!slice_) return make_reply(Status::ok, "no slice: " + why, 0);
    }
    struct HandBack {  // the slot's own stream again, however the call ends
      const LauncherStream& stream;
      ArgSet& set;
      StreamChoice choice;
      ~HandBack() { stream.bind(set, choice); }
    } hand_back{stream_, a, slot_stream(r.slots[0])};
    return call_on_slice(fn_, who_, a, *slice_);
  }

  Reply bind(const Request& r) {
    StreamChoice choice = StreamChoice::launcher_stream;
    if (!stream_choice_from_wire(r.value, choice)) return make_reply(Status::harness_error, "bind: no such stream");
    auto set = std::make_unique<ArgSet>(job_, r.counts, r.handles, r.has_handle, r.offsets);
    stream_.bind(*set, choice);
    apply_scalars(r, *set);
    slots_[r.slots[0]] = std::move(set);
    slot_streams_[r.slots[0]] = choice;
    return make_reply(Status::ok);
  }

  void apply_scalars(const Request& r, ArgSet& a) {
    for (size_t i = 0; i < job_.args.size() && i < kMaxArgs; ++i)
      if (r.has_scalar[i] && job_.args[i].is_value()) a.set_scalar(i, r.scalars[i]);
  }

  ArgSet& slot(int id) {
    auto it = slots_.find(id);
    if (it == slots_.end()) throw HarnessError("no argument slot " + std::to_string(id));
    return *it->second;
  }

  // The stream slot `id` passes its launcher (bind's choice).
  StreamChoice slot_stream(int id) const {
    auto it = slot_streams_.find(id);
    return it == slot_streams_.end() ? StreamChoice::launcher_stream : it->second;
  }

  // The stream slot `id`'s launcher is given (null: the legacy default stream).
  cudaStream_t slot_handle(int id) const { return stream_.handle(slot_stream(id)); }

  void drop_graph_of(int id) {
    auto it = graphs_.find(id);
    if (it == graphs_.end()) return;
    if (it->second) cudaGraphExecDestroy(it->second);
    graphs_.erase(it);
  }

  TimedCalls calls(const Request& r) {
    TimedCalls c;
    c.who = who_;
    c.fn = fn_;
    c.stream = stream_.handle(slot_stream(r.slots[0]));  // the judge binds every timed slot alike
    for (uint32_t k = 0; k < r.slot_count; ++k) c.slots.push_back(&slot(r.slots[k]));
    if (c.slots.empty()) throw HarnessError("a request without argument slots");
    return c;
  }

  SampleTimer& timer() {
    if (!timer_) timer_ = std::make_unique<SampleTimer>(job_.raw.bench.flush_l2);
    return *timer_;
  }

  // Buffers of its own, filled from the seed on the host: for runs whose outputs nobody compares
  // (hardware metrics, compute-sanitizer), where the judge's IPC buffers would only add tooling risk.
  std::unique_ptr<ArgSet> own_buffers(const Request& r) {
    const auto s = static_cast<size_t>(r.size_index);
    if (r.size_index < 0 || s >= job_.size_count()) throw HarnessError("no such size set");
    auto a = std::make_unique<ArgSet>(job_, s, std::vector<size_t>{}, ArgSet::Guards::none);
    stream_.bind(*a);
    const auto d = static_cast<Distribution>(r.distribution);
    for (size_t i = 0; i < job_.args.size(); ++i) {
      const auto& arg = job_.args[i];
      if (arg.is_read()) {
        HostBuffer data(a->bytes(i));
        fill_input(arg, s, d, r.seed, i, data.data(), a->count(i));
        a->upload(i, data);
      } else if (role_is_poisoned(arg.role)) {
        a->poison(i);
      } else if (arg.is_value() && arg.values[s].empty()) {
        a->set_scalar(i, random_scalar(arg.type, input_distribution(arg, d), r.seed, i));
      }
    }
    return a;
  }

  Reply local_call(const Request& r) {
    auto a = own_buffers(r);
    run_and_check_streams(fn_, a->args(), who_, nullptr, stream_);
    return make_reply(Status::ok);
  }

  Reply local_metrics(const Request& r) {
    auto a = own_buffers(r);
    call_variant(fn_, a->args(), who_);  // loads the modules outside the profiled call
    {
      CallScope scope(who_, "");
      check_variant_sync(cudaDeviceSynchronize(), who_, "");
    }
    TimedCalls c{who_, fn_, {a.get()}, stream_.handle()};
    const CallProfile profile = timer().profile_calls(c, 1);
    KernelMetrics m = collect_metrics(fn_, *a, who_, job_.raw.device);
    const ActivityRecord* longest = nullptr;
    int64_t kernels = 0;
    for (const auto& rec : profile.records) {
      if (rec.kind != ActivityRecord::Kind::kernel) continue;
      ++kernels;
      if (!longest || rec.end - rec.start > longest->end - longest->start) longest = &rec;
    }
    if (longest) {
      m.kernel_name = longest->name;
      m.registers_per_thread = longest->registers_per_thread;
      m.static_shared_bytes = longest->static_shared_bytes;
      m.dynamic_shared_bytes = longest->dynamic_shared_bytes;
      m.local_bytes_per_thread = longest->local_bytes_per_thread;
    }
    if (m.kernel_count == 0) m.kernel_count = kernels;
    m.size_label = job_.raw.size_labels[static_cast<size_t>(r.size_index)];
    // The metrics travel as JSON in the note; the judge parses them as untrusted numbers.
    std::string text = nlohmann::json(m).dump();
    if (text.size() >= kNoteBytes) {
      m.kernel_name = m.kernel_name.substr(0, 64);
      m.status = m.status.substr(0, 200);
      text = nlohmann::json(m).dump();
    }
    return make_reply(Status::ok, text);
  }

  const DecodedJob& job_;
  EntryFn fn_;
  Who who_;
  std::map<int, std::unique_ptr<ArgSet>> slots_;
  std::map<int, StreamChoice> slot_streams_;
  std::map<int, cudaGraphExec_t> graphs_;  // graph_capture's, per slot
  std::unique_ptr<GpuSlice> slice_;        // slice_call's, made at the first
  std::unique_ptr<SampleTimer> timer_;
  const LauncherStream& stream_;
  const BeforeTheCalls& before_;  // the settings before the library was loaded, and what loading did
};

}  // namespace

int serve_variant(int fd, int device) {
  const Who who = Who::variant;  // whose, the judge knows (server_identity.h)
  // The CUDA context first, before the job is read: a server the judge started ahead of its job
  // (a session's spare, spare_servers.h) has its context when the job comes. A failure is said in
  // the start-up reply, after the job, as before.
  std::string context_failure;
  try {
    cuda_check(cudaSetDevice(device), "selecting the CUDA device");
    cuda_check(cudaFree(nullptr), "creating the CUDA context");
  } catch (const std::exception& e) {
    context_failure = e.what();
  }
  std::string text;
  if (!receive_text(fd, text, kMaxJobBytes)) {
    // The judge is gone (then nobody reads this), or sent something that is not a job.
    send_reply(fd, make_reply(Status::harness_error, "could not read the job from the judge"));
    return kExitHarnessError;
  }
  DecodedJob job;
  std::unique_ptr<LauncherStream> stream;  // created before any variant code is loaded
  BeforeTheCalls before;                   // read then too (the citizen's ledger compares with it)
  try {
    job = parse_job(text, "the job from the judge");
    if (job.raw.device != device)
      throw HarnessError("the job is for device " + std::to_string(job.raw.device) + ", this server runs on device " +
                         std::to_string(device));
    if (!context_failure.empty()) throw HarnessError(context_failure);
    stream = std::make_unique<LauncherStream>(job);
    before.settings = device_settings(stream->handle());
  } catch (const std::exception& e) {
    send_reply(fd, make_reply(Status::harness_error, e.what()));
    return kExitHarnessError;
  }
  // First start-up reply, sent before any variant code runs: only this one may say the server
  // itself failed (a library's initializer could write any reply after it).
  if (!send_reply(fd, make_reply(Status::ok))) return kExitOk;
  const std::string library = job.raw.baseline_library;  // its own library, whoever it serves (served_job.h)
  VariantLibrary lib;
  try {
    CallScope scope(who, "loading " + library);
    // What the library's static initializers do through the CUDA API, for the citizen's ledger. A
    // window CUPTI refuses (a subscriber already there) leaves it unobserved, never unloaded.
    std::optional<ApiWindow> window;
    try {
      window.emplace();
    } catch (const HarnessError&) {
    }
    lib = load_variant_library(library);
    if (window) {
      const ResourceBalance b = window->balance();
      before.load = {window->first_call(), b.allocations, b.allocated_bytes};
    }
  } catch (const LibraryError& e) {
    send_reply(fd, make_reply(Status::fault, std::string("cannot load: ") + e.what()));
    return kExitOk;
  }
  // The library's one-time setup, before any call; its failure is the library's failure to load
  // (the original's: an infrastructure error, job_modes.cpp), said the same way by either server.
  if (const std::string failed = run_library_setup(lib.setup, who); !failed.empty()) {
    send_reply(fd, make_reply(Status::fault, "setup failed: " + failed));
    return kExitOk;
  }
  if (!send_reply(fd, make_reply(Status::ok))) return kExitOk;
  auto server = std::make_unique<Server>(job, lib.entry, who, *stream, before);
  for (;;) {
    Request r;
    if (!receive_request(fd, r)) return kExitOk;  // the judge is gone
    set_phase(std::string(to_string(r.op)) + " request");
    if (r.op == Op::renew) {
      // The next job of a session (judge_session.h): the same library and launcher, new sizes,
      // seeds and settings. Slots and timer belong to the old job and go with its Server.
      std::string next_text;
      if (!receive_text(fd, next_text, kMaxJobBytes)) return kExitOk;
      Reply reply = make_reply(Status::ok);
      try {
        DecodedJob next = parse_job(next_text, "the renewed job from the judge");
        if (next.raw.device != device || next.raw.baseline_library != library)
          throw HarnessError("a renewed job must keep the device and the library");
        server.reset();
        job = std::move(next);
        server = std::make_unique<Server>(job, lib.entry, who, *stream, before);
      } catch (const std::exception& e) {
        reply = make_reply(Status::harness_error, e.what());
      }
      if (!send_reply(fd, reply)) return kExitOk;
      continue;
    }
    if (r.op == Op::quit && r.value == kQuitDestroyingContext) {
      // What is still allocated when the context goes is the variant's: the server's own buffers
      // (local_call's) are gone after each call, its slots and streams go here.
      server.reset();
      stream.reset();
      cudaDeviceSynchronize();
      cudaDeviceReset();
      send_reply(fd, make_reply(Status::ok));
      return kExitOk;
    }
    Reply reply;
    bool sticky = false;
    try {
      reply = server->handle(r);
    } catch (const VariantFault& f) {
      sticky = f.sticky;
      reply = make_reply(f.sticky ? Status::sticky_fault : Status::fault, f.what());
    } catch (const std::exception& e) {
      reply = make_reply(Status::harness_error, e.what());
    }
    if (!send_reply(fd, reply) || r.op == Op::quit) return kExitOk;
    if (sticky) return kExitVariantContextLost;  // the judge prints the crash line, with its phase
  }
}

}  // namespace kb::judge

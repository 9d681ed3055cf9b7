// A real HTTP/1.1 server on 127.0.0.1 for tests of clients of remote APIs (the LLM endpoint,
// GitHub). Each test supplies a handler that plays the remote side, including its failures:
// error statuses with headers, slow replies, malformed bodies, connections closed mid-request.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace kb::testing {

struct LoopbackRequest {
  std::string method;
  std::string target;                          // path and query, as sent: "/repos/o/r/pulls?state=open"
  std::string path;                            // without the query
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
  double received_s = 0;  // steady-clock seconds when it had arrived in full (spacing checks)
};

struct LoopbackResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  double delay_s = 0;    // wait this long before answering (slow servers, timeouts)
  bool hang_up = false;  // close the connection without any answer
  // A streamed body (server-sent events): after the headers, each piece is sent once its delay
  // (seconds after the previous piece) has passed; no Content-Length, the connection closes after
  // the last. `body` is sent first when not empty.
  std::vector<std::pair<double, std::string>> stream = {};
};

class LoopbackHttpServer {
 public:
  using Handler = std::function<LoopbackResponse(const LoopbackRequest&)>;

  explicit LoopbackHttpServer(Handler handler);
  ~LoopbackHttpServer();
  LoopbackHttpServer(const LoopbackHttpServer&) = delete;
  LoopbackHttpServer& operator=(const LoopbackHttpServer&) = delete;

  int port() const { return port_; }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // Every request received so far, in order.
  std::vector<LoopbackRequest> requests() const;
  // The most requests that were ever being answered at once (a client that sends one at a time: 1).
  int max_in_flight() const { return max_in_flight_; }

 private:
  void accept_loop();
  void serve(int fd);

  Handler handler_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> in_flight_{0}, max_in_flight_{0};
  std::thread acceptor_;
  mutable std::mutex mutex_;
  std::vector<LoopbackRequest> requests_;
  std::vector<std::thread> workers_;
};

// A JSON response with the given status.
LoopbackResponse json_response(int status, const std::string& body,
                               std::vector<std::pair<std::string, std::string>> headers = {});

}  // namespace kb::testing

#include "tests/support/loopback_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <stdexcept>

namespace kb::testing {
namespace {

const char* reason_phrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 422: return "Unprocessable Entity";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    default: return "Status";
  }
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Reads until the headers end and Content-Length bytes of body arrived (or chunked ends).
bool read_request(int fd, LoopbackRequest& req) {
  std::string data;
  char buf[65536];
  size_t header_end = std::string::npos;
  size_t content_length = 0;
  bool chunked = false;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    if (header_end != std::string::npos) {
      if (!chunked && data.size() >= header_end + 4 + content_length) break;
      if (chunked && data.find("\r\n0\r\n\r\n", header_end) != std::string::npos) break;
    }
    if (std::chrono::steady_clock::now() > deadline) return false;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) continue;
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return false;
    data.append(buf, static_cast<size_t>(n));
    if (header_end == std::string::npos && (header_end = data.find("\r\n\r\n")) != std::string::npos) {
      size_t line_end = data.find("\r\n");
      std::string request_line = data.substr(0, line_end);
      size_t sp1 = request_line.find(' ');
      size_t sp2 = request_line.find(' ', sp1 + 1);
      req.method = request_line.substr(0, sp1);
      req.target = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
      req.path = req.target.substr(0, req.target.find('?'));
      size_t pos = line_end + 2;
      while (pos < header_end) {
        size_t end = data.find("\r\n", pos);
        std::string line = data.substr(pos, end - pos);
        size_t colon = line.find(':');
        if (colon != std::string::npos) {
          std::string value = line.substr(colon + 1);
          value.erase(0, value.find_first_not_of(' '));
          req.headers[lower(line.substr(0, colon))] = value;
        }
        pos = end + 2;
      }
      if (auto it = req.headers.find("content-length"); it != req.headers.end())
        content_length = std::stoul(it->second);
      chunked = lower(req.headers["transfer-encoding"]) == "chunked";
    }
  }
  std::string raw = data.substr(header_end + 4);
  if (!chunked) {
    req.body = raw.substr(0, content_length);
    return true;
  }
  // De-chunk.
  size_t pos = 0;
  while (pos < raw.size()) {
    size_t line_end = raw.find("\r\n", pos);
    size_t size = std::stoul(raw.substr(pos, line_end - pos), nullptr, 16);
    if (size == 0) break;
    req.body += raw.substr(line_end + 2, size);
    pos = line_end + 2 + size + 2;
  }
  return true;
}

void send_all(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;
    sent += static_cast<size_t>(n);
  }
}

}  // namespace

LoopbackHttpServer::LoopbackHttpServer(Handler handler) : handler_(std::move(handler)) {
  listen_fd_ = socket(AF_INET, SOCK_STREAM, 0);
  if (listen_fd_ < 0) throw std::runtime_error("loopback server: socket() failed");
  int one = 1;
  setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(listen_fd_, 64) != 0) {
    close(listen_fd_);
    throw std::runtime_error("loopback server: cannot listen on 127.0.0.1");
  }
  socklen_t len = sizeof addr;
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
}

LoopbackHttpServer::~LoopbackHttpServer() {
  stopping_ = true;
  acceptor_.join();
  close(listen_fd_);
  std::vector<std::thread> workers;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    workers.swap(workers_);
  }
  for (auto& w : workers) w.join();
}

std::vector<LoopbackRequest> LoopbackHttpServer::requests() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return requests_;
}

void LoopbackHttpServer::accept_loop() {
  while (!stopping_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    int fd = accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) continue;
    std::lock_guard<std::mutex> lock(mutex_);
    workers_.emplace_back([this, fd] { serve(fd); });
  }
}

void LoopbackHttpServer::serve(int fd) {
  LoopbackRequest req;
  if (!read_request(fd, req)) {
    close(fd);
    return;
  }
  req.received_s = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  int now_in_flight = ++in_flight_;
  for (int seen = max_in_flight_; now_in_flight > seen && !max_in_flight_.compare_exchange_weak(seen, now_in_flight);) {
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    requests_.push_back(req);
  }
  LoopbackResponse resp = handler_(req);
  // A delay is sliced so that destroying the server does not wait for the whole of it.
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(resp.delay_s);
  while (!stopping_ && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  // A request stops counting as in flight just before its response's last bytes leave: a client
  // that has read them may send its next request at once, and must not find this one still counted.
  bool counted = true;
  auto done = [&] {
    if (counted) --in_flight_;
    counted = false;
  };
  if (!resp.hang_up && !stopping_) {
    std::string out = "HTTP/1.1 " + std::to_string(resp.status) + " " + reason_phrase(resp.status) + "\r\n";
    for (const auto& [name, value] : resp.headers) out += name + ": " + value + "\r\n";
    if (resp.stream.empty()) {
      out += "Content-Length: " + std::to_string(resp.body.size()) + "\r\nConnection: close\r\n\r\n" + resp.body;
      done();
      send_all(fd, out);
    } else {
      send_all(fd, out + "Connection: close\r\n\r\n" + resp.body);  // the body ends when the connection does
      for (const auto& [delay_s, piece] : resp.stream) {
        auto at = std::chrono::steady_clock::now() + std::chrono::duration<double>(delay_s);
        while (!stopping_ && std::chrono::steady_clock::now() < at)
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
        if (stopping_) break;
        send_all(fd, piece);
      }
    }
  }
  done();  // a streamed body or a hang-up: the client learns that it ended at the shutdown
  shutdown(fd, SHUT_RDWR);
  close(fd);
}

LoopbackResponse json_response(int status, const std::string& body,
                               std::vector<std::pair<std::string, std::string>> headers) {
  headers.emplace_back("Content-Type", "application/json; charset=utf-8");
  return LoopbackResponse{status, std::move(headers), body, 0, false};
}

}  // namespace kb::testing

//===- MetricsServer.cpp - Prometheus metrics over HTTP -------------------===//

#include "runtime/MetricsServer.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace energy {
namespace rt {

bool MetricsServer::start(const std::string &address, int port,
                          std::function<std::string()> body, std::string &err) {
  stop();
  inUse = false;
  if (port < 0 || port > 65535) {
    err = "metrics port " + std::to_string(port) + " outside 0-65535";
    return false;
  }
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(uint16_t(port));
  if (inet_pton(AF_INET, address.c_str(), &sa.sin_addr) != 1) {
    err = "metrics address '" + address + "' is not an IPv4 address";
    return false;
  }
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    err = std::string("metrics socket: ") + std::strerror(errno);
    return false;
  }
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(fd, reinterpret_cast<sockaddr *>(&sa), sizeof sa) != 0 ||
      listen(fd, 8) != 0) {
    inUse = errno == EADDRINUSE;
    err = "metrics on " + address + ":" + std::to_string(port) + ": " +
          std::strerror(errno);
    close(fd);
    return false;
  }
  socklen_t len = sizeof sa;
  getsockname(fd, reinterpret_cast<sockaddr *>(&sa), &len);
  listener = fd;
  bound = ntohs(sa.sin_port);
  render = std::move(body);
  stopping = false;
  thread = std::thread([this] { serve(); });
  return true;
}

void MetricsServer::stop() {
  stopping = true;
  if (thread.joinable())
    thread.join();
  if (listener >= 0)
    close(listener);
  listener = -1;
  bound = -1;
}

void MetricsServer::forgetAfterFork() {
  new (&thread) std::thread(); // the parent's thread object, not destroyed
  if (listener >= 0)
    close(listener);
  listener = -1;
  bound = -1;
}

namespace {
void sendAll(int fd, const std::string &s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (n <= 0)
      return;
    off += size_t(n);
  }
}
} // namespace

void MetricsServer::serve() {
  while (!stopping) {
    pollfd p{listener, POLLIN, 0};
    if (poll(&p, 1, 200) <= 0)
      continue; // timeout (check stopping) or EINTR
    int c = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0)
      continue;
    timeval tv{2, 0};
    setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    std::string req;
    char buf[1024];
    while (req.find("\r\n\r\n") == std::string::npos && req.size() < 8192) {
      ssize_t n = recv(c, buf, sizeof buf, 0);
      if (n <= 0)
        break;
      req.append(buf, size_t(n));
    }
    std::string line = req.substr(0, req.find("\r\n"));
    std::string status, body, type = "text/plain; charset=utf-8";
    // A scrape config's `params` arrive as a query string: still /metrics.
    bool head = line.rfind("HEAD ", 0) == 0;
    std::string path = line.substr(line.find(' ') + 1);
    if ((head || line.rfind("GET ", 0) == 0) &&
        (path.rfind("/metrics ", 0) == 0 || path == "/metrics" ||
         path.rfind("/metrics?", 0) == 0)) {
      status = "200 OK";
      body = render();
      type = "text/plain; version=0.0.4; charset=utf-8";
      if (body.rfind("# energy_rt: ", 0) == 0) {
        status = "503 Service Unavailable";
        type = "text/plain; charset=utf-8";
      }
    } else if (req.size() >= 8192) {
      status = "431 Request Header Fields Too Large";
      body = "request too large\n";
    } else {
      status = "404 Not Found";
      body = "energy_rt serves GET and HEAD /metrics only\n";
    }
    sendAll(c, "HTTP/1.0 " + status + "\r\nContent-Type: " + type +
                   "\r\nContent-Length: " + std::to_string(body.size()) +
                   "\r\nConnection: close\r\n\r\n" + (head ? "" : body));
    close(c);
  }
}

} // namespace rt
} // namespace energy

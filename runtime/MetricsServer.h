//===- MetricsServer.h - Prometheus metrics over HTTP, opt-in ---*- C++ -*-===//
//
// A minimal HTTP/1.0 server on one thread for Prometheus scrapes: GET
// /metrics answers the text exposition format the C API renders
// (er_write_metrics writes the same text to a file); anything else is 404.
// Opt-in (ENERGY_RT_METRICS_PORT), bound to 127.0.0.1 unless
// ENERGY_RT_METRICS_ADDRESS says otherwise; one connection at a time, a
// 2 s read timeout, requests over 8 KiB refused, so a slow or hostile
// client cannot hold the job.
//
//===----------------------------------------------------------------------===//

#ifndef RUNTIME_METRICSSERVER_H
#define RUNTIME_METRICSSERVER_H

#include <atomic>
#include <functional>
#include <new>
#include <string>
#include <thread>

namespace energy {
namespace rt {

class MetricsServer {
public:
  ~MetricsServer() { stop(); }
  /// Binds `address:port` (port 0: any free one) and starts serving `body`.
  /// A body that begins "# energy_rt: " says why there are no metrics now
  /// (busy, shut down): served as 503, so that a scraper does not read an
  /// empty exposition as every series gone.
  bool start(const std::string &address, int port,
             std::function<std::string()> body, std::string &err);
  /// After a failed start(): whether the port was taken (another process
  /// serves on it), as against a bad address or port.
  bool portInUse() const { return inUse; }
  /// Stops the thread and closes the socket (idempotent).
  void stop();
  /// The bound port, or -1 when not serving.
  int port() const { return bound; }
  /// In a child after fork(): the serving thread is the parent's (not
  /// here); forget it without join or detach, and close the child's copy
  /// of the socket so that only the parent holds the port.
  void forgetAfterFork();

private:
  void serve();
  std::function<std::string()> render;
  std::thread thread;
  std::atomic<bool> stopping{false};
  int listener = -1;
  bool inUse = false;
  int bound = -1;
};

} // namespace rt
} // namespace energy

#endif // RUNTIME_METRICSSERVER_H

// Streams (ordered queues of copies and launches) and events, after Numba's stream API.
#pragma once

#include <memory>

#include "rocjit/runtime/device.hpp"

namespace rocjit {

namespace runtime {
class StreamImpl;
class EventImpl;
}  // namespace runtime

class Event;

/// How a stream made by stream() relates to the default stream.
struct StreamOptions {
  /// false (the default): a blocking stream, as hipStreamDefault/cudaStreamDefault: an operation
  /// on the default stream first waits for all work enqueued on it. true: the stream opts out
  /// (hipStreamNonBlocking), and work on it may overlap default-stream work.
  bool non_blocking = false;
};

/// An ordered queue on one device. The default stream (Stream() / default_stream()) is
/// synchronous like Numba's: work on it has finished when the call returns. It has HIP's and
/// CUDA's legacy semantics: each of its operations starts after all work enqueued before it on
/// the device's blocking streams, and since it finishes before the call returns, work enqueued
/// afterwards on any stream starts after it. Streams made with stream() are asynchronous on every
/// device.
class Stream {
 public:
  Stream() = default;
  /// Wraps a backend stream.
  explicit Stream(std::shared_ptr<runtime::StreamImpl> impl);

  /// Waits until everything enqueued so far has finished (rethrows the first failure).
  void synchronize() const;
  /// Makes later work on this stream wait for `e`.
  void wait(const Event& e) const;
  /// The device it runs on.
  Device device() const;
  /// Whether it is the device's default stream.
  bool is_default() const;
  /// Whether it was made with StreamOptions::non_blocking (the default stream: false).
  bool is_non_blocking() const;
  /// The native stream: the hipStream_t (as void*) on HIP and simulator devices, where the
  /// default stream is HIP's null stream (nullptr); nullptr on the CPU and the interpreter, whose
  /// streams are rocjit's own queues. Valid while the Stream lives.
  void* native_handle() const;

  /// RAII scope that synchronises the stream when it ends: `{ auto s = st.auto_synchronize(); ... }`
  [[nodiscard]] class AutoSynchronize auto_synchronize() const;

  /// Whether this names a stream.
  explicit operator bool() const { return impl_ != nullptr; }
  /// The backend stream.
  runtime::StreamImpl& impl() const;
  /// The shared backend stream.
  const std::shared_ptr<runtime::StreamImpl>& impl_ptr() const { return impl_; }

 private:
  std::shared_ptr<runtime::StreamImpl> impl_;
  /// A device holds its default stream, and the default stream refers to the device weakly; a
  /// handle keeps the device alive while the user holds it.
  std::shared_ptr<runtime::DeviceImpl> device_;
};

/// Synchronises its stream when the scope ends (Numba's `with stream.auto_synchronize():`).
class AutoSynchronize {
 public:
  /// Synchronises `s` when it goes out of scope.
  explicit AutoSynchronize(Stream s) : stream_(std::move(s)) {}
  ~AutoSynchronize() noexcept(false);
  AutoSynchronize(const AutoSynchronize&) = delete;
  AutoSynchronize& operator=(const AutoSynchronize&) = delete;

 private:
  Stream stream_;
};

inline AutoSynchronize Stream::auto_synchronize() const { return AutoSynchronize(*this); }

/// A new asynchronous, blocking stream on `device` (default: the default device).
Stream stream(const Device& device = {});
/// A new asynchronous stream with `options` (`stream({.non_blocking = true})`).
Stream stream(const StreamOptions& options, const Device& device = {});
/// The synchronous default stream of `device`.
Stream default_stream(const Device& device = {});

/// A point in a stream: record it, wait for it, time between two of them.
class Event {
 public:
  Event() = default;
  /// Wraps a backend event.
  explicit Event(std::shared_ptr<runtime::EventImpl> impl) : impl_(std::move(impl)) {}
  /// Enqueues the event on `s`; it completes when everything before it on `s` has.
  void record(const Stream& s = {}) const;
  /// Waits until the work recorded before the event is done.
  void synchronize() const;
  bool query() const;  ///< completed?
  /// Milliseconds between two completed events.
  float elapsed_time(const Event& later) const;
  /// The backend event.
  runtime::EventImpl& impl() const;
  /// Streams hold the implementation until they have reached the event, so an Event may be
  /// dropped right after record() or Stream::wait().
  const std::shared_ptr<runtime::EventImpl>& impl_ptr() const { return impl_; }

 private:
  std::shared_ptr<runtime::EventImpl> impl_;
};

/// A new event on `device` (default: the default device).
Event event(const Device& device = {});

}  // namespace rocjit

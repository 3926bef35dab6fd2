// Tests change rocjit's settings through the API (never setenv): ScopedSettings changes them for
// one scope and puts the previous ones back; LogCapture collects the library's messages instead
// of letting them reach stderr.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "rocjit/settings.hpp"

namespace rocjit::testing {

struct ScopedSettings {
  Settings saved = settings();
  explicit ScopedSettings(const std::function<void(Settings&)>& change) { update_settings(change); }
  ~ScopedSettings() { set_settings(saved); }
  ScopedSettings(const ScopedSettings&) = delete;
  ScopedSettings& operator=(const ScopedSettings&) = delete;
};

struct LogCapture {
  mutable std::mutex lock;
  std::vector<std::pair<LogLevel, std::string>> messages;
  LogCapture() {
    set_log_handler([this](LogLevel level, std::string_view message) {
      std::lock_guard<std::mutex> g(lock);
      messages.emplace_back(level, std::string(message));
    });
  }
  ~LogCapture() { set_log_handler(nullptr); }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;
  // The messages of `level` containing `text`.
  size_t count(LogLevel level, const std::string& text) const {
    std::lock_guard<std::mutex> g(lock);
    size_t n = 0;
    for (const auto& [l, m] : messages) n += l == level && m.find(text) != std::string::npos;
    return n;
  }
  bool has(LogLevel level, const std::string& text) const { return count(level, text) > 0; }
  size_t size() const {
    std::lock_guard<std::mutex> g(lock);
    return messages.size();
  }
};

}  // namespace rocjit::testing

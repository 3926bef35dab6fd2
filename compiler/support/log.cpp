// The log sink: every message of the library goes through support::log to the handler
// (set_log_handler), stderr by default.
#include "rocjit/support/log.h"

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "rocjit/support/settings.h"

namespace rocjit {
namespace {

struct Sink {
  std::mutex lock;
  std::shared_ptr<const LogHandler> handler;  // under lock; null: stderr
  std::shared_ptr<const PrintHandler> print;  // under lock; null: stdout
};

// Never destroyed: messages may come while the process exits (the time trace is written then).
Sink& sink() {
  static Sink* const s = new Sink;
  return *s;
}

// One write per message, so that lines from several threads do not interleave.
void write_to_stderr(LogLevel level, std::string_view message) {
  const std::string line = fmt::format("rocjit: {}: {}\n", log_level_name(level), message);
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace

std::string_view log_level_name(LogLevel level) {
  switch (level) {
    case LogLevel::error: return "error";
    case LogLevel::warning: return "warning";
    case LogLevel::info: return "info";
    case LogLevel::debug: return "debug";
  }
  return "?";
}

void set_log_handler(LogHandler handler) {
  auto shared = handler ? std::make_shared<const LogHandler>(std::move(handler)) : nullptr;
  Sink& s = sink();
  std::lock_guard<std::mutex> g(s.lock);
  s.handler.swap(shared);
}  // the previous handler is released here, outside the lock

void set_print_handler(PrintHandler handler) {
  auto shared = handler ? std::make_shared<const PrintHandler>(std::move(handler)) : nullptr;
  Sink& s = sink();
  std::lock_guard<std::mutex> g(s.lock);
  s.print.swap(shared);
}

namespace support {

void print_output(std::string_view text) {
  std::shared_ptr<const PrintHandler> handler;
  {
    Sink& s = sink();
    std::lock_guard<std::mutex> g(s.lock);
    handler = s.print;
  }
  if (!handler) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return;
  }
  try {
    (*handler)(text);
  } catch (...) {  // output must never become a failure of the launch that printed
  }
}

bool log_enabled(LogLevel level) {
  return static_cast<int>(level) <= static_cast<int>(current_settings()->log_level);
}

void log_message(LogLevel level, std::string_view message) {
  std::shared_ptr<const LogHandler> handler;
  {
    Sink& s = sink();
    std::lock_guard<std::mutex> g(s.lock);
    handler = s.handler;
  }
  if (!handler) return write_to_stderr(level, message);
  try {
    (*handler)(level, message);
  } catch (...) {  // a message must never become a failure of what logged it
  }
}

}  // namespace support
}  // namespace rocjit

// The library's one way to say something: support::log(level, format, args...) (fmt syntax)
// hands the message to the log handler (rocjit/settings.hpp: set_log_handler) when `level` is at
// or above Settings::log_level. Nothing in the library writes to stderr itself.
#pragma once

#include <fmt/format.h>

#include <string_view>
#include <utility>

#include "rocjit/settings.hpp"

namespace rocjit::support {

// Whether a message of `level` would be delivered now.
bool log_enabled(LogLevel level);
// Delivers `message` to the handler (whatever the level threshold: callers check log_enabled).
void log_message(LogLevel level, std::string_view message);

// Delivers device print output (one record's text) to the print handler (set_print_handler).
void print_output(std::string_view text);

template <class... Args>
void log(LogLevel level, fmt::format_string<Args...> format, Args&&... args) {
  if (log_enabled(level)) log_message(level, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace rocjit::support

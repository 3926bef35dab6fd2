#include "support/environment.h"
#include "support/log.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace rocjit::support {

int64_t environment_integer(const char* name, int64_t min, int64_t max, int64_t fallback, const char* what) {
  const char* text = std::getenv(name);
  if (!text || !*text) return fallback;
  const char* end = text + std::strlen(text);
  int64_t value = 0;
  auto [stop, error] = std::from_chars(text, end, value);
  if (error == std::errc() && stop == end && value >= min && value <= max) return value;
  support::log(LogLevel::warning, "{}='{}' is not {}; using {}", name, text, what, fallback);
  return fallback;
}

}  // namespace rocjit::support

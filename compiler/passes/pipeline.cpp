// The compile pipeline, one straight list of passes; see pipeline.h for the order and why.
#include "passes/pipeline.h"

#include <fmt/format.h>

#include <chrono>
#include <string_view>

#include "passes/expand_math.h"
#include "passes/legalize_types.h"
#include "passes/uniformity.h"
#include "rocjit/compiler/printer.hpp"
#include "rocjit/compiler/time_trace.hpp"
#include "rocjit/compiler/verifier.hpp"
#include "rocjit/support/log.h"
#include "rocjit/support/settings.h"

namespace rocjit::passes {
namespace {

// Settings::log_passes (ROCJIT_LOG_PASSES): one message (level info) per pass.
void log_pass(const char* pass, const ir::Kernel& kernel, std::chrono::steady_clock::time_point start, bool rewrote) {
  const PassLog setting = support::current_settings()->log_passes;
  if (setting == PassLog::off || !support::log_enabled(LogLevel::info)) return;
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::string message = fmt::format("kernel '{}': {} {:.3f} ms{}", kernel.name, pass, ms,
                                    rewrote ? ", rewrote the kernel" : "");
  if (rewrote && setting == PassLog::ir) {
    message += "\n" + ir::print(kernel);
    while (message.back() == '\n') message.pop_back();
  }
  support::log_message(LogLevel::info, message);
}

// A pass that checks the kernel and throws CompileError on the first problem.
void run(const char* pass, const ir::Kernel& kernel, void (*check)(const ir::Kernel&)) {
  const auto start = std::chrono::steady_clock::now();
  {
    time_trace::Phase phase(pass);
    check(kernel);
  }
  log_pass(pass, kernel, start, false);
}

// A pass that returns a rewritten copy of the kernel, or nullptr when it changes nothing.
void run(const char* pass, PreparedKernel& kernel, const Target& target,
         std::unique_ptr<ir::Kernel> (*rewrite)(const ir::Kernel&, const Target&)) {
  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<ir::Kernel> rewritten;
  {
    time_trace::Phase phase(pass);
    rewritten = rewrite(kernel.get(), target);
  }
  const bool changed = rewritten != nullptr;
  if (changed) kernel.replace(std::move(rewritten));
  log_pass(pass, kernel.get(), start, changed);
}

}  // namespace

void check(const ir::Kernel& kernel) {
  run("verify", kernel, ir::verify);
  run("uniformity", kernel, check_barrier_uniformity);
}

PreparedKernel prepare(const ir::Kernel& kernel, const Target& target) {
  PreparedKernel prepared(kernel);
  run("legalize types", prepared, target, legalize_types);
  run("expand math", prepared, target, expand_math);
  return prepared;
}

}  // namespace rocjit::passes

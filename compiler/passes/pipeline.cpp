// The compile pipeline, one straight list of passes; see rocjit/compiler/passes.hpp for the order and why.
#include "rocjit/compiler/passes.hpp"

#include <fmt/format.h>

#include <array>
#include <chrono>
#include <string_view>

#include "passes/expand_math.h"
#include "passes/legalize_types.h"
#include "passes/uniformity.h"
#include "rocjit/compiler/error.hpp"
#include "rocjit/compiler/printer.hpp"
#include "rocjit/compiler/time_trace.hpp"
#include "rocjit/compiler/verifier.hpp"
#include "rocjit/compiler/visitor.hpp"
#include "rocjit/support/log.h"
#include "rocjit/support/settings.h"

namespace rocjit::passes {
namespace {

// contract as a rewrite of a copy (the DSL runs contract_multiply_adds in place).
std::unique_ptr<ir::Kernel> contract(const ir::Kernel& kernel, const Target&) {
  auto out = std::make_unique<ir::Kernel>(ir::clone(kernel));
  return contract_multiply_adds(*out) > 0 ? std::move(out) : nullptr;
}

constexpr std::array<PassInfo, 5> passes{{
    {"verify", "verify", "structure and types (ir::verify)", ir::verify, nullptr},
    {"uniformity", "uniformity", "barriers and wave operations under work-group- or wave-uniform control",
     check_barrier_uniformity, nullptr},
    {"legalize-types", "legalize types", "16-bit float arithmetic no target computes natively, in f32",
     nullptr, legalize_types},
    {"expand-math", "expand math", "math functions a target lowers inaccurately, in f64", nullptr, expand_math},
    {"contract", "contract", "a * b + c with a single-use product as fma (KernelOptions::contract)", nullptr,
     contract},
}};

// Settings::log_passes (ROCJIT_LOG_PASSES): one message (level info) per pass.
void log_pass(std::string_view pass, const ir::Kernel& kernel, std::chrono::steady_clock::time_point start,
              bool rewrote) {
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

const PassInfo& pass(std::string_view name) {
  const PassInfo* p = find_pass(name);
  if (!p) throw Error(fmt::format("internal error: no pass named '{}'", name));
  return *p;
}

}  // namespace

std::span<const PassInfo> all_passes() { return passes; }

const PassInfo* find_pass(std::string_view name) {
  for (const PassInfo& p : passes)
    if (p.name == name) return &p;
  return nullptr;
}

std::unique_ptr<ir::Kernel> run_pass(const PassInfo& pass, const ir::Kernel& kernel, const Target& target) {
  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<ir::Kernel> rewritten;
  {
    time_trace::Phase phase(pass.phase);
    if (pass.check) pass.check(kernel);
    else rewritten = pass.rewrite(kernel, target);
  }
  log_pass(pass.phase, rewritten ? *rewritten : kernel, start, rewritten != nullptr);
  return rewritten;
}

void check(const ir::Kernel& kernel) {
  static const PassInfo& verify = pass("verify");
  static const PassInfo& uniformity = pass("uniformity");
  static const Target any;  // the checks do not depend on the target
  for (const PassInfo* p : {&verify, &uniformity}) run_pass(*p, kernel, any);
}

PreparedKernel prepare(const ir::Kernel& kernel, const Target& target) {
  static const PassInfo& legalize = pass("legalize-types");
  static const PassInfo& expand = pass("expand-math");
  PreparedKernel prepared(kernel);
  for (const PassInfo* p : {&legalize, &expand})
    if (auto rewritten = run_pass(*p, prepared.get(), target)) prepared.replace(std::move(rewritten));
  return prepared;
}

}  // namespace rocjit::passes

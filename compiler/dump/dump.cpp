// Settings::dump / dump_dir, ROCJIT_DUMP / ROCJIT_DUMP_DIR (see dump.h).
#include "dump/dump.h"
#include "support/atomic_file.h"
#include "rocjit/support/log.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>

namespace rocjit::dump {
namespace {

// Each distinct message once per process: a loop compiling many kernels should not repeat it.
void warn_once(const std::string& message) {
  static std::mutex lock;
  static std::set<std::string> said;
  bool first;
  {
    std::lock_guard<std::mutex> guard(lock);
    first = said.insert(message).second;
  }
  if (first) support::log(LogLevel::warning, "{}", message);  // the handler may call rocjit
}

// Kernel names come from users (and .rjir files): keep file names inside the dump directory.
std::string safe_file_part(std::string_view s) {
  std::string out;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '-' || c == '+' || c == '.';
    out += ok ? c : '_';
  }
  if (out.empty() || out[0] == '.') out.insert(out.begin(), '_');
  return out;
}

}  // namespace

std::string_view stage_name(Stage s) {
  switch (s) {
    case ir: return "ir";
    case llvm: return "llvm";
    case llvm_opt: return "llvm-opt";
    case assembly: return "asm";
    case meta: return "meta";
  }
  return "?";
}

Request from_settings(const Settings& settings) {
  Request r;
  const std::pair<bool, Stage> stages[] = {{settings.dump.ir, ir},
                                           {settings.dump.llvm, llvm},
                                           {settings.dump.llvm_opt, llvm_opt},
                                           {settings.dump.assembly, assembly},
                                           {settings.dump.meta, meta}};
  for (const auto& [on, stage] : stages)
    if (on) r.stages |= stage;
  r.dir = settings.dump_dir.empty() ? "." : settings.dump_dir;
  return r;
}

void write(const Request& request, std::string_view kernel, const Target& target, Stage stage, std::string_view text) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(request.dir, ec);
  if (ec) {
    warn_once(fmt::format("ROCJIT_DUMP: cannot create the dump directory '{}': {}", request.dir, ec.message()));
    return;
  }
  const std::string name =
      fmt::format("{}.{}.{}", safe_file_part(kernel), safe_file_part(target.file_name()), stage_name(stage));
  const fs::path path = fs::path(request.dir) / name;
  if (std::string failure = write_file_atomically(path.string(), text); !failure.empty())
    warn_once(fmt::format("ROCJIT_DUMP: {}", failure));
}

}  // namespace rocjit::dump

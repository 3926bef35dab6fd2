// The compiler back end's part of the time trace (rocjit/support/time_trace_backend.h): LLVM's
// TimeTraceProfiler on a compiling thread, its events taken as ours, and the Chrome trace file
// written with llvm::json. Registered when librocjit is loaded.
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/TimeProfiler.h>
#include <llvm/Support/raw_ostream.h>
#include <unistd.h>

#include <optional>

#include "rocjit/support/time_trace_backend.h"
#include "support/atomic_file.h"

namespace rocjit {
namespace {

using time_trace::Event;

std::string valid_utf8(const std::string& s) { return llvm::json::isUTF8(s) ? s : llvm::json::fixUTF8(s); }

bool start_profiler(unsigned granularity_us) {
  if (llvm::timeTraceProfilerEnabled()) return false;
  llvm::timeTraceProfilerInitialize(granularity_us, "rocjit");
  return true;
}

// LLVM's events of this thread since its profiler started, as ours; stops LLVM's profiler.
void take_llvm_events(const std::string& kernel, const std::string& target, double offset_us, size_t thread,
                      std::vector<Event>& into) {
  llvm::SmallString<0> text;
  {
    llvm::raw_svector_ostream out(text);
    llvm::timeTraceProfilerWrite(out);
  }
  llvm::timeTraceProfilerCleanup();
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return;
  }
  const llvm::json::Object* root = parsed->getAsObject();
  const llvm::json::Array* events = root ? root->getArray("traceEvents") : nullptr;
  if (!events) return;
  for (const llvm::json::Value& v : *events) {
    const llvm::json::Object* e = v.getAsObject();
    if (!e || e->getString("ph") != "X") continue;  // metadata ("M") and others
    std::optional<llvm::StringRef> name = e->getString("name");
    std::optional<double> ts = e->getNumber("ts"), dur = e->getNumber("dur");
    if (!name || !ts || !dur || name->starts_with("Total ")) continue;  // LLVM's per-name totals
    Event out{name->str(), kernel, target, offset_us + *ts, *dur, thread, "llvm", {}};
    if (const llvm::json::Object* args = e->getObject("args"))
      if (std::optional<llvm::StringRef> detail = args->getString("detail")) out.detail = detail->str();
    into.push_back(std::move(out));
  }
}

// Chrome's JSON trace format: complete ("X") events with microsecond timestamps. Returns what
// went wrong writing the file, if anything.
std::string write(const std::string& path, const std::vector<Event>& events) {
  std::string text;
  llvm::raw_string_ostream out(text);
  {
    const int pid = static_cast<int>(getpid());
    llvm::json::OStream json(out);
    json.object([&] {
      json.attributeArray("traceEvents", [&] {
        for (const Event& e : events)
          json.object([&] {
            json.attribute("name", valid_utf8(e.name));
            json.attribute("cat", e.category);
            json.attribute("ph", "X");
            json.attribute("ts", e.start_us);
            json.attribute("dur", e.duration_us);
            json.attribute("pid", pid);
            json.attribute("tid", static_cast<int64_t>(e.thread));
            json.attributeObject("args", [&] {
              json.attribute("kernel", valid_utf8(e.kernel));
              json.attribute("target", valid_utf8(e.target));
              if (!e.detail.empty()) json.attribute("detail", valid_utf8(e.detail));
            });
          });
      });
      json.attribute("displayTimeUnit", "ms");
    });
  }
  out << "\n";
  return write_file_atomically(path, text);
}

constexpr time_trace::Backend llvm_backend{start_profiler, take_llvm_events, write};

// Installed when librocjit is loaded, before any compile record opens.
[[maybe_unused]] const bool registered = (time_trace::set_backend(&llvm_backend), true);

}  // namespace
}  // namespace rocjit

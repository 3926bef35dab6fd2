// What every sample shares: command-line flags (--device, --size, --repeat), timing with rocjit
// events, the median, comparing results with a host reference, and the PASS/FAIL report.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <functional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <rocjit/rocjit.hpp>

namespace rocjit::samples {

struct SampleInfo {
  const char* name;         // "saxpy"
  const char* description;  // one line for --help
  const char* size_means;   // what --size counts, e.g. "elements" or "rows and columns"
  int64_t default_size;
  int default_repeat = 10;
};

struct Options {
  std::string device_id;  // empty: rocjit::default_device()
  int64_t size = 0;
  int repeat = 0;
  // --expect-warm: every kernel must come from the kernel cache (a warm cache, or bundles):
  // the run fails if rocjit's compiler library or libLLVM was loaded (the simulator's LLVM is
  // private to it, linked from the static archives).
  bool expect_warm = false;
  Device device;          // resolved by run_sample()
};

// A sample's own flag: how --help shows it, and a parser that gets each argument the common
// flags did not take ("--print-metadata=gfx90a") and returns true when it is the sample's.
struct ExtraFlag {
  const char* synopsis = "";  // " [--print-metadata[=gfx90a]]"
  const char* help = "";      // "  --print-metadata  ...\n"
  std::function<bool(std::string_view)> parse;
};

inline void print_usage(const SampleInfo& info, const ExtraFlag& extra) {
  std::fprintf(stderr,
               "sample-%s: %s\n"
               "usage: sample-%s [--device=cpu|hip[:N]|sim[:<processor>]] [--size=N] [--repeat=R]%s\n"
               "  --device   where to run (default: rocjit::default_device(), i.e. $ROCJIT_DEVICE, else the\n"
               "             first HIP GPU, else the CPU); sim runs the AMDGPU code on the amdsim simulator\n"
               "             (sim:gfx942, sim:gfx90a, sim:gfx1100)\n"
               "  --size     %s (default %lld)\n"
               "  --repeat   timed runs after one untimed warm-up run (default %d)\n"
               "  --expect-warm  fail if a kernel had to be compiled (rocjit's compiler or LLVM was loaded)\n%s",
               info.name, info.description, info.name, extra.synopsis, info.size_means,
               static_cast<long long>(info.default_size), info.default_repeat, extra.help);
}

// Parses the common flags; exits with status 2 and a usage message on anything it does not know.
inline Options parse_options(int argc, char** argv, const SampleInfo& info, const ExtraFlag& extra = {}) {
  Options o;
  o.size = info.default_size;
  o.repeat = info.default_repeat;
  auto positive = [&](std::string_view flag, std::string_view text) -> long long {
    char* end = nullptr;
    std::string s(text);
    long long v = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0' || v < 1) {
      std::fprintf(stderr, "sample-%s: %.*s needs a positive integer, got '%s'\n", info.name,
                   static_cast<int>(flag.size()), flag.data(), s.c_str());
      std::exit(2);
    }
    return v;
  };
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg.starts_with("--device=")) {
      o.device_id = arg.substr(9);
    } else if (arg.starts_with("--size=")) {
      o.size = positive("--size", arg.substr(7));
    } else if (arg.starts_with("--repeat=")) {
      o.repeat = static_cast<int>(positive("--repeat", arg.substr(9)));
    } else if (arg == "--expect-warm") {
      o.expect_warm = true;
    } else if (arg == "--help" || arg == "-h") {
      print_usage(info, extra);
      std::exit(0);
    } else if (!extra.parse || !extra.parse(arg)) {
      std::fprintf(stderr, "sample-%s: unknown argument '%s'\n", info.name, argv[i]);
      print_usage(info, extra);
      std::exit(2);
    }
  }
  return o;
}

// What a sample's body hands back: an empty failure means the result matched the reference.
struct Outcome {
  std::string failure;     // "FAIL <details>" is printed with these details
  std::vector<double> ms;  // one kernel time per timed repeat
};

inline double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Milliseconds from just before `enqueue` puts its work on `stream` until the stream has done
// it, measured by the device with rocjit events. On the default stream, which is synchronous
// like Numba's, this is launch + synchronize as the caller sees it.
template <class F>
double time_on_stream(const Stream& stream, F&& enqueue) {
  Device d = stream.device();
  Event start = event(d), stop = event(d);
  start.record(stream);
  enqueue();
  stop.record(stream);
  stop.synchronize();
  stream.synchronize();  // rethrows a failure of the enqueued work
  return start.elapsed_time(stop);
}

// Element-wise comparison with a host reference: |got - want| <= tolerance * max(1, |want|).
// Returns "" when everything matches, else how many elements differ and the first of them.
template <class T>
std::string compare(std::span<const T> got, std::span<const T> want, double tolerance = 0) {
  if (got.size() != want.size())
    return "got " + std::to_string(got.size()) + " elements, expected " + std::to_string(want.size());
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double g = static_cast<double>(got[i]), w = static_cast<double>(want[i]);
    bool ok = std::fabs(g - w) <= tolerance * std::max(1.0, std::fabs(w));  // NaN is never ok
    if (!ok && bad++ == 0) first = i;
  }
  if (bad == 0) return {};
  std::ostringstream s;
  s << bad << " of " << got.size() << " elements differ; first at [" << first << "]: got " << got[first]
    << ", expected " << want[first];
  return s.str();
}
template <class T>
std::string compare(const std::vector<T>& got, const std::vector<T>& want, double tolerance = 0) {
  return compare(std::span<const T>(got), std::span<const T>(want), tolerance);
}

// Prints the report every sample ends with and returns the exit status:
//   PASS                   or   FAIL <details>
//   kernel_ms_median=<ms>
inline int report(const Outcome& outcome) {
  if (outcome.failure.empty()) {
    std::printf("PASS\n");
  } else {
    std::string details = outcome.failure;  // one line, whatever the error message looked like
    std::replace(details.begin(), details.end(), '\n', ' ');
    std::printf("FAIL %s\n", details.c_str());
  }
  std::printf("kernel_ms_median=%.4f\n", median(outcome.ms));
  std::fflush(stdout);
  return outcome.failure.empty() ? 0 : 1;
}

// Resolves the device (and makes it the default, so arrays, streams and launches that name no
// device use it), prints what runs where, runs `body` and reports. A rocjit::Error (no such
// device, a refused launch...) is reported as a failure, never as a crash.
// --expect-warm's check: what /proc/self/maps shows of a compiler, or "" if none. Neither
// librocjit nor the simulator's HIP library needs libLLVM: in a process that compiled nothing,
// neither it nor rocjit's compiler library is mapped, on any device.
inline std::string loaded_compiler() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  bool compiler = false, llvm = false;
  while (std::getline(maps, line)) {
    compiler |= line.find("librocjit-compiler") != std::string::npos;
    llvm |= line.find("libLLVM") != std::string::npos;
  }
  if (compiler) return "--expect-warm: rocjit's compiler library was loaded (a kernel was not in the kernel cache)";
  if (llvm) return "--expect-warm: libLLVM is mapped in a process that compiled nothing";
  return {};
}

inline int run_sample(const SampleInfo& info, Options& options, const std::function<Outcome(Options&)>& body) {
  Outcome outcome;
  try {
    options.device = options.device_id.empty() ? default_device() : get_device(options.device_id);
    set_default_device(options.device);
    std::printf("%s: size=%lld repeat=%d on %s (%s, target %s)\n", info.name, static_cast<long long>(options.size),
                options.repeat, options.device.id().c_str(), options.device.name().c_str(),
                options.device.target().c_str());
    std::fflush(stdout);
    outcome = body(options);
    if (outcome.failure.empty() && options.expect_warm) outcome.failure = loaded_compiler();
  } catch (const std::exception& e) {
    outcome.failure = std::string("error: ") + e.what();
  }
  return report(outcome);
}

// Work-groups needed to cover n items with groups of `block`.
inline int64_t groups_for(int64_t n, int64_t block) { return (n + block - 1) / block; }

}  // namespace rocjit::samples

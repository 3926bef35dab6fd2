// rocjit-accuracy: the maximum error, in ULPs, of rocjit's device math functions against MPFR.
//
//   rocjit-accuracy [--device=cpu|hip[:N]|sim:<processor>] [--samples=N] [--function=NAME[,NAME...]]
//                   [--type=f32|f64] [--markdown] [--seed=S]
//
// For every function of functions.hpp and both types, one kernel computes the function of every
// input on the device; MPFR computes the exact result of the same inputs at 256 bits; the error
// of each device result is measured in ULPs of the target type (see score()). Prints one line per
// function and type (or a Markdown table), and exits with 1 when some function exceeds its bound
// or returns a value of the wrong class (NaN, an infinity of the wrong sign), 2 on usage errors.
#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <mpfr.h>

#include <rocjit/rocjit.hpp>

#include "functions.hpp"

namespace rocjit::accuracy {
namespace {

constexpr mpfr_prec_t reference_precision = 256;
constexpr int64_t block_size = 256;
constexpr int64_t default_samples = 100000;
constexpr uint64_t default_seed = 1;

// ---------------------------------------------------------------------------------------------
// Command line

struct Options {
  std::string device_id;  // empty: rocjit::default_device()
  int64_t samples = default_samples;
  std::vector<std::string> functions;  // empty: all
  std::vector<const Format*> types = {&f32, &f64};
  bool markdown = false;
  bool fast_math = false;
  uint64_t seed = default_seed;
};

// The documented bounds of f32 functions whose fast_math form differs (AMDGPU: the hardware's
// approximations instead of ocml; the CPU keeps its libm calls). Measured with
// `rocjit-accuracy --fast-math --device=sim:gfx90a` (README, "fast_math").
// sin and cos have no ULP bound over the f32 range (the hardware reduces the argument by one
// multiply): their errors are reported, not checked; keep their arguments small (|x| <= pi).
const std::vector<std::pair<std::string_view, double>> fast_math_amdgpu_f32 = {
    {"exp", 64},
    {"exp10", 48},
    {"sin", std::numeric_limits<double>::infinity()},
    {"cos", std::numeric_limits<double>::infinity()},
};
bool fast_options = false;  // --fast-math, read by make_kernel

void print_usage(std::FILE* out) {
  std::fprintf(out,
               "usage: rocjit-accuracy [--device=cpu|hip[:N]|sim:<processor>] [--samples=N]\n"
               "                       [--function=NAME[,NAME...]] [--type=f32|f64] [--markdown] [--seed=S]\n"
               "                       [--fast-math]\n"
               "Measures the maximum error in ULPs of rocjit's math functions on a device against MPFR.\n"
               "  --device    where the kernels run (default: rocjit::default_device()); sim:<processor>\n"
               "              is the amdsim simulator (sim:gfx90a, sim:gfx942, sim:gfx1100)\n"
               "  --samples   inputs per function and type besides the special values (default %lld): half\n"
               "              random bit patterns over all finite values, half in the function's domain\n"
               "  --function  only these functions (default: all)\n"
               "  --type      only this type (default: both)\n"
               "  --markdown  print a Markdown table instead of one line per function\n"
               "  --seed      seed of the samples (default %llu)\n"
               "functions:",
               static_cast<long long>(default_samples), static_cast<unsigned long long>(default_seed));
  for (const Function& f : functions()) std::fprintf(out, " %.*s", static_cast<int>(f.name.size()), f.name.data());
  std::fprintf(out, "\n");
}

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "rocjit-accuracy: %s\n", message.c_str());
  print_usage(stderr);
  std::exit(2);
}

uint64_t parse_unsigned(std::string_view flag, std::string_view text) {
  std::string s(text);
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (s.empty() || s[0] == '-' || *end != '\0' || errno == ERANGE)
    usage_error(std::string(flag) + " needs a non-negative integer, got '" + s + "'");
  return v;
}

const Function* find_function(std::string_view name) {
  for (const Function& f : functions())
    if (f.name == name) return &f;
  return nullptr;
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    auto value = [&](std::string_view flag) -> std::string_view { return arg.substr(flag.size()); };
    if (arg == "--fast-math") {
      o.fast_math = true;
    } else if (arg.starts_with("--device=")) {
      o.device_id = value("--device=");
    } else if (arg.starts_with("--samples=")) {
      o.samples = static_cast<int64_t>(parse_unsigned("--samples", value("--samples=")));
    } else if (arg.starts_with("--function=")) {
      std::string_view list = value("--function=");
      while (!list.empty()) {
        size_t comma = std::min(list.find(','), list.size());
        std::string_view name = list.substr(0, comma);
        if (!find_function(name)) usage_error("unknown function '" + std::string(name) + "'");
        o.functions.emplace_back(name);
        list.remove_prefix(std::min(comma + 1, list.size()));
      }
      if (o.functions.empty()) usage_error("--function needs at least one name");
    } else if (arg.starts_with("--type=")) {
      std::string_view t = value("--type=");
      if (t == "f32") o.types = {&f32};
      else if (t == "f64") o.types = {&f64};
      else usage_error("--type is f32 or f64, got '" + std::string(t) + "'");
    } else if (arg == "--markdown") {
      o.markdown = true;
    } else if (arg.starts_with("--seed=")) {
      o.seed = parse_unsigned("--seed", value("--seed="));
    } else if (arg == "--help" || arg == "-h") {
      print_usage(stdout);
      std::exit(0);
    } else {
      usage_error("unknown argument '" + std::string(arg) + "'");
    }
  }
  return o;
}

// ---------------------------------------------------------------------------------------------
// Inputs

template <class T>
constexpr const Format& format_of() {
  return std::is_same_v<T, float> ? f32 : f64;
}

// ±0, ±inf, NaN, ±1, the smallest and largest subnormals, the smallest normal, the largest finite
// value, and huge arguments (1e30, and 1e300 for f64).
template <class T>
std::vector<T> special_values() {
  using L = std::numeric_limits<T>;
  std::vector<T> positive = {T(0), L::infinity(), T(1), L::denorm_min(), std::nextafter(L::min(), T(0)),
                             L::min(), L::max(), T(1e30)};
  if constexpr (std::is_same_v<T, double>) positive.push_back(1e300);
  std::vector<T> v = {L::quiet_NaN()};
  for (T x : positive) {
    v.push_back(x);
    v.push_back(-x);
  }
  return v;
}

// Sample streams are reproducible: mt19937_64 and seed_seq are specified exactly by the standard,
// and every function and type has its own stream, so --function=sin draws the same inputs for sin
// as a run over the whole table.
std::mt19937_64 sample_stream(uint64_t seed, std::string_view function, const Format& t) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a of the function's name
  for (char c : function) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  std::seed_seq seq{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32), static_cast<uint32_t>(h),
                    static_cast<uint32_t>(h >> 32), static_cast<uint32_t>(t.precision)};
  return std::mt19937_64(seq);
}

// Every finite value of T equally likely (so every binade, subnormals included, gets as many
// samples as any other): a random sign and a random magnitude bit pattern below the infinity's.
template <class T>
T random_finite(std::mt19937_64& rng) {
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  constexpr Bits sign = Bits(1) << (sizeof(T) * 8 - 1);
  constexpr Bits infinity = std::bit_cast<Bits>(std::numeric_limits<T>::infinity());
  for (;;) {
    Bits b = static_cast<Bits>(rng() >> (64 - sizeof(T) * 8));
    if ((b & ~sign) < infinity) return std::bit_cast<T>(b);
  }
}

// Uniform in [lo, hi], rounded to T.
template <class T>
T random_in(std::mt19937_64& rng, const Interval& in) {
  double u = static_cast<double>(rng() >> 11) * 0x1p-53;
  return static_cast<T>(in.lo + (in.hi - in.lo) * u);
}

// args[k][i] is argument k of input i: every combination of special values, then `samples`
// random inputs, the first half with every argument a random finite value, the second half with
// every argument in its domain interval.
template <class T>
std::vector<std::vector<T>> make_inputs(const Function& f, const Options& o) {
  const Format& t = format_of<T>();
  const int arity = f.arity();
  const Domain& domain = f.domain_for(t);
  if (domain.size() != static_cast<size_t>(arity))
    throw std::logic_error("functions.hpp: the domain of " + std::string(f.name) + " needs one interval per argument");
  std::vector<std::vector<T>> args(arity);
  const std::vector<T> specials = special_values<T>();
  size_t combinations = 1;
  for (int k = 0; k < arity; ++k) combinations *= specials.size();
  for (size_t c = 0; c < combinations; ++c)
    for (size_t k = 0, rest = c; k < size_t(arity); ++k, rest /= specials.size())
      args[k].push_back(specials[rest % specials.size()]);
  std::mt19937_64 rng = sample_stream(o.seed, f.name, t);
  for (int64_t i = 0; i < o.samples; ++i)
    for (int k = 0; k < arity; ++k)
      args[k].push_back(i < o.samples / 2 ? random_finite<T>(rng) : random_in<T>(rng, domain[k]));
  return args;
}

// ---------------------------------------------------------------------------------------------
// The device side

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};

// out(i) = f(a(i)[, b(i)[, c(i)]]); the arguments a function does not take are not read.
template <class T>
Kernel make_kernel(const Function& f) {
  std::string name = "acc_" + std::string(f.name) + "_" + std::string(format_of<T>().name);
  return kernel(fast_options ? name + "_fast" : name, [&f](dsl::Array<T> a, dsl::Array<T> b, dsl::Array<T> c, dsl::Array<T> out) {
    dsl::Int i = dsl::global_id(0);
    dsl::If(i < out.shape(0), [&] {
      out(i) = std::visit(Overloaded{[&](dsl::Value (*g)(Arg)) { return g(a(i)); },
                                     [&](dsl::Value (*g)(Arg, Arg)) { return g(a(i), b(i)); },
                                     [&](dsl::Value (*g)(Arg, Arg, Arg)) { return g(a(i), b(i), c(i)); }},
                          f.dsl);
    });
  }, {.max_block_size = block_size, .param_names = {"a", "b", "c", "out"}, .fast_math = fast_options});
}

// f of every input, computed on the default device in one launch.
template <class T>
std::vector<T> run_on_device(const Function& f, const std::vector<std::vector<T>>& args) {
  const int64_t n = static_cast<int64_t>(args[0].size());
  std::vector<DeviceArray<T>> inputs;
  for (const std::vector<T>& a : args) inputs.push_back(to_device(a));
  const DeviceArray<T>& b = inputs[std::min<size_t>(1, inputs.size() - 1)];  // unread when f takes fewer
  const DeviceArray<T>& c = inputs[std::min<size_t>(2, inputs.size() - 1)];
  DeviceArray<T> out = device_array<T>({n});
  Kernel k = make_kernel<T>(f);
  k[{static_cast<int>((n + block_size - 1) / block_size), static_cast<int>(block_size)}](inputs[0], b, c, out);
  return out.copy_to_host().to_vector();
}

// ---------------------------------------------------------------------------------------------
// The error metric

// MPFR numbers of the reference precision, in MPFR's widest exponent range: a result over- or
// underflows in MPFR only far beyond any format's range (exp(1e300) is +inf, exp(-1e300) +0).
class Workspace {
 public:
  Workspace() {
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
    for (mpfr_t& v : vars_) mpfr_init2(v, reference_precision);
  }
  ~Workspace() {
    for (mpfr_t& v : vars_) mpfr_clear(v);
  }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  mpfr_ptr arg(int k) { return vars_[k]; }
  mpfr_ptr exact() { return vars_[3]; }
  mpfr_ptr scratch() { return vars_[4]; }

  // The exact result of f at input i, into exact().
  template <class T>
  void reference(const Function& f, const Format& t, const std::vector<std::vector<T>>& args, size_t i) {
    mpfr_srcptr in[3];
    for (size_t k = 0; k < args.size(); ++k) {
      mpfr_set_d(arg(k), static_cast<double>(args[k][i]), MPFR_RNDN);  // exact: the precision holds any double
      in[k] = arg(k);
    }
    f.reference(exact(), std::span<const mpfr_srcptr>(in, args.size()), t);
  }

 private:
  mpfr_t vars_[5];
};

// How far a device result is from the exact one.
struct Score {
  double ulps = 0;
  bool wrong_class = false;  // NaN where a number is due (or the converse), an infinity of the wrong sign
};

// The error of `got` (a value of format t) in ULPs of t at the exact result `exact`:
//   |got - exact| / ulp(exact),   ulp(x) = 2^(e - precision + 1), e = floor(log2 |x|)
// with e clamped to [min_exponent, max_exponent]: below the smallest normal the spacing is the
// subnormals' (2^-149, 2^-1074), and beyond the largest finite value it stays the top binade's,
// so a finite result for an exact value past the largest finite one counts the ULPs to it.
// An infinity returned for a finite exact value stands for 2^(max_exponent + 1), which is what
// rounding with an unbounded exponent range gives before IEEE turns it into infinity: exact
// values from there up (and exact infinities) must come back as that infinity, error 0, and
// between the largest finite value and there an infinity is max_finite + 1 ULP away.
// A correctly rounded function is within 0.5 ULP. Signs of zeros are not compared.
Score score(double got, mpfr_srcptr exact, const Format& t, mpfr_ptr tmp) {
  if (mpfr_nan_p(exact)) return {0, !std::isnan(got)};
  if (std::isnan(got)) return {0, true};
  if (mpfr_inf_p(exact)) return {0, !(std::isinf(got) && std::signbit(got) == (mpfr_signbit(exact) != 0))};
  const mpfr_exp_t e = mpfr_zero_p(exact) ? t.min_exponent
                                          : std::clamp<mpfr_exp_t>(mpfr_get_exp(exact) - 1, t.min_exponent, t.max_exponent);
  if (std::isinf(got)) {
    if (!mpfr_zero_p(exact) && std::signbit(got) != (mpfr_signbit(exact) != 0)) return {0, true};
    // 2^(max_exponent + 1) - |exact|, computed as (1 - |exact| / 2^(max_exponent + 1)) * 2^(max_exponent + 1).
    mpfr_abs(tmp, exact, MPFR_RNDN);
    mpfr_mul_2si(tmp, tmp, -(t.max_exponent + 1), MPFR_RNDN);
    if (mpfr_cmp_ui(tmp, 1) >= 0) return {0, false};
    mpfr_ui_sub(tmp, 1, tmp, MPFR_RNDN);
    mpfr_mul_2si(tmp, tmp, t.max_exponent + 1, MPFR_RNDN);
  } else {
    mpfr_set_d(tmp, got, MPFR_RNDN);
    mpfr_sub(tmp, tmp, exact, MPFR_RNDN);
    mpfr_abs(tmp, tmp, MPFR_RNDN);
  }
  mpfr_mul_2si(tmp, tmp, -(e - t.precision + 1), MPFR_RNDN);
  return {mpfr_get_d(tmp, MPFR_RNDU), false};
}

// The largest error over some inputs, the first input that has it, and the wrong-class results.
struct Summary {
  static constexpr size_t none = std::numeric_limits<size_t>::max();
  double max_ulps = 0;
  size_t worst = none;
  size_t wrong_class = 0;
  size_t first_wrong_class = none;

  void add(size_t i, const Score& s) {
    if (s.wrong_class) {
      if (wrong_class++ == 0) first_wrong_class = i;
    } else if (worst == none || s.ulps > max_ulps) {
      max_ulps = s.ulps;
      worst = i;
    }
  }
  // Merges the summary of inputs that all come after this one's.
  void merge(const Summary& later) {
    if (later.worst != none && (worst == none || later.max_ulps > max_ulps)) {
      max_ulps = later.max_ulps;
      worst = later.worst;
    }
    if (wrong_class == 0) first_wrong_class = later.first_wrong_class;
    wrong_class += later.wrong_class;
  }
};

// Scores every device result against MPFR, on all hardware threads (MPFR keeps its state per
// thread when built thread-safe, as distributions build it; else on one thread).
template <class T>
Summary measure(const Function& f, const std::vector<std::vector<T>>& args, const std::vector<T>& got) {
  const Format& t = format_of<T>();
  const size_t n = got.size();
  size_t threads = mpfr_buildopt_tls_p() ? std::max(1u, std::thread::hardware_concurrency()) : 1;
  threads = std::min(threads, (n + 1023) / 1024);
  std::vector<Summary> parts(threads);
  auto work = [&](size_t part) {
    {
      Workspace w;
      for (size_t i = n * part / threads; i < n * (part + 1) / threads; ++i) {
        w.reference(f, t, args, i);
        parts[part].add(i, score(static_cast<double>(got[i]), w.exact(), t, w.scratch()));
      }
    }
    // MPFR keeps per-thread caches (constants such as pi and log 2, a pool of limbs) that go
    // with the thread's storage unless freed: LeakSanitizer reported them for every worker.
    if (part != 0) mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);
  };
  std::vector<std::thread> pool;
  for (size_t p = 1; p < threads; ++p) pool.emplace_back(work, p);
  work(0);
  for (std::thread& th : pool) th.join();
  Summary total;
  for (const Summary& s : parts) total.merge(s);
  return total;
}

// ---------------------------------------------------------------------------------------------
// Reporting

enum class Family { cpu, amdgpu, amdgpu_builtin };

struct Row {
  const Function* function;
  const Format* type;
  size_t inputs = 0;
  Summary summary;
  double bound = 0;
  std::string error;       // a rocjit::Error while compiling or running
  std::string worst;       // "sin(0x1.2p+3) = 0x1.8p-2, exact 0x1.7ffffffep-2"
  std::string first_wrong;

  bool pass() const { return error.empty() && summary.wrong_class == 0 && summary.max_ulps <= bound; }
};

std::string hex(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

// x as %a prints a double, "-0x1.8p+3", with `digits` hex digits after the point (rounded).
std::string hex(mpfr_srcptr x, int digits, mpfr_ptr tmp) {
  if (!mpfr_regular_p(x)) return hex(mpfr_get_d(x, MPFR_RNDN));  // 0, inf, NaN
  mpfr_exp_t e = mpfr_get_exp(x) - 1;
  mpfr_abs(tmp, x, MPFR_RNDN);
  mpfr_mul_2si(tmp, tmp, -e, MPFR_RNDN);  // in [1, 2)
  char buf[128];
  mpfr_snprintf(buf, sizeof buf, "%.*Ra", digits, tmp);  // "0x1.<digits>p+0", "0x2.<zeros>p+0" if rounding carried
  if (buf[2] == '2') {
    buf[2] = '1';
    ++e;
  }
  return (mpfr_signbit(x) ? "-" : "") + std::string(buf, std::strchr(buf, 'p')) + (e < 0 ? "p" : "p+") +
         std::to_string(e);
}

// "f(x, y) = got, exact e" at input i; the exact value with two more hex digits than the type.
template <class T>
std::string describe(const Function& f, const std::vector<std::vector<T>>& args, const std::vector<T>& got,
                     size_t i) {
  std::string s = std::string(f.name) + "(";
  for (size_t k = 0; k < args.size(); ++k) s += (k ? ", " : "") + hex(args[k][i]);
  Workspace w;
  w.reference(f, format_of<T>(), args, i);
  return s + ") = " + hex(got[i]) + ", exact " + hex(w.exact(), (format_of<T>().precision + 2) / 4 + 2, w.scratch());
}

std::string ulps_text(double u) {
  char buf[32];
  if (u == 0) return "0";
  std::snprintf(buf, sizeof buf, u < 1e4 ? "%.3f" : "%.3g", u);
  return buf;
}

std::string max_ulps_text(const Row& r) {
  if (r.summary.wrong_class == 0) return ulps_text(r.summary.max_ulps);
  return "inf (" + std::to_string(r.summary.wrong_class) + " wrong class; " + ulps_text(r.summary.max_ulps) +
         " elsewhere)";
}

std::string domain_text(const Function& f, const Format& t) {
  std::string s;
  for (const Interval& in : f.domain_for(t)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s[%g, %g]", s.empty() ? "" : " × ", in.lo, in.hi);
    s += buf;
  }
  return s;
}

void print_line(const Row& r) {
  std::printf("%-6.*s %s  inputs=%zu  ", static_cast<int>(r.function->name.size()), r.function->name.data(),
              r.type->name.data(), r.inputs);
  if (!r.error.empty()) {
    std::string e = r.error;
    std::replace(e.begin(), e.end(), '\n', ' ');
    std::printf("ERROR %s\n", e.c_str());
  } else {
    std::printf("max_ulp=%s  bound=%g  %s", max_ulps_text(r).c_str(), r.bound, r.pass() ? "PASS" : "FAIL");
    if (!r.worst.empty()) std::printf("  worst: %s", r.worst.c_str());
    if (!r.first_wrong.empty()) std::printf("  first wrong class: %s", r.first_wrong.c_str());
    std::printf("\n");
  }
  std::fflush(stdout);
}

template <class T>
Row evaluate(const Function& f, Family family, const Options& o) {
  const Format& t = format_of<T>();
  Row r{&f, &t};
  r.bound = family == Family::cpu ? f.bound(t).cpu : f.bound(t).amdgpu;
  if (family == Family::amdgpu_builtin) r.bound = f.bound(t).builtin >= 0 ? f.bound(t).builtin : f.bound(t).amdgpu;
  if (o.fast_math && family != Family::cpu && t.precision == f32.precision)
    for (const auto& [name, bound] : fast_math_amdgpu_f32)
      if (name == f.name) r.bound = bound;
  try {
    std::vector<std::vector<T>> args = make_inputs<T>(f, o);
    r.inputs = args[0].size();
    std::vector<T> got = run_on_device<T>(f, args);
    r.summary = measure<T>(f, args, got);
    if (r.summary.max_ulps > 0) r.worst = describe(f, args, got, r.summary.worst);
    if (r.summary.wrong_class) r.first_wrong = describe(f, args, got, r.summary.first_wrong_class);
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

int run(const Options& o) {
  Device device;
  try {
    device = o.device_id.empty() ? default_device() : get_device(o.device_id);
  } catch (const std::exception& e) {
    usage_error("no device '" + o.device_id + "': " + e.what());
  }
  set_default_device(device);
  // Without ocml.bc (or with ROCJIT_DEVICE_LIBS=none) AMDGPU kernels use rocjit's built-in math.
  const bool builtin = amdgpu_math_library().starts_with("builtin");
  const Family family = device.kind() == "cpu" ? Family::cpu : builtin ? Family::amdgpu_builtin : Family::amdgpu;
  const char* family_name = family == Family::cpu ? "cpu" : builtin ? "amdgpu, built-in math library" : "amdgpu";
  if (!o.markdown)
    std::printf("rocjit-accuracy: %s (%s, target %s, bounds for %s), %lld samples per function and type, seed %llu\n",
                device.id().c_str(), device.name().c_str(), device.target().c_str(), family_name,
                static_cast<long long>(o.samples), static_cast<unsigned long long>(o.seed));
  std::vector<Row> rows;
  for (const Function& f : functions()) {
    if (!o.functions.empty() && std::find(o.functions.begin(), o.functions.end(), f.name) == o.functions.end())
      continue;
    for (const Format* t : o.types) {
      rows.push_back(t == &f32 ? evaluate<float>(f, family, o) : evaluate<double>(f, family, o));
      if (!o.markdown) print_line(rows.back());
    }
  }
  size_t failed = std::count_if(rows.begin(), rows.end(), [](const Row& r) { return !r.pass(); });
  if (o.markdown) {
    std::printf("| function | type | max ULP (measured) | bound | domain sampled |\n");
    std::printf("|---|---|---|---|---|\n");
    for (const Row& r : rows)
      std::printf("| %.*s | %s | %s | %g | %s |\n", static_cast<int>(r.function->name.size()), r.function->name.data(),
                  r.type->name.data(), r.error.empty() ? max_ulps_text(r).c_str() : "error", r.bound,
                  domain_text(*r.function, *r.type).c_str());
    std::printf("\nMeasured on %s (target %s) against MPFR at %d bits: %lld samples per function and type (seed %llu), "
                "half random bit patterns over all finite values and half in the domain, plus ±0, ±inf, NaN, "
                "±1, subnormals, the smallest normal, the largest finite value and huge arguments.\n",
                device.id().c_str(), device.target().c_str(), static_cast<int>(reference_precision),
                static_cast<long long>(o.samples), static_cast<unsigned long long>(o.seed));
  } else {
    std::printf("%zu of %zu failed\n", failed, rows.size());
  }
  return failed ? 1 : 0;
}

}  // namespace
}  // namespace rocjit::accuracy

int main(int argc, char** argv) {
  using namespace rocjit::accuracy;
  const Options options = parse_options(argc, argv);
  fast_options = options.fast_math;
  return run(options);
}

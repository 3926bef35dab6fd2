// rocjit-smith: generates random well-defined kernels, runs each on several executors and
// compares the outputs; reduces and writes out every mismatch. See README.md next to this file.
#include <bit>
#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <malloc.h>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include <rocjit/settings.hpp>

#include "smith.hpp"

namespace smith {
int run_regressions(const std::vector<std::string>& executors, const std::vector<std::string>& only);
int run_workaround_test(const std::string& name);
namespace {

// The reduced kernel's launch and input arrays as text (floats also as their bits), for
// reproducers outside rocjit-smith (a hand-written OpenCL host program, a DSL test).
std::string describe_inputs(const Program& p) {
  const Buffers b = make_buffers(p);
  std::ostringstream out;
  out << "extents " << p.n[0] << "x" << p.n[1] << "x" << p.n[2] << ", groups of " << p.l[0] << "x" << p.l[1] << "x"
      << p.l[2] << " (grid " << p.grid(0) << "x" << p.grid(1) << "x" << p.grid(2) << ")\n";
  auto list = [&](const char* name, const auto& v, auto&& show) {
    out << name << " =";
    for (const auto& x : v) out << " " << show(x);
    out << "\n";
  };
  auto plain = [](auto x) { std::ostringstream o; o.precision(17); o << x; return o.str(); };
  auto with_bits = [](auto x) {
    std::ostringstream o;
    o.precision(17);
    using Bits = std::conditional_t<sizeof(x) == 4, uint32_t, uint64_t>;
    o << x << "(0x" << std::hex << std::bit_cast<Bits>(x) << ")";
    return o.str();
  };
  list("in_i", b.in_i, plain);
  list("in_u", b.in_u, plain);
  list("in_l", b.in_l, plain);
  list("in_f", b.in_f, with_bits);
  list("in_d", b.in_d, with_bits);
  return out.str();
}

volatile std::sig_atomic_t interrupted = 0;

struct Options {
  uint64_t seed = 1;
  int count = 100;
  std::vector<std::string> executors = {"cpu", "sim:gfx942", "pocl"};
  bool print = false;
  std::string out;
  std::string inject;  // executor whose xor results are perturbed (tests the reducer)
  bool reduce = true;
  int max_reduce_tests = 2000;
  int stop_after = 0;  // stop after this many mismatches (0: never)
  GenOptions gen;
};

void run_on(const std::string& exec, const Program& p, Buffers& b, const std::string& inject) {
  bool perturb = !inject.empty() && inject == exec;
  if (exec == "pocl") run_pocl(p, b, perturb);
  else run_rocjit(p, exec, b, perturb);
}

// ---- reducer ---------------------------------------------------------------------------------

// Calls f on every statement list of the program (pre-order).
void each_block(std::vector<Stmt>& v, const std::function<void(std::vector<Stmt>&)>& f) {
  f(v);
  for (auto& s : v) {
    each_block(s.body, f);
    each_block(s.els, f);
  }
}
void each_block(Program& p, const std::function<void(std::vector<Stmt>&)>& f) {
  for (auto& ph : p.phases) each_block(ph, f);
}
void each_expr(Expr& e, const std::function<void(Expr&)>& f) {
  f(e);
  for (auto& k : e.kids) each_expr(k, f);
}
void each_expr(Program& p, const std::function<void(Expr&)>& f) {
  for (auto& e : p.var_init) each_expr(e, f);
  each_block(p, [&](std::vector<Stmt>& v) {
    for (auto& s : v)
      for (auto& e : s.e) each_expr(e, f);
  });
}

// What kind of failure an executor error is, so that the reducer keeps the same one (and does not
// walk into another, such as the DSL refusing a division by the constant 0): for an instruction
// the simulator lacks, its mnemonic; otherwise the first line without digits.
std::string error_signature(const std::string& what) {
  if (size_t i = what.find("instruction '"); i != std::string::npos) {
    size_t b = i + 13, e = what.find_first_of(" '", b);
    return "instruction " + what.substr(b, e == std::string::npos ? std::string::npos : e - b);
  }
  std::string sig;
  for (char c : what.substr(0, what.find('\n')))
    if (!std::isdigit(static_cast<unsigned char>(c))) sig += c;
  return sig;
}

class Reducer {
 public:
  // Mismatch mode: keeps candidates on which executors a and b disagree. Error mode (b empty):
  // keeps candidates that executor a fails on with an error of the same signature.
  Reducer(Program p, std::string a, std::string b, std::string inject, int budget, std::string error = {})
      : best(std::move(p)), ea(std::move(a)), eb(std::move(b)), inject(std::move(inject)), budget(budget),
        error_sig(error_signature(error)) {}

  bool interesting(const Program& p) {
    if (tests >= budget) return false;
    // A candidate PoCL is known to get wrong is no evidence, and PoCL may corrupt the process's
    // heap running it (tests/smith/known-external.md): it is never run there.
    if ((ea == "pocl" || eb == "pocl") && pocl_known_bug(p)) return false;
    ++tests;
    Buffers a = make_buffers(p), b = a;
    if (eb.empty()) {
      try {
        run_on(ea, p, a, inject);
      } catch (const std::exception& e) {
        return error_signature(e.what()) == error_sig;
      }
      return false;
    }
    try {
      run_on(ea, p, a, inject);
      run_on(eb, p, b, inject);
    } catch (const std::exception&) {
      return false;
    }
    return !compare(p, a, b).empty();
  }

  Program run() {
    bool progress = true;
    while (progress && tests < budget) {
      progress = false;
      progress |= delete_statements();
      progress |= hoist_bodies();
      progress |= simplify_expressions();
      progress |= shrink_geometry();
      Program q = cleanup(best);
      if (q.size() < best.size() && interesting(q)) {
        best = std::move(q);
        progress = true;
      }
    }
    return best;
  }

  // Drops variables and arrays nothing reads or writes any more (with their initialisation),
  // and the barriers once no shared array is left.
  static Program cleanup(Program p) {
    std::vector<int> var_use(p.vars.size()), shared_use(p.shared.size()), local_use(p.locals.size());
    each_expr(p, [&](Expr& e) {
      if (e.k == EK::var) var_use[e.a] = 1;
      if (e.k == EK::load_shared) shared_use[e.a] = 1;
      if (e.k == EK::load_local) local_use[e.a] = 1;
    });
    each_block(p, [&](std::vector<Stmt>& v) {
      for (auto& s : v) {
        if (s.k == SK::assign) var_use[s.a] = 1;
        if (s.k == SK::atomic_s || (s.k == SK::store_shared && !s.keep)) shared_use[s.a] = 1;
        if (s.k == SK::store_local) local_use[s.a] = 1;
      }
    });
    auto renumber = [](std::vector<int>& use) {
      std::vector<int> map(use.size(), -1);
      int n = 0;
      for (size_t i = 0; i < use.size(); ++i)
        if (use[i]) map[i] = n++;
      return map;
    };
    std::vector<int> vm = renumber(var_use), sm = renumber(shared_use), lm = renumber(local_use);
    // Initialisers of dropped arrays go first (their indices are about to disappear).
    each_block(p, [&](std::vector<Stmt>& v) {
      std::erase_if(v, [&](const Stmt& s) {
        return (s.k == SK::init_local && lm[s.a] < 0) || ((s.k == SK::init_satom || s.k == SK::store_shared) && sm[s.a] < 0);
      });
    });
    each_expr(p, [&](Expr& e) {
      if (e.k == EK::var) e.a = vm[e.a];
      if (e.k == EK::load_shared) e.a = sm[e.a];
      if (e.k == EK::load_local) e.a = lm[e.a];
    });
    each_block(p, [&](std::vector<Stmt>& v) {
      for (auto& s : v) {
        if (s.k == SK::assign) s.a = vm[s.a];
        if (s.k == SK::atomic_s || s.k == SK::store_shared || s.k == SK::init_satom) s.a = sm[s.a];
        if (s.k == SK::store_local || s.k == SK::init_local) s.a = lm[s.a];
      }
    });
    auto keep = [](auto& vec, const std::vector<int>& map) {
      std::remove_reference_t<decltype(vec)> out;
      for (size_t i = 0; i < vec.size(); ++i)
        if (map[i] >= 0) out.push_back(vec[i]);
      vec = std::move(out);
    };
    keep(p.vars, vm);
    keep(p.var_init, vm);
    keep(p.shared, sm);
    keep(p.locals, lm);
    for (auto& modes : p.modes) keep(modes, sm);
    if (p.shared.empty() && p.phases.size() > 1) {
      std::vector<Stmt> all;
      for (auto& ph : p.phases) all.insert(all.end(), ph.begin(), ph.end());
      p.phases = {std::move(all)};
      p.modes = {std::vector<Mode>{}};
    }
    return p;
  }
  int tests = 0;

 private:
  Program best;
  std::string ea, eb, inject;
  int budget;
  std::string error_sig;

  // Tries `mutate` on the n-th candidate for n = 0, 1, ... until it reports no candidate.
  // mutate returns kEnd past the last candidate, kSkip when candidate n does not apply.
  static constexpr int kEnd = 0, kDone = 1, kSkip = 2;
  bool sweep(const std::function<int(Program&, int)>& mutate) {
    bool any = false;
    for (int n = 0;; ++n) {
      Program q = best;
      int m = mutate(q, n);
      if (m == kEnd) break;
      if (m == kSkip) continue;
      if (interesting(q)) {
        best = std::move(q);
        any = true;
        --n;  // the same position now holds the next candidate
      }
      if (tests >= budget) break;
    }
    return any;
  }

  bool delete_statements() {
    return sweep([](Program& q, int n) {
      int i = 0;
      bool done = false;
      each_block(q, [&](std::vector<Stmt>& v) {
        for (size_t j = 0; j < v.size() && !done; ++j) {
          if (v[j].keep) continue;
          if (i++ == n) {
            v.erase(v.begin() + static_cast<long>(j));
            done = true;
          }
        }
      });
      return done ? kDone : kEnd;
    });
  }

  // If -> its then or else branch; loops -> nothing else to do than deletion (their bodies use the counter).
  bool hoist_bodies() {
    return sweep([](Program& q, int n) {
      int i = 0;
      bool done = false;
      each_block(q, [&](std::vector<Stmt>& v) {
        for (size_t j = 0; j < v.size() && !done; ++j) {
          if (v[j].k != SK::if_) continue;
          for (int side = 0; side < 2 && !done; ++side) {
            if (i++ != n) continue;
            std::vector<Stmt> repl = side == 0 ? v[j].body : v[j].els;
            v.erase(v.begin() + static_cast<long>(j));
            v.insert(v.begin() + static_cast<long>(j), repl.begin(), repl.end());
            done = true;
          }
        }
      });
      return done ? kDone : kEnd;
    });
  }

  static Expr zero(Ty t) {
    Expr e;
    e.k = EK::konst;
    e.t = t;
    return e;
  }

  bool simplify_expressions() {
    return sweep([](Program& q, int n) {
      // Candidate n: node n/4, replacement n%4: 0 constant, 1..3 its same-typed child.
      int node = n / 4, how = n % 4;
      int i = 0;
      bool found = false, done = false;
      each_expr(q, [&](Expr& e) {
        if (found) return;
        if (i++ != node) return;
        found = true;
        if (how == 0) {
          if (e.k != EK::konst) {
            e = zero(e.t);
            done = true;
          }
        } else if (static_cast<size_t>(how - 1) < e.kids.size() && e.kids[how - 1].t == e.t &&
                   e.k != EK::load_in && e.k != EK::load_shared && e.k != EK::load_local) {
          Expr k = e.kids[how - 1];
          e = std::move(k);
          done = true;
        }
      });
      if (!found) return kEnd;
      return done ? kDone : kSkip;
    });
  }

  bool shrink_geometry() {
    return sweep([](Program& q, int n) {
      int d = n / 3, how = n % 3;
      if (d > 3) return kEnd;
      if (d == 3) {  // input length
        if (how == 0 && q.n_in > 1) q.n_in = 1;
        else if (how == 1 && q.n_in > 2) q.n_in = q.n_in / 2;
        else return kSkip;
        return kDone;
      }
      if (d >= q.dims) return kSkip;
      if (how == 0 && q.n[d] > 1) q.n[d] = 1;
      else if (how == 1 && q.n[d] > q.l[d] + 1) q.n[d] = q.l[d] + (q.n[d] - q.l[d]) / 2;
      else if (how == 2 && q.l[d] > 1) q.l[d] = q.l[d] / 2;
      else return kSkip;
      return kDone;
    });
  }
};

// ---- campaign --------------------------------------------------------------------------------

uint64_t kernel_seed(uint64_t seed, int i) { return seed * 1000003ull + static_cast<uint64_t>(i); }

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
}

int usage() {
  std::cerr << "usage: rocjit-smith [--seed=S] [--count=N | --kernels=N] [--executors=cpu,sim:gfx942,sim:gfx90a,sim:gfx1100,pocl]\n"
               "                    [--print] [--out=DIR] [--no-reduce] [--no-approx] [--no-atomics] [--no-i64-atomics] [--no-f64-approx] [--local-dynamic]\n"
               "                    [--no-small-types] [--no-wave-ops] [--no-wave-barriers]\n"
               "                    [--regressions [--only=CHECK,...]] [--workaround-test=NAME] [--verbose] [--first=I] [--jobs=J]\n"
               "                    [--reduce-budget=N] [--inject=EXECUTOR] [--one=KERNEL_SEED] [--stop-after=M]\n";
  return 2;
}

// The process's resident set in MiB, after returning freed heap memory to the system.
double resident_mib() {
  malloc_trim(0);
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::atof(line.c_str() + 6) / 1024.0;
  return 0;
}

int main_impl(int argc, char** argv) {
  Options o;
  int64_t one = -1;
  bool local_dynamic_forced = false, regressions = false, verbose = false;
  std::vector<std::string> only;  // --only: the regression checks to run
  std::string workaround_test;    // --workaround-test
  int first_kernel = 0, jobs = 1;
  double max_rss_growth_mib = -1;  // --max-rss-growth: fail when the resident set grows more
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&](const char* key) -> const char* {
      size_t n = std::strlen(key);
      return a.compare(0, n, key) == 0 ? a.c_str() + n : nullptr;
    };
    if (const char* v = val("--seed=")) o.seed = std::strtoull(v, nullptr, 10);
    else if (const char* v = val("--count=")) o.count = std::atoi(v);
    else if (const char* v = val("--kernels=")) o.count = std::atoi(v);
    else if (const char* v = val("--executors=")) {
      o.executors.clear();
      std::stringstream ss(v);
      std::string e;
      while (std::getline(ss, e, ',')) o.executors.push_back(e);
    } else if (a == "--print") o.print = true;
    else if (const char* v = val("--out=")) o.out = v;
    else if (const char* v = val("--inject=")) o.inject = v;
    else if (const char* v = val("--reduce-budget=")) o.max_reduce_tests = std::atoi(v);
    else if (const char* v = val("--stop-after=")) o.stop_after = std::atoi(v);
    else if (const char* v = val("--one=")) one = std::strtoll(v, nullptr, 10);
    else if (a == "--no-reduce") o.reduce = false;
    else if (a == "--no-approx") o.gen.approx = false;
    else if (a == "--no-atomics") o.gen.atomics = false;
    else if (a == "--no-i64-atomics") o.gen.i64_atomics = false;
    else if (a == "--no-f64-approx") o.gen.f64_approx = false;
    else if (a == "--no-small-types") o.gen.small_types = false;
    else if (a == "--no-wave-ops") o.gen.wave_ops = false;
    else if (a == "--no-wave-barriers") o.gen.wave_barriers = false;
    else if (a == "--local-dynamic") local_dynamic_forced = true;
    else if (a == "--regressions") regressions = true;
    else if (const char* v = val("--only=")) {
      std::stringstream ss(v);
      std::string e;
      while (std::getline(ss, e, ',')) only.push_back(e);
    } else if (const char* v = val("--workaround-test=")) workaround_test = v;
    else if (a == "--verbose") verbose = true;
    else if (const char* v = val("--first=")) first_kernel = std::atoi(v);
    else if (const char* v = val("--jobs=")) jobs = std::max(1, std::atoi(v));
    else if (const char* v = val("--max-rss-growth=")) max_rss_growth_mib = std::atof(v);
    else return usage();
  }
  if (!workaround_test.empty()) return smith::run_workaround_test(workaround_test);
  if (regressions) return run_regressions(o.executors, only);
  if (o.executors.size() < 2) {
    std::cerr << "rocjit-smith: give at least two executors\n";
    return 2;
  }
  // Random kernels would only fill the disk cache (unless the environment asks for it).
  if (!std::getenv("ROCJIT_CACHE")) rocjit::update_settings([](rocjit::Settings& s) { s.disk_cache = false; });
  if (o.gen.f64_approx)
    for (auto& e : o.executors)
      if (e.rfind("sim", 0) == 0) {
        std::string why, proc = e.size() > 4 ? e.substr(4) : "gfx942";
        if (!f64_approx_available(proc, why)) {
          o.gen.f64_approx = false;
          std::fprintf(stderr, "rocjit-smith: no f64 exp/log/sin/cos/... in the kernels: %s is unavailable for %s\n",
                       "ocml (the ROCm device libraries)", proc.c_str());
          break;
        }
      }
  (void)local_dynamic_forced;  // run-time local-array indices are the default on every executor now
  // Kernels with wave operations run only where a wave has kWaveOpsWaveSize lanes (their results
  // depend on the wave size; OpenCL 1.2 has none); elsewhere they are counted as not run.
  std::vector<int> wave_size(o.executors.size(), 0);
  if (o.gen.wave_ops)
    for (size_t e = 0; e < o.executors.size(); ++e) wave_size[e] = executor_wave_size(o.executors[e]);
  const bool tty = isatty(2);
  auto start = std::chrono::steady_clock::now();
  std::map<std::string, int> pair_mismatch, exec_errors, known_skips;
  int mismatches = 0, errors = 0, compared = 0, generated = 0, reduced_written = 0, done = 0;
  std::mutex counters;             // guards the counts above and the maps
  std::atomic<bool> stop{false};   // --stop-after reached, or SIGINT/SIGTERM
  // SIGINT or SIGTERM: finish the kernels under way, then print the summary of those done.
  std::signal(SIGINT, [](int) { interrupted = 1; });
  std::signal(SIGTERM, [](int) { interrupted = 1; });
  size_t total_size = 0;
  int first = one >= 0 ? 0 : first_kernel, last = one >= 0 ? 1 : first_kernel + o.count;
  auto process = [&](int i) {
    uint64_t ks = one >= 0 ? static_cast<uint64_t>(one) : kernel_seed(o.seed, i);
    if (verbose) std::fprintf(stderr, "kernel %d seed %llu\n", i, static_cast<unsigned long long>(ks));
    Program p = generate(ks, o.gen);
    { std::lock_guard<std::mutex> g(counters); ++generated; total_size += p.size(); }
    if (o.print) {
      std::lock_guard<std::mutex> g(counters);
      std::cout << "// ===== kernel seed " << ks << " =====\n" << to_cpp(p) << "\n// OpenCL C:\n" << to_opencl(p) << "\n";
    }
    Buffers init = make_buffers(p);
    std::vector<Buffers> results(o.executors.size(), init);
    std::vector<bool> ok(o.executors.size(), false), skipped(o.executors.size(), false);
    std::vector<std::string> failure(o.executors.size());
    bool kernel_error = false;
    const bool wave = has_wave_ops(p);
    for (size_t e = 0; e < o.executors.size(); ++e) {
      // Why this executor does not run the kernel, or "" when it does.
      std::string not_run;
      if (wave && wave_size[e] != kWaveOpsWaveSize)
        not_run = "(wave operations, compared on wave64 only) " + o.executors[e] + ": " +
                  (wave_size[e] ? "wave size " + std::to_string(wave_size[e]) : std::string("no waves in OpenCL 1.2"));
      else if (const char* bug = o.executors[e] == "pocl" ? pocl_known_bug(p) : nullptr)
        not_run = std::string("(known bug) pocl: ") + bug;
      if (!not_run.empty()) {
        std::lock_guard<std::mutex> g(counters);
        ++known_skips[not_run];
        skipped[e] = true;
        continue;
      }
      try {
        run_on(o.executors[e], p, results[e], o.inject);
        ok[e] = true;
      } catch (const std::exception& ex) {
        kernel_error = true;
        failure[e] = ex.what();
        { std::lock_guard<std::mutex> g(counters); ++exec_errors[o.executors[e]]; }
        std::cerr << "\nerror: kernel seed " << ks << " on " << o.executors[e] << ": " << ex.what() << "\n";
      }
    }
    if (kernel_error) {
      { std::lock_guard<std::mutex> g(counters); ++errors; }
      size_t bad = 0;
      while (ok[bad] || skipped[bad]) ++bad;
      if (!o.out.empty()) {
        std::filesystem::path dir = std::filesystem::path(o.out) / ("seed-" + std::to_string(ks));
        std::filesystem::create_directories(dir);
        Program small = p;
        int tests = 0;
        if (o.reduce) {
          Reducer r(p, o.executors[bad], "", o.inject, o.max_reduce_tests, failure[bad]);
          small = r.run();
          tests = r.tests;
        }
        std::string d = "no error";
        try {
          Buffers a = make_buffers(small);
          run_on(o.executors[bad], small, a, o.inject);
        } catch (const std::exception& ex) {
          d = ex.what();
        }
        std::ostringstream note;
        note << "kernel seed " << ks << " (--seed=" << o.seed << " kernel " << i << ", or --one=" << ks << ")\n"
             << "error on " << o.executors[bad] << "\noriginal: " << p.size() << " nodes\nreduced: " << small.size()
             << " nodes after " << tests << " tests; " << d << "\n";
        write_file(dir / "error.txt", note.str());
        write_file(dir / "reduced.cpp", to_cpp(small));
        write_file(dir / "reduced.cl", to_opencl(small));
        write_file(dir / "original.cpp", to_cpp(p));
        try {
          write_file(dir / "reduced.rjir", rjir(small));
        } catch (const std::exception& ex) {
          write_file(dir / "reduced.rjir", std::string("; tracing failed: ") + ex.what() + "\n");
        }
        std::cerr << "error reduced to " << small.size() << " nodes (from " << p.size() << ") in " << tests << " tests: " << dir.string() << "\n";
      }
    }
    bool mismatch = false;
    std::string ra, rb, what;
    for (size_t x = 0; x < o.executors.size(); ++x)
      for (size_t y = x + 1; y < o.executors.size(); ++y) {
        if (!ok[x] || !ok[y]) continue;
        std::string d = compare(p, results[x], results[y]);
        if (d.empty()) continue;
        { std::lock_guard<std::mutex> g(counters); ++pair_mismatch[o.executors[x] + " vs " + o.executors[y]]; }
        if (!mismatch) ra = o.executors[x], rb = o.executors[y], what = d;
        mismatch = true;
      }
    int okc = 0;
    for (bool b : ok) okc += b;
    if (okc >= 2) { std::lock_guard<std::mutex> g(counters); ++compared; }
    if (mismatch) {
      { std::lock_guard<std::mutex> g(counters); ++mismatches; }
      std::cerr << "\nmismatch: kernel seed " << ks << ": " << ra << " vs " << rb << ": " << what << "\n";
      if (!o.out.empty()) {
        std::filesystem::path dir = std::filesystem::path(o.out) / ("seed-" + std::to_string(ks));
        std::filesystem::create_directories(dir);
        Program small = p;
        int tests = 0;
        if (o.reduce) {
          Reducer r(p, ra, rb, o.inject, o.max_reduce_tests);
          small = r.run();
          tests = r.tests;
        }
        Buffers a = make_buffers(small), b = a;
        std::string d;
        try {
          run_on(ra, small, a, o.inject);
          run_on(rb, small, b, o.inject);
          d = compare(small, a, b);
        } catch (const std::exception& ex) {
          d = ex.what();
        }
        std::ostringstream note;
        note << "kernel seed " << ks << " (--seed=" << o.seed << " kernel " << i << ", or --one=" << ks << ")\n"
             << "executors: " << ra << " vs " << rb << "\n"
             << "original: " << p.size() << " nodes; " << what << "\n"
             << "reduced: " << small.size() << " nodes after " << tests << " tests; " << d << "\n";
        write_file(dir / "mismatch.txt", note.str());
        write_file(dir / "inputs.txt", describe_inputs(small));
        write_file(dir / "reduced.cpp", to_cpp(small));
        write_file(dir / "reduced.cl", to_opencl(small));
        write_file(dir / "original.cpp", to_cpp(p));
        try {
          write_file(dir / "reduced.rjir", rjir(small));
        } catch (const std::exception& ex) {
          write_file(dir / "reduced.rjir", std::string("; tracing failed: ") + ex.what() + "\n");
        }
        { std::lock_guard<std::mutex> g(counters); ++reduced_written; }
        std::cerr << "reduced to " << small.size() << " nodes (from " << p.size() << ") in " << tests << " tests: " << dir.string() << "\n";
        std::cout << "reduced: " << dir.string() << " nodes=" << small.size() << " original=" << p.size() << "\n";
      }
    }
    std::lock_guard<std::mutex> g(counters);
    ++done;
    if (o.stop_after > 0 && mismatches >= o.stop_after) stop = true;
    // On a terminal a progress line; otherwise (campaigns writing to files) a line every 250
    // kernels, so a long run shows how far it got.
    if (tty || done % 250 == 0) {
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::fprintf(stderr, tty ? "\r[%d/%d] mismatches=%d errors=%d %.0fs " : "[%d/%d] mismatches=%d errors=%d %.0fs\n", done,
                   last - first, mismatches, errors, s);
    }
    if (interrupted) stop = true;
  };
  // Kernels are independent: J workers take the next kernel index until none is left (or
  // --stop-after is reached). Every executor is safe to call from several threads.
  std::atomic<int> next{first};
  // Resident memory after the first kernels (every executor set up, caches warm) and at the end:
  // a campaign of any length must not keep what each kernel used.
  const int rss_mark = first + std::min(50, (last - first) / 4);
  std::atomic<bool> rss_marked{false};
  double rss_at_mark = 0;
  auto worker = [&] {
    for (int i = next++; i < last && !stop; i = next++) {
      if (i >= rss_mark && !rss_marked.exchange(true)) rss_at_mark = resident_mib();
      process(i);
    }
  };
  if (jobs <= 1) {
    worker();
  } else {
    std::vector<std::thread> threads;
    for (int j = 0; j < jobs; ++j) threads.emplace_back(worker);
    for (std::thread& t : threads) t.join();
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double rss_at_end = resident_mib();
  if (tty) std::fprintf(stderr, "\n");
  std::printf("rocjit-smith seed=%llu executors=", static_cast<unsigned long long>(o.seed));
  for (size_t e = 0; e < o.executors.size(); ++e) std::printf("%s%s", e ? "," : "", o.executors[e].c_str());
  std::printf("\n%-40s %d\n%-40s %d\n%-40s %.1f\n", "kernels generated", generated, "kernels compared (>= 2 executors ran)", compared,
              "mean kernel size (statements + nodes)", generated ? static_cast<double>(total_size) / generated : 0.0);
  for (size_t x = 0; x < o.executors.size(); ++x)
    for (size_t y = x + 1; y < o.executors.size(); ++y) {
      std::string k = o.executors[x] + " vs " + o.executors[y];
      std::printf("%-40s %d\n", ("mismatches " + k).c_str(), pair_mismatch[k]);
    }
  for (auto& e : o.executors) std::printf("%-40s %d\n", ("errors " + e).c_str(), exec_errors[e]);
  for (auto& [why, n] : known_skips) std::printf("not run %s: %d kernels\n", why.c_str(), n);
  std::printf("%-40s %.1f s\n", "time", secs);
  std::printf("%-40s %.1f -> %.1f MiB (kernels %d -> %d)\n", "resident memory", rss_at_mark, rss_at_end, rss_mark - first,
              done);
  bool rss_ok = true;
  if (max_rss_growth_mib >= 0 && rss_marked && rss_at_end - rss_at_mark > max_rss_growth_mib) {
    std::printf("resident memory grew by %.1f MiB, more than --max-rss-growth=%.1f\n", rss_at_end - rss_at_mark,
                max_rss_growth_mib);
    rss_ok = false;
  }
  if (interrupted) std::printf("%-40s %d of %d kernels\n", "interrupted (SIGINT/SIGTERM) after", done, last - first);
  std::printf("kernels=%d mismatches=%d errors=%d\n", generated, mismatches, errors);
  return mismatches == 0 && errors == 0 && rss_ok ? 0 : 1;
}

}  // namespace
}  // namespace smith

int main(int argc, char** argv) {
  // The cpu executor launches each kernel once, so under the CPU device's tiered compilation it
  // would compare the O1 code of a first launch; kernels launched repeatedly run O3 code, which is
  // what a campaign should check by default. ROCJIT_CPU_TIERING=1 compares the O1 code instead.
  // Random kernels are compiled once and never asked for again: the library's in-memory cache of
  // code objects and host kernels (1024 of each by default, tens to hundreds of MiB of entries
  // nobody will hit) is kept small unless the environment says otherwise.
  rocjit::update_settings([](rocjit::Settings& s) {
    if (!std::getenv("ROCJIT_CPU_TIERING")) s.cpu_tiering = false;
    if (!std::getenv("ROCJIT_CACHE_MEMORY_ENTRIES")) s.cache_memory_entries = 64;
  });
  try {
    return smith::main_impl(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "rocjit-smith: " << e.what() << "\n";
    return 2;
  }
}

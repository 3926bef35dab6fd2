// Compile latency of the sample kernels for AMDGPU, in-process: trace + verify + lower + O3 +
// codegen + lld link, per kernel and processor. Prints a table.
//   build/bin/bench-compile [--repeat=N] [--phases | --batch | --startup]
//   build/bin/bench-compile --profile=INDEX:TARGET:OPT:N   (N warm compiles of one sample, for callgrind)
// (Issue 6 extends this with cold-process, cache-hit and hipRTC columns.)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <dlfcn.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sample_kernels.hpp"

using namespace rocjit;
using Clock = std::chrono::steady_clock;

namespace {
template <class F>
double median_ms(int repeats, F&& f) {
  std::vector<double> t;
  for (int i = 0; i < repeats; ++i) {
    auto a = Clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
// The same algorithms as HIP source, for hipRTC.
const char* hip_sources[] = {
    "extern \"C\" __global__ void saxpy(float a, const float* x, float* y, int n) {"
    " int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }",
    "extern \"C\" __global__ void reverse(const float* in, float* out, int n) { __shared__ float tile[256];"
    " int t = threadIdx.x, base = blockIdx.x * 256; int len = min(256, n - base);"
    " if (t < len) tile[t] = in[base + t]; __syncthreads(); if (t < len) out[base + t] = tile[len - 1 - t]; }",
    "extern \"C\" __global__ void matmul(const float* A, const float* B, float* C, int n, int k, int m) {"
    " __shared__ float sA[16][16], sB[16][16]; int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;"
    " int tx = threadIdx.x, ty = threadIdx.y; float acc = 0;"
    " for (int t = 0; t < (k + 15) / 16; ++t) { sA[ty][tx] = 0; sB[ty][tx] = 0;"
    " if (y < n && t * 16 + tx < k) sA[ty][tx] = A[y * k + t * 16 + tx];"
    " if (x < m && t * 16 + ty < k) sB[ty][tx] = B[(t * 16 + ty) * m + x]; __syncthreads();"
    " for (int j = 0; j < 16; ++j) acc += sA[ty][j] * sB[j][tx]; __syncthreads(); }"
    " if (y < n && x < m) C[y * m + x] = acc; }",
    "extern \"C\" __global__ void reduce(const float* in, float* partial, int n) { __shared__ float s[256];"
    " int t = threadIdx.x, i = blockIdx.x * 256 + t; s[t] = i < n ? in[i] : 0.0f; __syncthreads();"
    " for (int k = 128; k > 32; k >>= 1) { if (t < k) s[t] += s[t + k]; __syncthreads(); }"
    " for (int k = 32; k > 0; k >>= 1) { if (t < k) s[t] += s[t + k]; __builtin_amdgcn_wave_barrier(); }"
    " if (t == 0) partial[blockIdx.x] = s[0]; }",
    "extern \"C\" __global__ void transpose(const float* in, float* out, int rows, int cols) {"
    " __shared__ float tile[16][17]; int tx = threadIdx.x, ty = threadIdx.y;"
    " int x = blockIdx.x * 16 + tx, y = blockIdx.y * 16 + ty; if (y < rows && x < cols) tile[ty][tx] = in[y * cols + x];"
    " __syncthreads(); int ox = blockIdx.y * 16 + tx, oy = blockIdx.x * 16 + ty;"
    " if (oy < cols && ox < rows) out[oy * rows + ox] = tile[tx][ty]; }",
    "extern \"C\" __global__ void histogram(const unsigned* data, unsigned* hist, int n) { __shared__ unsigned c[256];"
    " for (int b = threadIdx.x; b < 256; b += blockDim.x) c[b] = 0; __syncthreads();"
    " for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&c[data[i] % 256], 1u);"
    " __syncthreads(); for (int b = threadIdx.x; b < 256; b += blockDim.x) if (c[b]) atomicAdd(&hist[b], c[b]); }",
    "extern \"C\" __global__ void jacobi(const float* in, float* out, int rows, int cols) {"
    " int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;"
    " if (i >= 1 && i < rows - 1 && j >= 1 && j < cols - 1) out[i * cols + j] = 0.25f * (in[(i - 1) * cols + j]"
    " + in[(i + 1) * cols + j] + in[i * cols + j - 1] + in[i * cols + j + 1]); }",
};

// hipRTC from libamdhip64, loaded at run time; nullptr members when unavailable.
struct HipRtc {
  using Create = int (*)(void**, const char*, const char*, int, const char**, const char**);
  using Compile = int (*)(void*, int, const char**);
  using Destroy = int (*)(void**);
  using CodeSize = int (*)(void*, size_t*);
  Create create = nullptr;
  Compile compile = nullptr;
  Destroy destroy = nullptr;
  CodeSize code_size = nullptr;
  HipRtc() {
    void* lib = nullptr;
    for (const char* n : {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"})
      if ((lib = dlopen(n, RTLD_NOW | RTLD_LOCAL))) break;
    if (!lib) return;
    create = reinterpret_cast<Create>(dlsym(lib, "hiprtcCreateProgram"));
    compile = reinterpret_cast<Compile>(dlsym(lib, "hiprtcCompileProgram"));
    destroy = reinterpret_cast<Destroy>(dlsym(lib, "hiprtcDestroyProgram"));
    code_size = reinterpret_cast<CodeSize>(dlsym(lib, "hiprtcGetCodeSize"));
    if (!create || !compile || !destroy || !code_size) create = nullptr;
  }
  // Milliseconds for one compile, or -1 on failure.
  double run(const char* source, const std::string& processor) {
    std::string arch = "--offload-arch=" + processor;
    const char* options[] = {arch.c_str(), "-O3"};
    auto t0 = Clock::now();
    void* program = nullptr;
    if (create(&program, source, "k.hip", 0, nullptr, nullptr) != 0) return -1;
    int rc = compile(program, 2, options);
    size_t size = 0;
    code_size(program, &size);
    destroy(&program);
    if (rc != 0 || size == 0) return -1;
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  }
};

// The environment of a child process: this one's, with ROCJIT_CACHE_DIR set to `cache_dir` and
// ROCJIT_CACHE removed (the child's disk cache on, there). Children read their settings from it.
class ChildEnvironment {
 public:
  explicit ChildEnvironment(const std::string& cache_dir) {
    for (char** e = environ; *e; ++e) {
      const std::string_view entry = *e;
      if (!entry.starts_with("ROCJIT_CACHE_DIR=") && !entry.starts_with("ROCJIT_CACHE=")) entries_.emplace_back(entry);
    }
    entries_.push_back("ROCJIT_CACHE_DIR=" + cache_dir);
    for (std::string& e : entries_) pointers_.push_back(e.data());
    pointers_.push_back(nullptr);
  }
  char** data() { return pointers_.data(); }

 private:
  std::vector<std::string> entries_;
  std::vector<char*> pointers_;
};

// This process's kernel cache on disk in `dir`, or (empty) no disk cache.
void disk_cache(const std::string& dir) {
  update_settings([&](Settings& s) {
    s.disk_cache = !dir.empty();
    if (!dir.empty()) s.cache_dir = dir;
  });
}

// One compile in a fresh process: this binary re-run with --cold=INDEX:PROCESSOR.
double cold_process_ms(const char* self, int index, const std::string& processor) {
  std::string arg = "--cold=" + std::to_string(index) + ":" + processor;
  char* argv[] = {const_cast<char*>(self), arg.data(), nullptr};
  auto t0 = Clock::now();
  pid_t pid = 0;
  if (posix_spawn(&pid, self, nullptr, nullptr, argv, environ) != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? ms : -1;
}

// A host compile that measures compiling: past the kernel cache.
HostCompileOptions uncached() {
  HostCompileOptions options;
  options.cache = false;
  return options;
}

// compile_host() of one kernel in a fresh process with the disk cache in `dir`: the compile's
// milliseconds and its cache outcome ("miss" the first time, then "disk").
std::string fmt_dir(const std::string& base, const char* what, int index, int round) {
  return base + "-" + what + "-" + std::to_string(index) + "-" + std::to_string(round);
}

std::pair<double, std::string> host_disk_ms(const char* self, int index, const std::string& dir) {
  std::string file = dir + "-host.txt";
  std::string arg = "--host-disk=" + std::to_string(index) + ":" + file;
  char* argv[] = {const_cast<char*>(self), arg.data(), nullptr};
  ChildEnvironment env(dir);
  pid_t pid = 0;
  if (posix_spawn(&pid, self, nullptr, nullptr, argv, env.data()) != 0) return {-1, "spawn failed"};
  int status = 0;
  waitpid(pid, &status, 0);
  double ms = -1;
  char outcome[32] = "failed";
  if (std::FILE* in = std::fopen(file.c_str(), "r")) {
    if (std::fscanf(in, "%lf %31s", &ms, outcome) != 2) ms = -1;
    std::fclose(in);
  }
  return {ms, outcome};
}

// The seven samples as one batch, cache bypassed: one after another vs compile_all() on every
// hardware thread (the first seven makers; the table predates gemm_mma).
void batch_table(std::span<Kernel (*const)()> makers, int repeats) {
  std::vector<Kernel> batch;
  for (auto make : makers) batch.push_back(make());
  const int n = std::min(repeats, 7);
  std::printf("\nbatch of %zu samples, cache bypassed, median of %d (milliseconds; %u hardware threads)\n", batch.size(), n,
              std::thread::hardware_concurrency());
  std::printf("%-10s %12s %14s %9s\n", "target", "serial", "compile_all", "speed-up");
  for (const Target& t : {Target::amdgpu("gfx90a"), Target::amdgpu("gfx1100"), Target::host()}) {
    double serial = median_ms(n, [&] {
      for (const Kernel& k : batch) compile(k, t, uncached());
    });
    double parallel = median_ms(n, [&] { compile_all(batch, t, uncached()); });
    std::printf("%-10s %12.1f %14.1f %8.2fx\n", t.str().c_str(), serial, parallel, serial / parallel);
  }
}

}  // namespace

int main(int argc, char** argv) {
  // Compiles are measured with glibc's malloc tuned for them (Settings::tune_malloc, off by
  // default in the library; the README's figures were taken with it), unless the environment says
  // how malloc should be: ROCJIT_MALLOC_TUNING=0 measures without.
  bool environment_tunes = false;
  for (const char* v : {"ROCJIT_MALLOC_TUNING", "GLIBC_TUNABLES", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_",
                        "MALLOC_TOP_PAD_"})
    environment_tunes = environment_tunes || std::getenv(v);
  if (!environment_tunes) update_settings([](Settings& s) { s.tune_malloc = true; });
  int repeats = 15;
  bool phases_only = false, batch_only = false, startup_only = false;
  // The first seven have HIP twins (hip_sources) for the hipRTC and start-up tables; gemm_mma and
  // attention_mma (sample-gemm and sample-attention, dsl::mma) are in the warm-compile and phase tables.
  Kernel (*makers[])() = {samples::saxpy,     samples::reverse,   samples::matmul,
                          samples::reduce,    samples::transpose, samples::histogram,
                          samples::jacobi,    samples::gemm_mma<half>, samples::attention_mma<32>};
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--list-kernels") == 0) {  // one name a line, in INDEX order (scripts/symbol-order.sh)
      for (auto make : makers) std::printf("%s\n", make().name().c_str());
      return 0;
    }
    if (std::strcmp(argv[i], "--phases") == 0) phases_only = true;
    if (std::strcmp(argv[i], "--batch") == 0) batch_only = true;
    if (std::strcmp(argv[i], "--startup") == 0) startup_only = true;
    if (std::strncmp(argv[i], "--repeat=", 9) == 0) repeats = std::max(1, std::atoi(argv[i] + 9));
    if (std::strncmp(argv[i], "--host-disk=", 12) == 0) {  // child of host_disk_ms: INDEX:FILE
      compile_host(samples::saxpy().ir(), uncached());  // the JIT's start-up out of the way
      int index = std::atoi(argv[i] + 12);
      Kernel k = makers[index]();
      auto t0 = Clock::now();
      compile_host(k.ir());
      double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      std::FILE* out = std::fopen(std::strchr(argv[i], ':') + 1, "w");
      if (!out) return 1;
      std::fprintf(out, "%.3f %s\n", ms, last_compile_record(k.name(), "host").cache.c_str());
      std::fclose(out);
      return 0;
    }
    if (std::strcmp(argv[i], "--start-only") == 0) return 0;  // child of the start-up table: loading alone
    if (std::strncmp(argv[i], "--disk-launch=", 14) == 0) {   // child of the start-up table: a cached kernel
      compile(makers[std::atoi(argv[i] + 14)](), Target::amdgpu("gfx90a"));
      return 0;
    }
    if (std::strncmp(argv[i], "--device-only=", 14) == 0) {  // child of the device start-up table
      return get_device(argv[i] + 14).name().empty() ? 1 : 0;
    }
    if (std::strncmp(argv[i], "--warm-launch=", 14) == 0) {  // child of the device start-up table
      // saxpy on 256 elements from the disk cache: the device, the arrays, one launch, the copy back.
      set_default_device(get_device(argv[i] + 14));
      std::vector<float> x(256), y(256, 1.0f);
      for (size_t e = 0; e < x.size(); ++e) x[e] = static_cast<float>(e);
      DeviceArray<float> dx = to_device(x), dy = to_device(y);
      samples::saxpy()[{Dim3(2), Dim3(128)}](2.0f, dx, dy);
      std::vector<float> got = dy.copy_to_host().to_vector();
      for (size_t e = 0; e < got.size(); ++e)
        if (got[e] != 2.0f * x[e] + 1.0f) return 1;
      return 0;
    }
    if (std::strncmp(argv[i], "--disk-host=", 12) == 0) {  // child of the start-up table: a cached host kernel
      compile_host(makers[std::atoi(argv[i] + 12)]().ir());
      return 0;
    }
    if (std::strncmp(argv[i], "--profile=", 10) == 0) {  // INDEX:TARGET:OPT:N, for callgrind (docs/performance.md)
      // N warm compiles of one sample, past both caches: TARGET is an AMDGPU processor or "host".
      disk_cache("");
      int index = 0, opt = 3, n = 1;
      char target[32] = {};
      if (std::sscanf(argv[i] + 10, "%d:%31[^:]:%d:%d", &index, target, &opt, &n) != 4) return 2;
      Kernel k = makers[index]();
      for (int r = 0; r < n; ++r) {
        if (std::strcmp(target, "host") == 0) {
          CompileOptions options = uncached();
          options.opt_level = opt;
          compile_host(k.ir(), options);
        } else {
          clear_memory_cache();
          compile(k, Target::amdgpu(target), CompileOptions{.opt_level = opt});
        }
      }
      return 0;
    }
    if (std::strncmp(argv[i], "--cold=", 7) == 0) {  // child of cold_process_ms
      disk_cache("");
      int index = std::atoi(argv[i] + 7);
      compile(makers[index](), Target::amdgpu(std::strchr(argv[i], ':') + 1));
      return 0;
    }
  }
  if (batch_only) {  // --batch: the batch table alone
    disk_cache("");
    compile(samples::saxpy(), Target::amdgpu("gfx90a"));  // target initialisation out of the way
    batch_table(std::span<Kernel (*const)()>(makers, 7), repeats);
    return 0;
  }
  if (phases_only) {  // --phases: where a warm compile's time goes
    disk_cache("");
    compile(samples::saxpy(), Target::amdgpu("gfx90a"));  // target initialisation out of the way
    compile_host(samples::saxpy().ir(), uncached());
    const char* names[] = {"verify", "lower", "optimise", "codegen", "link", "metadata"};
    for (const char* target : {"amdgpu:gfx90a", "host"}) {
      std::printf("%swarm %s O3 compile by phase, median of %d, milliseconds\n%-10s", target[0] == 'h' ? "\n" : "",
                  target, repeats, "kernel");
      for (const char* n : names) std::printf(" %9s", n);
      std::printf(" %9s\n", "total");
      for (Kernel (*make)() : makers) {
        std::vector<std::vector<double>> t(std::size(names) + 1);
        Kernel k = make();
        for (int r = 0; r < repeats; ++r) {
          if (target[0] == 'h') {
            compile_host(k.ir(), uncached());
          } else {
            clear_memory_cache();
            compile(k, Target::amdgpu("gfx90a"));
          }
          CompileRecord c = last_compile_record(k.name(), target);
          for (size_t i = 0; i < std::size(names); ++i) t[i].push_back(c.phase_ms(names[i]));
          t.back().push_back(c.total_ms);
        }
        std::printf("%-10s", k.name().c_str());
        for (auto& v : t) {
          std::sort(v.begin(), v.end());
          std::printf(" %9.3f", v[v.size() / 2]);
        }
        std::printf("\n");
      }
    }
    return 0;
  }
  disk_cache("");  // compiles measure compiling: no disk cache (the memory cache is cleared per run)
  char pattern[] = "/tmp/rocjit-bench-cache-XXXXXX";
  std::string disk_dir = std::string(mkdtemp(pattern)) + "/cache";
  // What a process pays before its first kernel: a bare process (/bin/true), this binary started
  // with an option that returns at once (dynamic loading of librocjit and its static
  // initialisers: no LLVM, issue 37), against processes that compile a sample whose code object
  // (gfx90a) or host shared object is already in the disk cache: librocjit-compiler.so is not
  // loaded by either.
  auto startup_table = [&] {
    ChildEnvironment env(disk_dir + "-startup");
    auto spawn_ms = [&](const std::string& arg) {
      char* child[] = {argv[0], const_cast<char*>(arg.c_str()), nullptr};
      auto t0 = Clock::now();
      pid_t pid = 0;
      if (posix_spawn(&pid, argv[0], nullptr, nullptr, child, env.data()) != 0) return -1.0;
      int status = 0;
      waitpid(pid, &status, 0);
      double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? ms : -1.0;
    };
    auto median_of = [&](const std::string& arg) {
      std::vector<double> t;
      for (int r = 0; r < std::max(5, std::min(repeats, 15)); ++r) t.push_back(spawn_ms(arg));
      std::sort(t.begin(), t.end());
      return t[t.size() / 2];
    };
    const double start_only = median_of("--start-only");
    double bare = 0;
    {
      std::vector<double> t;
      for (int r = 0; r < std::max(5, std::min(repeats, 15)); ++r) {
        char* child[] = {const_cast<char*>("/bin/true"), nullptr};
        auto t0 = Clock::now();
        pid_t pid = 0;
        if (posix_spawn(&pid, "/bin/true", nullptr, nullptr, child, env.data()) != 0) break;
        int status = 0;
        waitpid(pid, &status, 0);
        t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      }
      std::sort(t.begin(), t.end());
      bare = t.empty() ? -1 : t[t.size() / 2];
    }
    std::printf("\nprocess start-up, median of %d fresh processes (milliseconds): this binary returning at once "
                "(loading librocjit, static initialisers), and compiling one sample whose code object (gfx90a) or "
                "host shared object is in the disk cache; bare = /bin/true\n",
                std::max(5, std::min(repeats, 15)));
    std::printf("%-10s %8s %12s %14s %14s\n", "kernel", "bare", "start only", "gfx90a hit", "host hit");
    for (int index = 0; index < 7; ++index) {
      spawn_ms("--disk-launch=" + std::to_string(index));  // fill the disk entries
      spawn_ms("--disk-host=" + std::to_string(index));
      std::printf("%-10s %8.1f %12.1f %14.1f %14.1f\n", makers[index]().name().c_str(), bare, start_only,
                  median_of("--disk-launch=" + std::to_string(index)), median_of("--disk-host=" + std::to_string(index)));
    }
    // On a device: the device opened alone (for the simulator, its own start-up: loading its HIP
    // library and its decoder), and saxpy launched once on 256 elements from a warm disk cache.
    std::printf("\nprocess start-up on a device, median of %d fresh processes (milliseconds): the device opened "
                "alone, and saxpy (256 elements) copied in, launched once from the disk cache and copied back\n",
                std::max(5, std::min(repeats, 15)));
    std::printf("%-12s %8s %12s %12s %12s %12s\n", "device", "bare", "start only", "device only", "warm launch",
                "above bare");
    for (const char* device : {"cpu", "sim:gfx942"}) {
      spawn_ms(std::string("--warm-launch=") + device);  // fill the disk entry
      const double open = median_of(std::string("--device-only=") + device);
      const double launch = median_of(std::string("--warm-launch=") + device);
      std::printf("%-12s %8.1f %12.1f %12.1f %12.1f %12.1f\n", device, bare, start_only, open, launch, launch - bare);
    }
    };
  if (startup_only) {  // --startup: the start-up table alone
    startup_table();
    std::error_code ec;
    std::filesystem::remove_all(std::filesystem::path(disk_dir).parent_path(), ec);
    return 0;
  }
  auto first_start = Clock::now();
  compile(samples::saxpy(), Target::amdgpu("gfx90a"));
  double first = std::chrono::duration<double, std::milli>(Clock::now() - first_start).count();
  std::printf("first compile in this process (LLVM target initialisation included): %.1f ms\n\n", first);
  std::printf("warm compile, median of %d, milliseconds\n", repeats);
  std::printf("%-10s %10s %12s %12s %12s %12s %12s %14s %14s %12s\n", "kernel", "trace", "gfx90a O3", "gfx1100 O3",
              "gfx90a O0", "host JIT O3", "host JIT O1", "mem hit (us)", "ir& hit (us)", "disk hit");
  for (auto make : makers) {
    Kernel k = make();
    double trace = median_ms(repeats, [&] { make(); });
    auto cold = [&](const Target& t, CompileOptions o = {}) {
      return median_ms(repeats, [&] {
        clear_memory_cache();
        compile(k, t, o);
      });
    };
    double g90a = cold(Target::amdgpu("gfx90a"));
    double g1100 = cold(Target::amdgpu("gfx1100"));
    double o0 = cold(Target::amdgpu("gfx90a"), CompileOptions{.opt_level = 0});
    double host = median_ms(repeats, [&] { compile_host(k.ir(), uncached()); });
    // What a CPU-device launch waits for when the kernel cache lacks the O3 kernel (tiering).
    CompileOptions quick = uncached();
    quick.opt_level = 1;
    double host_o1 = median_ms(repeats, [&] { compile_host(k.ir(), quick); });
    // Kernel (immutable IR: verified and fingerprinted once) and a plain ir::Kernel reference
    // (verified and printed for its key on every call).
    double memory_hit = 1000 * median_ms(repeats, [&] { compile(k, Target::amdgpu("gfx90a")); });
    double ir_ref_hit = 1000 * median_ms(repeats, [&] { compile(k.ir(), Target::amdgpu("gfx90a")); });
    disk_cache(disk_dir);
    clear_memory_cache();
    compile(k, Target::amdgpu("gfx90a"));  // fills the disk entry
    double disk_hit = median_ms(repeats, [&] {
      clear_memory_cache();
      compile(k, Target::amdgpu("gfx90a"));
    });
    disk_cache("");
    std::printf("%-10s %10.3f %12.2f %12.2f %12.2f %12.2f %12.2f %14.2f %14.2f %12.3f\n", k.name().c_str(), trace,
                g90a, g1100, o0, host, host_o1, memory_hit, ir_ref_hit, disk_hit);
  }
  std::printf("\nwarm gfx90a O3 split (median of %d): rocjit's own work (trace, checks, cache key, IR passes, lower) vs "
              "LLVM (optimise, codegen, link, metadata); cold = a fresh process compiling one kernel; hipRTC = "
              "the same algorithm as HIP source\n", repeats);
  std::printf("%-10s %9s %9s %9s %11s %11s %11s %9s\n", "kernel", "rocjit", "LLVM", "own %", "cold gfx90a",
              "cold gfx1100", "hipRTC", "hipRTC/x");
  HipRtc hiprtc;
  for (int index = 0; index < 7; ++index) {
    Kernel (*make)() = makers[index];
    std::vector<double> own, llvm;
    for (int r = 0; r < repeats; ++r) {
      clear_memory_cache();
      Kernel k = make();
      compile(k, Target::amdgpu("gfx90a"));
      CompileRecord t = last_compile_record(k.name(), "dsl");
      CompileRecord c = last_compile_record(k.name(), "amdgpu:gfx90a");
      own.push_back(t.total_ms + c.phase_ms("verify") + c.phase_ms("uniformity") + c.phase_ms("cache lookup") +
                    c.phase_ms("legalize types") + c.phase_ms("expand math") + c.phase_ms("lower"));
      llvm.push_back(c.phase_ms("optimise") + c.phase_ms("codegen") + c.phase_ms("link") + c.phase_ms("metadata"));
    }
    std::sort(own.begin(), own.end());
    std::sort(llvm.begin(), llvm.end());
    double o = own[own.size() / 2], l = llvm[llvm.size() / 2];
    std::vector<double> cold90a, cold1100;
    for (int r = 0; r < std::min(repeats, 5); ++r) {
      cold90a.push_back(cold_process_ms(argv[0], index, "gfx90a"));
      cold1100.push_back(cold_process_ms(argv[0], index, "gfx1100"));
    }
    std::sort(cold90a.begin(), cold90a.end());
    std::sort(cold1100.begin(), cold1100.end());
    char rtc[32] = "n/a", ratio[32] = "n/a";
    if (hiprtc.create) {
      std::vector<double> t;
      for (int r = 0; r < std::min(repeats, 3); ++r) t.push_back(hiprtc.run(hip_sources[index], "gfx90a"));
      std::sort(t.begin(), t.end());
      double m = t[t.size() / 2];
      if (m > 0) {
        std::snprintf(rtc, sizeof rtc, "%.1f", m);
        std::snprintf(ratio, sizeof ratio, "%.1f", m / (o + l));
      } else {
        std::snprintf(rtc, sizeof rtc, "failed");
      }
    }
    std::printf("%-10s %9.3f %9.2f %8.1f%% %11.1f %11.1f %11s %9s\n", make().name().c_str(), o, l, 100 * o / (o + l),
                cold90a[cold90a.size() / 2], cold1100[cold1100.size() / 2], rtc, ratio);
  }
  std::printf("\nhost kernel cache: compile_host() in a new process, median of %d; the first run compiles and "
              "stores, the next load from disk (milliseconds)\n", std::min(repeats, 5));
  std::printf("%-10s %12s %12s\n", "kernel", "host miss", "host disk");
  for (int index = 0; index < 7; ++index) {
    std::vector<double> miss, hit;
    bool ok = true;
    for (int r = 0; r < std::min(repeats, 5); ++r) {
      std::string dir = fmt_dir(disk_dir, "host", index, r);
      auto [m, first_outcome] = host_disk_ms(argv[0], index, dir);
      auto [h, second_outcome] = host_disk_ms(argv[0], index, dir);
      ok = ok && first_outcome == "miss" && second_outcome == "disk";
      miss.push_back(m);
      hit.push_back(h);
    }
    std::sort(miss.begin(), miss.end());
    std::sort(hit.begin(), hit.end());
    if (ok)
      std::printf("%-10s %12.2f %12.3f\n", makers[index]().name().c_str(), miss[miss.size() / 2], hit[hit.size() / 2]);
    else
      std::printf("%-10s %12s %12s\n", makers[index]().name().c_str(), "failed", "failed");
  }
  startup_table();
  batch_table(std::span<Kernel (*const)()>(makers, 7), repeats);
  std::error_code ec;
  std::filesystem::remove_all(std::filesystem::path(disk_dir).parent_path(), ec);
  std::printf("goals: warm compile <= 10 ms, >= 10x faster than hipRTC, rocjit's share < 10%%, memory hit <= 2 us, disk hit <= 1 ms\n");
  return 0;
}

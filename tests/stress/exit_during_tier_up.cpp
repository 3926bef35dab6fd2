// A process that returns from main while a CPU tier-up compile runs, where that compile has
// constructed a function-local static (as LLVM does on first use of many code paths: its
// destructor is registered after anything rocjit registered before the compile began). exit()
// must not destroy that static while the compile still uses it: the tier-up must end before any
// static destructor runs. Before the fix this failed every run (the canary's destructor ran first,
// while the compile slept in the log handler); it is the deterministic form of the rare SIGSEGV
// in SelectionDAG that exit_under_load.sh caught.
//
// The log handler stands in for LLVM's code: it is called on the tier-up thread, inside the
// tier-up task (the debug message that the O3 code is in use), and constructs the canary there.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <thread>

#include <rocjit/rocjit.hpp>

#include "sample_kernels.hpp"

using namespace rocjit;

namespace {

struct Canary {
  std::atomic<bool> alive{true};
  ~Canary() { alive = false; }
};

std::atomic<bool> canary_made{false};

}  // namespace

int main() {
  update_settings([](Settings& s) {
    s.log_level = LogLevel::debug;
    s.disk_cache = false;  // no O3 kernel from an earlier run: the second launch starts a tier-up
    s.cpu_tiering = true;
  });
  set_log_handler([](LogLevel, std::string_view message) {
    if (message.find("the O3 code for work-group shape") == std::string_view::npos) return;
    static Canary canary;  // constructed on the tier-up thread, during the tier-up
    canary_made = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // main returns meanwhile
    if (!canary.alive) {
      std::fputs("FAIL: exit destroyed a static the running tier-up compile had constructed\n", stderr);
      std::fflush(stderr);
      std::_Exit(1);
    }
  });
  Kernel k = samples::saxpy();
  const int64_t n = 1000;
  std::vector<float> x(n, 1.0f), y(n, 2.0f);
  DeviceArray<float> dx = to_device(x), dy = to_device(y);  // ROCJIT_DEVICE=cpu (ctest)
  for (int launch = 0; launch < 2; ++launch)  // the second launch of the shape starts the tier-up
    k[{Dim3(4), Dim3(256)}](3.0f, dx, dy);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!canary_made) {
    if (std::chrono::steady_clock::now() > deadline) {
      std::fputs("FAIL: no tier-up compile reported its O3 code within 120 s\n", stderr);
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::vector<float> got = dy.copy_to_host().to_vector();
  for (int64_t i = 0; i < n; ++i)
    if (got[i] != 8.0f) {
      std::fprintf(stderr, "FAIL: y[%lld] = %g, expected 8\n", static_cast<long long>(i), got[i]);
      return 1;
    }
  std::puts("PASS");
  return 0;  // exit() while the tier-up task still runs (it sleeps in the log handler)
}

// Debugging kernels (issue 36): dsl::print and dsl::device_assert on the device under test (cpu,
// interp, sim:<processor> through the runtime's HIP device path, hip:N).
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "e2e.hpp"
#include "lookback_scan.hpp"
#include "scoped_settings.hpp"

using namespace rocjit;
using Catch::Matchers::Contains;
using rocjit::testing::ScopedSettings;
using rocjit::testing::test_device;

namespace {

// Collects device print output and warnings while it lives; restores the default handlers.
struct Captured {
  std::mutex lock;
  std::vector<std::string> lines;
  std::vector<std::string> warnings;
  Captured() {
    set_print_handler([this](std::string_view text) {
      std::lock_guard<std::mutex> g(lock);
      lines.emplace_back(text);
    });
    set_log_handler([this](LogLevel level, std::string_view message) {
      std::lock_guard<std::mutex> g(lock);
      if (level <= LogLevel::warning) warnings.emplace_back(message);
    });
  }
  ~Captured() {
    set_print_handler(nullptr);
    set_log_handler(nullptr);
  }
  std::vector<std::string> take() {
    std::lock_guard<std::mutex> g(lock);
    return std::exchange(lines, {});
  }
};

}  // namespace

TEST_CASE("print formats every value type with fmt specs, prefixed with the work-item") {
  using namespace rocjit::dsl;
  Captured out;
  Kernel k = kernel("print_types", [](Array<float> x) {
    Int i = global_id(0);
    If(i < x.shape(0), [&] {
      Float v = x(i);
      Value h = cast<half>(v), b = cast<bfloat16>(v);
      Value small = cast<int8_t>(i - 3), big = cast<uint64_t>(i) * uint64_t(1) << 40;
      print("i={} v={:.3f} h={} b={} s={} u={:#x} ok={} lit={} vec={:.1f}\n", i, v, h, b, small, big, i > 1, 7,
            Vec<float, 2>(v, v * 2.0f));
    });
  });
  std::vector<float> host = {0.5f, 1.25f, -2.0f, 3.0f};
  auto d = to_device(host);
  k[{{2}, {2}}](d);
  test_device().synchronize();
  std::vector<std::string> lines = out.take();
  std::sort(lines.begin(), lines.end());
  REQUIRE(lines.size() == 4);
  CHECK(lines[0] == "[group 0 item 0] i=0 v=0.500 h=0.5 b=0.5 s=-3 u=0x0 ok=false lit=7 vec=(0.5, 1.0)\n");
  CHECK(lines[1] == "[group 0 item 1] i=1 v=1.250 h=1.25 b=1.25 s=-2 u=0x10000000000 ok=false lit=7 vec=(1.2, 2.5)\n");
  CHECK(lines[2] == "[group 1 item 0] i=2 v=-2.000 h=-2 b=-2 s=-1 u=0x20000000000 ok=true lit=7 vec=(-2.0, -4.0)\n");
  CHECK(lines[3] == "[group 1 item 1] i=3 v=3.000 h=3 b=3 s=0 u=0x30000000000 ok=true lit=7 vec=(3.0, 6.0)\n");
}

TEST_CASE("print from many work-items of 2-D launches, sorted by (group, work-item) when asked") {
  using namespace rocjit::dsl;
  Captured out;
  ScopedSettings sorted([](Settings& s) { s.print_sorted = true; });
  Kernel k = kernel("print_many", [](Array<int32_t> dummy) {
    Int x = local_id(0), y = local_id(1);
    If((x + y) % 3 == 0, [&] { print("{} {}", group_id(0) * 100 + group_id(1), x * 10 + y); });
  });
  auto d = device_array<int32_t>({1});
  k[{{3, 2}, {16, 4}}](d);
  test_device().synchronize();
  const std::vector<std::string> lines = out.take();
  std::vector<std::string> expected;
  for (int gy = 0; gy < 2; ++gy)
    for (int gx = 0; gx < 3; ++gx)
      for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 16; ++x)
          if ((x + y) % 3 == 0)
            expected.push_back(fmt::format("[group ({},{},0) item ({},{},0)] {} {}\n", gx, gy, x, y, gx * 100 + gy,
                                           x * 10 + y));
  CHECK(lines == expected);  // sorted, and the missing newline added
}

TEST_CASE("print records beyond the buffer are dropped and counted in a warning") {
  using namespace rocjit::dsl;
  Captured out;
  ScopedSettings small([](Settings& s) { s.print_buffer_bytes = 1024; });  // 25 records of 40 bytes
  Kernel k = kernel("print_overflow", [](Array<int32_t> dummy) { print("{}\n", global_id(0)); });
  auto d = device_array<int32_t>({1});
  k[{{4}, {64}}](d);
  test_device().synchronize();
  const std::vector<std::string> lines = out.take();
  CHECK(lines.size() == 25);
  std::set<std::string> distinct(lines.begin(), lines.end());
  CHECK(distinct.size() == lines.size());
  std::lock_guard<std::mutex> g(out.lock);
  REQUIRE(out.warnings.size() == 1);
  CHECK_THAT(out.warnings[0], Contains("kernel 'print_overflow': 231 device print records did not fit in the "
                                       "1024-byte print buffer"));
}

TEST_CASE("print on a stream is delivered when the stream is synchronised") {
  using namespace rocjit::dsl;
  Captured out;
  Kernel k = kernel("print_stream", [](Array<int32_t> dummy, Int value) {
    If(global_id(0) == 0, [&] { print("value {}", value); });
  });
  Stream s = stream();
  auto d = device_array<int32_t>({1});
  k[{{1}, {64}, s}](d, 1);
  k[{{1}, {64}, s}](d, 2);
  s.synchronize();
  CHECK(out.take() == std::vector<std::string>{"[group 0 item 0] value 1\n", "[group 0 item 0] value 2\n"});
  k[{{1}, {64}}](d, 3);  // the default stream is synchronous: delivered when the launch returns
  CHECK(out.take() == std::vector<std::string>{"[group 0 item 0] value 3\n"});
}

TEST_CASE("a failing device_assert raises DeviceAssertion at synchronisation; the device stays usable") {
  using namespace rocjit::dsl;
  Captured out;
  const int line = __LINE__ + 4;
  Kernel k = kernel("assert_positive", [](Array<float> x, Array<float> y) {
    Int i = global_id(0);
    If(i < x.shape(0), [&] {
      device_assert(x(i) > 0.0f, "x[{}] = {} is not positive", i, x(i));
      y(i) = x(i) * 2.0f;
    });
  });
  std::vector<float> host(300, 1.0f);
  host[77] = -1.5f;
  host[201] = -3.0f;
  auto d = to_device(host);
  auto y = device_array<float>({300});
  Stream s = stream();
  k[{{3}, {128}, s}](d, y);  // records, carries on: every y is written
  try {
    s.synchronize();
    FAIL("no DeviceAssertion");
  } catch (const DeviceAssertion& e) {
    CHECK(e.kernel == "assert_positive");
    CHECK(e.line == static_cast<uint32_t>(line));
    CHECK(e.file.find("debug_tests.cpp") != std::string::npos);
    CHECK(e.failures == 2);
    const bool first77 = e.group[0] == 0 && e.item[0] == 77;
    const bool first201 = e.group[0] == 1 && e.item[0] == 201 - 128;
    CHECK((first77 || first201));
    CHECK(e.text == (first77 ? "x[77] = -1.5 is not positive" : "x[201] = -3 is not positive"));
    CHECK_THAT(e.what(), Contains("kernel 'assert_positive': device assertion failed at") &&
                             Contains("debug_tests.cpp:" + std::to_string(line)) &&
                             Contains("(2 work-items failed; this is the first recorded)"));
  }
  s.synchronize();  // reported once
  std::vector<float> yh = y.copy_to_host().to_vector();
  CHECK(yh[77] == -3.0f);
  CHECK(yh[299] == 2.0f);
  // The same device runs the next launch, on the default stream too, where the launch reports it.
  host[77] = 1.0f;
  host[201] = 1.0f;
  d = to_device(host);
  k[{{3}, {128}}](d, y);
  host[5] = -1.0f;
  d = to_device(host);
  CHECK_THROWS_AS((k[{{3}, {128}}](d, y)), DeviceAssertion);
}

TEST_CASE("ROCJIT_ASSERT=off compiles device_assert out") {
  using namespace rocjit::dsl;
  ScopedSettings off([](Settings& s) { s.asserts = AssertMode::off; });
  Kernel k = kernel("assert_off", [](Array<int32_t> y) {
    Int i = global_id(0);
    device_assert(i < 0, "never true");
    y(i) = i;
  });
  auto y = device_array<int32_t>({64});
  k[{{1}, {64}}](y);
  test_device().synchronize();
  CHECK(y.copy_to_host().to_vector()[63] == 63);
}

TEST_CASE("print and device_assert formats are checked when the kernel is traced") {
  using namespace rocjit::dsl;
  const int line = __LINE__ + 1;
  CHECK_THROWS_WITH(kernel("bad_spec", [](Array<float> x) { print("{:d}\n", x(0)); }),
                    Contains("kernel 'bad_spec': print(\"{:d}\n\", ...): the format does not fit its values' types "
                             "(f32)") &&
                        Contains("debug_tests.cpp:" + std::to_string(line)));
  CHECK_THROWS_WITH(kernel("bad_count", [](Array<float> x) { print("{} {}", x(0)); }),
                    Contains("the format has 2 replacement fields but 1 value was given"));
  CHECK_THROWS_WITH(kernel("bad_brace", [](Array<float> x) { print("{", x(0)); }), Contains("is not closed"));
  CHECK_THROWS_WITH(kernel("bad_named", [](Array<float> x) { print("{x}", x(0)); }), Contains("names an argument"));
  CHECK_THROWS_WITH(kernel("bad_condition", [](Array<float> x) { device_assert(x(0), "m"); }),
                    Contains("device_assert's condition is f32"));
}

TEST_CASE("print after barriers, in loops and next to wave operations prints what each work-item holds") {
  using namespace rocjit::dsl;
  Captured out;
  ScopedSettings sorted([](Settings& s) { s.print_sorted = true; });
  Kernel k = kernel("print_barrier", [](Array<int32_t> x) {
    auto tile = shared::array<int32_t>({64});
    Int t = local_id(0);
    Int before = t * 3;  // kept across the barrier
    tile(t) = x(global_id(0));
    barrier(CLK_LOCAL_MEM_FENCE);
    Int sum = wave::reduce_add(tile(t));
    For(0, 2, [&](Int j) {
      If(t % 16 == 0, [&] { print("j={} before={} neighbour={} wave sum={}", j, before, tile(63 - t), sum); });
    });
  });
  std::vector<int32_t> host(128);
  for (int i = 0; i < 128; ++i) host[i] = i;
  auto d = to_device(host);
  k[{{2}, {64}}](d);
  test_device().synchronize();
  const std::vector<std::string> lines = out.take();
  const int wave = rocjit::testing::device_wave_size();
  std::vector<std::string> expected;
  for (int g = 0; g < 2; ++g)
    for (int t = 0; t < 64; t += 16) {
      int first = g * 64 + t / wave * wave, sum = 0;
      for (int l = 0; l < wave; ++l) sum += first + l;
      for (int j = 0; j < 2; ++j)
        expected.push_back(fmt::format("[group {} item {}] j={} before={} neighbour={} wave sum={}\n", g, t, j, t * 3,
                                       g * 64 + 63 - t, sum));
    }
  CHECK(lines == expected);
}

TEST_CASE("ROCJIT_ASSERT=trap: AMDGPU code traps after recording; the assert is what the launch reports") {
  using namespace rocjit::dsl;
  ScopedSettings trap([](Settings& s) { s.asserts = AssertMode::trap; });
  const int line = __LINE__ + 3;
  Kernel k = kernel("assert_trap", [](Array<int32_t> y) {
    Int i = global_id(0);
    device_assert(i != 70, "i is {}", i);
    y(i) = i;
  });
  auto y = device_array<int32_t>({128});
  try {
    k[{{2}, {64}}](y);
    FAIL("no DeviceAssertion");
  } catch (const DeviceAssertion& e) {
    CHECK(e.line == static_cast<uint32_t>(line));
    CHECK(e.text == "i is 70");
    CHECK(e.failures == 1);
    // The CPU and the interpreter record and carry on (trap acts as report there); AMDGPU code traps.
    const bool host = test_device().processor() == "host";
    CHECK((std::string(e.what()).find("the kernel trapped there") != std::string::npos) == !host);
  }
  // The device runs the next launch.
  Kernel fine = kernel("after_trap", [](Array<int32_t> y) { y(global_id(0)) = 5; });
  fine[{{2}, {64}}](y);
  CHECK(y.copy_to_host().to_vector()[127] == 5);
}

TEST_CASE("a memory fault on the simulator names the user's file:line (the code object's line table)") {
  using namespace rocjit::dsl;
  if (!test_device().is_simulator()) return;  // the CPU device has no fault reports without bounds checking
  const int line = __LINE__ + 3;
  Kernel k = kernel("fault_line", [](Array<float> x) {
    Int i = global_id(0);
    x(i + (1 << 28)) = 1.0f;  // 1 GiB past the array: a memory fault
  });
  auto x = device_array<float>({64});
  CHECK_THROWS_WITH((k[{{1}, {64}}](x)),
                    Contains("memory fault") && Contains("debug_tests.cpp:" + std::to_string(line)));
  // Without line tables the report has the PC only.
  ScopedSettings no_lines([](Settings& s) { s.line_tables = false; });
  Kernel plain = kernel("fault_no_line", [](Array<float> x) { x(global_id(0) + (1 << 28)) = 1.0f; });
  CHECK_THROWS_WITH((plain[{{1}, {64}}](x)), Contains("memory fault") && !Contains("debug_tests.cpp:"));
}

// ---- the race and sync checker (ROCJIT_CHECK=races; the CPU device and the simulator) -----------

namespace {
// Runs `launch` with the race checker on and returns its LaunchError's message ("" if none).
template <class F>
std::string race_report(F&& launch) {
  ScopedSettings races([](Settings& s) { s.check_races = true; });
  try {
    launch();
    test_device().synchronize();
  } catch (const LaunchError& e) {
    return e.what();
  }
  return {};
}
bool checks_races() { return test_device().id() == "cpu" || test_device().is_simulator(); }
// How the report names a shared array: by name on every device ("shared array 'tile' at byte 256
// of the group's shared memory" on the CPU; on the simulator "shared array 'tile' [64] (byte 256
// of the group's LDS)", from the layout rocjit's check_races compiles carry in the code object).
std::string shared_place(const std::string& name) {
  return test_device().is_simulator() ? "shared array '" + name + "' [" : "shared array '" + name + "' at byte";
}
}  // namespace

TEST_CASE("race check: a reduction missing one barrier is reported with both lines") {
  using namespace rocjit::dsl;
  if (!checks_races()) return;
  const int write_line = __LINE__ + 7, read_line = __LINE__ + 9;
  auto make = [](bool fixed) {
    return kernel(fixed ? "reduce_fixed" : "reduce_missing_barrier", [fixed](Array<float> x, Array<float> out) {
      auto tile = shared::array<float>({256}, "tile");
      Int t = local_id(0);
      tile(t) = x(global_id(0));
      barrier(CLK_LOCAL_MEM_FENCE);
      If(t < 128, [&] { tile(t) = tile(t) + tile(t + 128); });
      if (fixed) barrier(CLK_LOCAL_MEM_FENCE);
      If(t < 64, [&] { tile(t) = tile(t) + tile(t + 64); });
      barrier(CLK_LOCAL_MEM_FENCE);
      If(t == 0, [&] { out(group_id(0)) = tile(0) + tile(1); });
    });
  };
  auto x = to_device(std::vector<float>(512, 1.0f));
  auto out = device_array<float>({2});
  Kernel bad = make(false), good = make(true);
  const std::string report = race_report([&] { bad[{{2}, {256}}](x, out); });
  INFO(report);
  CHECK_THAT(report, Contains("race check: kernel 'reduce_missing_barrier': " + shared_place("tile")));
  CHECK_THAT(report, Contains("write at ") && Contains("debug_tests.cpp:" + std::to_string(write_line)));
  CHECK_THAT(report, Contains("read at ") && Contains("debug_tests.cpp:" + std::to_string(read_line)));
  CHECK_THAT(report, Contains("with no barrier between them"));
  CHECK_THAT(report, Contains("1 race and 0 uninitialised shared reads"));
  CHECK(race_report([&] { good[{{2}, {256}}](x, out); }).empty());
}

TEST_CASE("race check: a warp-synchronous scan without wavebarrier is a race; with it, clean") {
  using namespace rocjit::dsl;
  if (!checks_races()) return;
  // Numba's warp scan: lanes read their neighbour's shared element and add in place, relying on
  // lockstep that rocjit does not promise.
  // One wavefront: 64 work-items, or 32 on a wave32 device (gfx1100).
  const int n = test_device().is_simulator() ? static_cast<int>(test_device().wave_size()) : 64;
  const int read_line = __LINE__ + 9, write_line = __LINE__ + 11;
  auto make = [n](bool synced) {
    return kernel(synced ? "scan_wavebarrier" : "scan_lockstep", [synced, n](Array<int32_t> x) {
      auto s = shared::array<int32_t>({64}, "s");
      Int t = local_id(0);
      s(t) = x(t);
      wavebarrier();
      for (int d = 1; d < n; d *= 2) {
        Var<int32_t> add = 0;
        If(t >= d, [&] { add = s(t - d); });
        if (synced) wavebarrier();
        s(t) = s(t) + add;
        if (synced) wavebarrier();
      }
      x(t) = s(t);
    });
  };
  auto x = to_device(std::vector<int32_t>(n, 1));
  Kernel lockstep = make(false), synced = make(true);
  const std::string report = race_report([&] { lockstep[{{1}, {n}}](x); });
  INFO(report);
  CHECK_THAT(report, Contains("lanes of one wavefront with no barrier or wavebarrier() between them"));
  CHECK_THAT(report, Contains("debug_tests.cpp:" + std::to_string(read_line)) &&
                         Contains("debug_tests.cpp:" + std::to_string(write_line)));
  x = to_device(std::vector<int32_t>(n, 1));
  CHECK(race_report([&] { synced[{{1}, {n}}](x); }).empty());
  std::vector<int32_t> h = x.copy_to_host().to_vector();
  for (int i = 0; i < n; ++i) REQUIRE(h[i] == i + 1);
}

TEST_CASE("race check: two work-groups writing one global element; writes of the same value only when asked") {
  using namespace rocjit::dsl;
  if (!checks_races()) return;
  Kernel k = kernel("two_groups_one_element", [](Array<int32_t> out, Int same) {
    If(local_id(0) == 0, [&] { out(0) = select(same != 0, 7, group_id(0)); });
  });
  auto out = device_array<int32_t>({1});
  const std::string report = race_report([&] { k[{{2}, {64}}](out, 0); });
  INFO(report);
  CHECK_THAT(report, Contains("global array 'arg0' at address") && Contains("of group (0,0,0)") &&
                         Contains("of group (1,0,0)") && Contains("different work-groups of one launch"));
  CHECK(race_report([&] { k[{{2}, {64}}](out, 1); }).empty());  // both write 7
  ScopedSettings same([](Settings& s) { s.check_same_value = true; });
  Kernel k2 = kernel("two_groups_same_value", [](Array<int32_t> out) { If(local_id(0) == 0, [&] { out(0) = 7; }); });
  CHECK_THAT(race_report([&] { k2[{{2}, {64}}](out); }), Contains("different work-groups"));
}

TEST_CASE("race check: arrays proved race-free are still checked when arguments overlap or the launch breaks the proof") {
  using namespace rocjit::dsl;
  if (!checks_races()) return;
  // x is never written and y is written only at the work-item's own index: on the CPU device
  // neither is checked (compiler/passes/race_free.h) unless the launch makes them overlap.
  const int read_line = __LINE__ + 4, write_line = __LINE__ + 4;
  Kernel shift = kernel("shift_copy", [](Array<int32_t> x, Array<int32_t> y) {
    Int i = global_id(0);
    If(i + 1 < x.shape(0) && i < y.shape(0), [&] {
      Int v = x(i + 1); y(i) = v;
    });
  });
  auto a = to_device(std::vector<int32_t>(257, 1));
  auto b = device_array<int32_t>({257});
  CHECK(race_report([&] { shift[{{4}, {64}}](a, b); }).empty());
  // The same array as x and y: work-item i reads element i + 1, which work-item i + 1 writes.
  const std::string report = race_report([&] { shift[{{4}, {64}}](a, a); });
  INFO(report);
  CHECK_THAT(report, Contains("race check: kernel 'shift_copy'") &&
                         Contains("debug_tests.cpp:" + std::to_string(read_line)) &&
                         Contains("debug_tests.cpp:" + std::to_string(write_line)));
  // A 2-D launch of a kernel indexed by global_id(0) alone: work-items (i, 0) and (i, 1) write
  // one element.
  Kernel rows = kernel("one_index_two_rows", [](Array<int32_t> out) { out(global_id(0)) = global_id(1); });
  auto out = device_array<int32_t>({64});
  CHECK(race_report([&] { rows[{{1}, {64}}](out); }).empty());
  CHECK_THAT(race_report([&] { rows[{{1, 2}, {64, 1}}](out); }), Contains("race check: kernel 'one_index_two_rows'"));
  // A transpose's output index crosses group and local dimensions, C = 16: 16 x 16 groups write
  // each element once; groups 32 wide along x (local_id(0) up to 31) write their neighbours'.
  Kernel crossed = kernel("crossed_tiles", [](Array<int32_t, 2> out) {
    out(group_id(0) * 16 + local_id(1), group_id(1) * 16 + local_id(0)) = local_id(0);
  }, {.param_names = {"out"}});
  auto tiles = device_array<int32_t>({64, 64});
  CHECK(race_report([&] { crossed[{{4, 4}, {16, 16}}](tiles); }).empty());
  CHECK_THAT(race_report([&] { crossed[{{4, 2}, {32, 16}}](tiles); }),
             Contains("race check: kernel 'crossed_tiles'") && Contains("global array 'out'"));
}

TEST_CASE("race check: acquire/release orders work-groups; without it the same hand-off is a race") {
  using namespace rocjit::dsl;
  if (!checks_races()) return;
  // Group 1 waits for group 0's flag, then reads what group 0 wrote before setting it (group 1
  // waits for a lower group only, so every order the workers take the groups in finishes).
  // local_barrier: the release does not follow a barrier with a global fence, so only the
  // releasing work-item's own write is ordered before it. late_write: the data is written after
  // the release (and the flag is set before the barrier), so nothing orders it.
  enum class Handoff { release_acquire, fences, relaxed, local_barrier, late_write };
  int lines[3] = {0, 0, 0};
  auto make = [&](Handoff h) {
    const bool ordered = h == Handoff::release_acquire || h == Handoff::local_barrier || h == Handoff::late_write;
    return kernel("handoff", [&, h, ordered](Array<int32_t> data, Array<int32_t> flag, Array<int32_t> out) {
      Int t = local_id(0);
      const memory_order publish = ordered ? memory_order::release : memory_order::relaxed;
      const memory_order observe = ordered ? memory_order::acquire : memory_order::relaxed;
      If(group_id(0) == 0, [&] {
        if (h == Handoff::late_write) {
          If(t == 0, [&] { atomic::store(flag, 0, 1, publish); });
          lines[2] = __LINE__ + 1;
          data(t) = t * 3;
          return;
        }
        lines[0] = __LINE__ + 1;
        data(t) = t * 3;
        barrier(h == Handoff::local_barrier ? CLK_LOCAL_MEM_FENCE : CLK_GLOBAL_MEM_FENCE);
        If(t == 0, [&] {
          if (h == Handoff::fences) fence(memory_scope::device, memory_order::release);
          atomic::store(flag, 0, 1, publish);
        });
      });
      If(group_id(0) == 1, [&] {
        If(t == 0, [&] {
          While([&] { return atomic::load(flag, 0, observe) == 0; }, [&] {});
          if (h == Handoff::fences) fence(memory_scope::device, memory_order::acquire);
          Var<int32_t> sum = 0;
          lines[1] = __LINE__ + 1;
          For(0, 64, [&](Int j) { sum += data(j); });
          out(0) = sum;
        });
      });
    });
  };
  auto run = [&](Handoff h) {
    auto data = device_array<int32_t>({64});
    auto flag = to_device(std::vector<int32_t>{0});
    auto out = device_array<int32_t>({1});
    Kernel k = make(h);
    const std::string report = race_report([&] { k[{{2}, {64}}](data, flag, out); });
    if (report.empty()) CHECK(out.copy_to_host().to_vector()[0] == 3 * 63 * 64 / 2);
    return report;
  };
  CHECK(run(Handoff::release_acquire).empty());
  CHECK(run(Handoff::fences).empty());
  // Every checking device models acquire/release (the CPU device and the simulator alike).
  for (Handoff h : {Handoff::relaxed, Handoff::local_barrier, Handoff::late_write}) {
    const std::string report = run(h);
    INFO(report);
    const int write_line = lines[h == Handoff::late_write ? 2 : 0];
    CHECK_THAT(report, Contains("at " + std::string(__FILE__) + ":" + std::to_string(write_line)) &&
                           Contains("read at " + std::string(__FILE__) + ":" + std::to_string(lines[1])) &&
                           Contains("different work-groups of one launch, not ordered by acquire/release"));
    // The releasing work-item's own write is ordered before its release.
    if (h == Handoff::local_barrier) CHECK_THAT(report, !Contains("work-item (0,0,0) of group (0,0,0)"));
  }
}

TEST_CASE("race check: a decoupled look-back scan is clean; with relaxed flags its plain words race") {
  using namespace rocjit::dsl;
  if (!checks_races()) return;
  const int groups = 12, n = groups * testing::lookback_block;
  auto run = [&](memory_order publish, memory_order observe) {
    auto x = to_device(std::vector<int32_t>(n, 1));
    auto y = device_array<int32_t>({n});
    auto aggregate = device_array<int32_t>({groups});
    auto inclusive = device_array<int32_t>({groups});
    auto flag = to_device(std::vector<uint32_t>(groups, 0u));
    Kernel k = testing::lookback_scan(publish, observe);
    const std::string report = race_report([&] { k[{groups, testing::lookback_block}](x, y, aggregate, inclusive, flag); });
    if (report.empty()) CHECK(y.copy_to_host().to_vector().back() == n);
    return report;
  };
  CHECK(run(memory_order::release, memory_order::acquire).empty());
  CHECK(run(memory_order::seq_cst, memory_order::seq_cst).empty());
  const std::string report = run(memory_order::relaxed, memory_order::relaxed);
  INFO(report);
  CHECK_THAT(report, Contains("lookback_scan.hpp") && Contains("different work-groups of one launch") &&
                         (Contains("global array 'aggregate'") || Contains("global array 'inclusive'")));
}

TEST_CASE("race check: a shared read before any write, and report-only mode") {
  using namespace rocjit::dsl;
  if (!checks_races()) return;
  // The write that never runs (write is 0) keeps LLVM from folding the read of never-stored LDS
  // to undef on AMDGPU (then there would be no read to report).
  Kernel k = kernel("shared_unwritten", [](Array<float> out, Int write) {
    auto s = shared::array<float>({64}, "s");
    If(write != 0, [&] { s(local_id(0)) = 1.0f; });
    out(global_id(0)) = s(local_id(0));
  });
  auto out = device_array<float>({64});
  const std::string report = race_report([&] { k[{{1}, {64}}](out, 0); });
  CHECK_THAT(report, Contains(shared_place("s")) && Contains("reads an element no work-item of the group wrote") &&
                         Contains("0 races and 1 uninitialised shared read"));
  Captured log;
  ScopedSettings report_only([](Settings& s) { s.check_report_only = true; });
  Kernel k2 = kernel("shared_unwritten_report_only", [](Array<float> out, Int write) {
    auto s = shared::array<float>({64}, "s");
    If(write != 0, [&] { s(local_id(0)) = 1.0f; });
    out(global_id(0)) = s(local_id(0));
  });
  CHECK(race_report([&] { k2[{{1}, {64}}](out, 0); }).empty());
  std::lock_guard<std::mutex> g(log.lock);
  REQUIRE(log.warnings.size() == 1);
  CHECK_THAT(log.warnings[0], Contains("kernel 'shared_unwritten_report_only'"));
}

TEST_CASE("race check: a read in an interval without writes of its array is still checked for an unwritten element") {
  using namespace rocjit::dsl;
  if (!checks_races()) return;
  // On the CPU device the read after the barrier is not recorded (no write can follow it in its
  // interval; passes::interval_race_free), but it is checked.
  Kernel k = kernel("shared_unwritten_after_barrier", [](Array<float> out, Int write) {
    auto s = shared::array<float>({64}, "s");
    If(write != 0, [&] { s(local_id(0)) = 1.0f; });
    barrier(CLK_LOCAL_MEM_FENCE);
    out(global_id(0)) = s(63 - local_id(0));
  });
  auto out = device_array<float>({64});
  CHECK_THAT(race_report([&] { k[{{1}, {64}}](out, 0); }),
             Contains(shared_place("s")) && Contains("0 races and 1 uninitialised shared read"));
  CHECK(race_report([&] { k[{{1}, {64}}](out, 1); }).empty());
}

TEST_CASE("race check: a shared array the group has filled is read unchecked; one it has not is still checked") {
  using namespace rocjit::dsl;
  if (!checks_races()) return;
  // The reads after the second barrier share their interval with no write of s. On the CPU device
  // they go unchecked once every element of s holds a write of the group (HostRaceShared): here
  // after the second barrier, the first having seen only the lower half written. A group that
  // leaves some of s unwritten keeps them checked, also on a worker whose previous group filled s.
  Kernel k = kernel("shared_filled", [](Array<float> out, Int upper) {
    auto s = shared::array<float>({64}, "s");
    Int t = local_id(0);
    If(t < 32, [&] { s(t) = 1.0f; });
    barrier(CLK_LOCAL_MEM_FENCE);
    If(t >= 32 && (upper != 0 || group_id(0) % 2 == 0), [&] { s(t) = 2.0f; });
    barrier(CLK_LOCAL_MEM_FENCE);
    out(global_id(0)) = s(63 - t) + s(t);
  });
  auto out = device_array<float>({16 * 64});
  CHECK(race_report([&] { k[{{16}, {64}}](out, 1); }).empty());
  const std::vector<float> filled = out.copy_to_host().to_vector();
  CHECK(std::all_of(filled.begin(), filled.end(), [](float v) { return v == 3.0f; }));
  // Odd groups leave the upper half unwritten: each of their work-items reads one unwritten
  // element, at one of the two reads (8 groups x 64; the simulator counts bytes).
  const std::string report = race_report([&] { k[{{16}, {64}}](out, 0); });
  INFO(report);
  CHECK_THAT(report, Contains(shared_place("s")) && Contains("uninitialised shared read"));
  if (test_device().id() == "cpu") CHECK_THAT(report, Contains(" 512 instances"));
}

TEST_CASE("race check: tree levels and counting atomics that no other work-item's access of their interval conflicts with") {
  using namespace rocjit::dsl;
  if (!checks_races()) return;
  // On the CPU device every shared access here is proven race-free in its interval
  // (passes::interval_race_free: `s(t) += s(t + k)` under t < k, the zeroing of `counts`, the
  // relaxed counting atomics): writes only stamp their cells until the group has written each
  // array, then whole regions run without checks. Clean, and the results are right; with one
  // barrier left out the two sides of the race are still checked and reported.
  auto make = [](bool missing) {
    return kernel(missing ? "interval_free_missing" : "interval_free", [missing](Array<float> in, Array<float> sums,
                                                                                Array<uint32_t> hist) {
      auto s = shared::array<float>({64}, "s");
      auto counts = shared::array<uint32_t>({16}, "counts");
      Int t = local_id(0), i = global_id(0);
      s(t) = in(i);
      If(t < 16, [&] { counts(t) = 0u; });
      barrier(CLK_LOCAL_MEM_FENCE);
      atomic::add(counts, cast<uint32_t>(in(i)) % 16u, 1u);
      for (int k = 32; k > 0; k /= 2) {
        If(t < k, [&] { s(t) += s(t + k); });
        if (!missing || k != 32) barrier(CLK_LOCAL_MEM_FENCE);
      }
      If(t == 0, [&] { sums(group_id(0)) = s(0); });
      If(t < 16, [&] { atomic::add(hist, t, counts(t)); });
    });
  };
  const int groups = 12;
  std::vector<float> in(groups * 64);
  for (size_t j = 0; j < in.size(); ++j) in[j] = static_cast<float>((j * 7) % 23);
  auto d_in = to_device(in);
  auto sums = device_array<float>({groups});
  std::vector<uint32_t> zeros(16, 0u);
  auto hist = to_device(zeros);
  CHECK(race_report([&] { make(false)[{{groups}, {64}}](d_in, sums, hist); }).empty());
  const std::vector<float> got = sums.copy_to_host().to_vector();
  const std::vector<uint32_t> counted = hist.copy_to_host().to_vector();
  std::vector<uint32_t> expected_hist(16, 0u);
  for (int g = 0; g < groups; ++g) {
    float sum = 0.0f;
    for (int j = 0; j < 64; ++j) sum += in[g * 64 + j];  // small integers: exact in any order
    CHECK(got[g] == sum);
  }
  for (float v : in) ++expected_hist[static_cast<uint32_t>(v) % 16u];
  CHECK(counted == expected_hist);
  const std::string report = race_report([&] { make(true)[{{groups}, {64}}](d_in, sums, hist); });
  INFO(report);
  CHECK_THAT(report, Contains(shared_place("s")) && Contains("1 race"));
}

TEST_CASE("race check: more static shared arrays than filled bits stay checked, and clean") {
  using namespace rocjit::dsl;
  if (!checks_races()) return;
  // 66 arrays, each staged and read back: the CPU device's filled bits cover the first 64
  // (HostRaceShared); the last two keep their stamps and checks, and report nothing.
  Kernel k = kernel("many_shared_arrays", [](Array<float> out) {
    Int t = local_id(0);
    std::vector<ArrayRef> arrays;
    for (int a = 0; a < 66; ++a) {
      arrays.push_back(shared::array<float>({64}, "s" + std::to_string(a)));
      arrays.back()(t) = cast<float>(t) + static_cast<float>(a);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    Var<float> sum = 0.0f;
    for (ArrayRef& s : arrays) sum += s(63 - t);
    out(global_id(0)) = sum;
  });
  auto out = device_array<float>({2 * 64});
  CHECK(race_report([&] { k[{{2}, {64}}](out); }).empty());
  const std::vector<float> got = out.copy_to_host().to_vector();
  for (int i = 0; i < 2 * 64; ++i) CHECK(got[i] == 66.0f * static_cast<float>(63 - i % 64) + 65.0f * 66.0f / 2.0f);
}

TEST_CASE("race check: a barrier that work-items reach differently through a broken uniform() promise") {
  using namespace rocjit::dsl;
  if (!checks_races() || test_device().is_simulator()) return;  // the simulator: the next test
  // The uniformity rule rejects barriers under divergent control when the kernel is traced;
  // uniform(x) is the user's promise that lets one through, and the checker holds it to it.
  Kernel k = kernel("barrier_divergence", [](Array<int32_t> flags, Array<int32_t> out) {
    auto s = shared::array<int32_t>({64}, "s");
    Int t = local_id(0);
    s(t) = t;
    Int go = uniform(flags(t));
    If(go > 0, [&] {
      barrier(CLK_LOCAL_MEM_FENCE);
      out(t) = s(63 - t);
    });
  });
  std::vector<int32_t> host(64, 1);
  host[5] = 0;
  auto flags = to_device(host);
  auto out = device_array<int32_t>({64});
  const std::string report = race_report([&] { k[{{1}, {64}}](flags, out); });
  CHECK_THAT(report, Contains("uniform() at") && Contains("debug_tests.cpp") &&
                         Contains("promises one value for the whole work-group"));
  flags = to_device(std::vector<int32_t>(64, 1));
  CHECK(race_report([&] { k[{{1}, {64}}](flags, out); }).empty());
}

TEST_CASE("race check: waves at different barriers, or ended while others wait (the simulator)") {
  using namespace rocjit::dsl;
  if (!test_device().is_simulator()) return;  // the CPU device checks the uniform() promise instead (above)
  // uniform(x) promises one value for the group; these flags hold it per wave only (the first 64
  // work-items 1, the others 0), so the group's waves take different paths through the barriers.
  const int then_line = __LINE__ + 6, else_line = __LINE__ + 10;
  Kernel differ = kernel("barriers_differ", [](Array<int32_t> flags, Array<int32_t> out, Array<int32_t> other) {
    Int t = local_id(0);
    Int go = uniform(flags(t));
    If(go > 0, [&] {
      out(t) = 1;
      barrier(CLK_LOCAL_MEM_FENCE);
      out(t) = out(t) + 10;
    }).Else([&] {
      other(t) = 2;
      barrier(CLK_LOCAL_MEM_FENCE);
      other(t) = other(t) + 20;
    });
  });
  const int skipped_line = __LINE__ + 5;
  Kernel skipped = kernel("barrier_skipped", [](Array<int32_t> flags, Array<int32_t> out) {
    Int t = local_id(0);
    Int go = uniform(flags(t));
    If(go > 0, [&] {
      barrier(CLK_LOCAL_MEM_FENCE);
      out(t) = 1;
    });
  });
  std::vector<int32_t> host(128, 1);
  for (int i = 64; i < 128; ++i) host[i] = 0;
  auto flags = to_device(host);
  auto out = device_array<int32_t>({128}), other = device_array<int32_t>({128});
  std::string report = race_report([&] { differ[{{1}, {128}}](flags, out, other); });
  INFO(report);
  CHECK_THAT(report, Contains("at different barriers") && Contains("debug_tests.cpp:" + std::to_string(then_line)) &&
                         Contains("debug_tests.cpp:" + std::to_string(else_line)) &&
                         Contains("0 races and 0 uninitialised shared reads between pairs of sites and 1 barrier "
                                  "divergence"));
  report = race_report([&] { skipped[{{1}, {128}}](flags, out); });
  INFO(report);
  CHECK_THAT(report, Contains("waits at the barrier at ") && Contains("debug_tests.cpp:" + std::to_string(skipped_line)) &&
                         Contains("ended at") && Contains("1 barrier divergence"));
  flags = to_device(std::vector<int32_t>(128, 1));
  CHECK(race_report([&] { skipped[{{1}, {128}}](flags, out); }).empty());
  CHECK(race_report([&] { differ[{{1}, {128}}](flags, out, other); }).empty());
}

TEST_CASE("race check: global memory within a group needs a barrier with a global fence (the simulator)") {
  using namespace rocjit::dsl;
  if (!checks_races()) return;
  // Work-item 0 writes, work-item 64 (another wave) reads: a local-fence barrier does not order
  // global memory, a global-fence barrier does.
  auto make = [](bool global_fence) {
    return kernel(global_fence ? "global_fenced" : "global_local_fence", [global_fence](Array<int32_t> x) {
      Int t = local_id(0);
      If(t == 0, [&] { x(0) = 5; });
      barrier(global_fence ? CLK_GLOBAL_MEM_FENCE : CLK_LOCAL_MEM_FENCE);
      If(t == 64, [&] { x(1) = x(0); });
    });
  };
  auto x = device_array<int32_t>({2});
  Kernel local = make(false), global = make(true);
  const std::string report = race_report([&] { local[{{1}, {128}}](x); });
  INFO(report);
  CHECK_THAT(report, Contains("with no barrier with a global fence (CLK_GLOBAL_MEM_FENCE) between them"));
  CHECK(race_report([&] { global[{{1}, {128}}](x); }).empty());
}

TEST_CASE("race check: accesses checked inline on the CPU still report every instance of a race") {
  using namespace rocjit::dsl;
  // The CPU device checks a scalar access inline and calls the checker only for a possible
  // conflict: each work-item's own element (same work-item) and its neighbour's after a barrier
  // (ordered) stay inline; the neighbour's read before the owner writes again must not. Items of
  // a group run in order on the CPU, so the count is exact: every item's second write follows its
  // left neighbour's read (items 1 to 63), and item 63's read follows item 0's write.
  if (test_device().id() != "cpu") return;
  const int shared_read = __LINE__ + 8, shared_write = __LINE__ + 9;
  Kernel in_shared = kernel("inline_shared", [](Array<int32_t> x, Array<int32_t>) {
    auto s = shared::array<int32_t>({64}, "s");
    Int t = local_id(0), i = global_id(0);
    s(t) = x(i);
    s(t) = s(t) + 1;
    Int mine = s(t);
    barrier(CLK_LOCAL_MEM_FENCE);
    Int next = s((t + 1) % 64);
    s(t) = mine + next;
    x(i) = s(t);
  });
  const int global_read = __LINE__ + 7, global_write = __LINE__ + 8;
  Kernel in_global = kernel("inline_global", [](Array<int32_t> x, Array<int32_t> g) {
    Int t = local_id(0), i = global_id(0), base = i - t;
    g(i) = x(i);
    g(i) = g(i) + 1;
    Int mine = g(i);
    barrier(CLK_GLOBAL_MEM_FENCE);
    Int next = g(base + (t + 1) % 64);
    g(i) = mine + next;
    x(i) = g(i);
  });
  for (bool global : {false, true}) {
    INFO((global ? "global" : "shared"));
    auto x = to_device(std::vector<int32_t>(8 * 64, 1));
    auto g = device_array<int32_t>({8 * 64});
    Kernel& k = global ? in_global : in_shared;
    const std::string report = race_report([&] { k[{{8}, {64}}](x, g); });
    INFO(report);
    CHECK_THAT(report, Contains("lanes of one wavefront with no barrier or wavebarrier() between them (rocjit does not "
                                       "promise lockstep) (512 times)"));
    CHECK_THAT(report, Contains("debug_tests.cpp:" + std::to_string(global ? global_read : shared_read)) &&
                           Contains("debug_tests.cpp:" + std::to_string(global ? global_write : shared_write)));
    CHECK_THAT(report, Contains("1 race and 0 uninitialised shared reads between pairs of sites, 512 instances in all"));
  }
}

TEST_CASE("race check: shared memory written by an earlier group on the same worker counts as unwritten") {
  using namespace rocjit::dsl;
  // Shared cells are not reset between groups: the checker ignores stamps of earlier groups, in
  // its calls and in the inline checks, so every group but group 0 reads unwritten elements.
  if (test_device().id() != "cpu") return;
  Kernel k = kernel("shared_earlier_group", [](Array<float> out) {
    auto s = shared::array<float>({64}, "s");
    If(group_id(0) == 0, [&] { s(local_id(0)) = 1.0f; });
    barrier(CLK_LOCAL_MEM_FENCE);
    out(global_id(0)) = s(local_id(0));
  });
  auto out = device_array<float>({16 * 64});
  const std::string report = race_report([&] { k[{{16}, {64}}](out); });
  INFO(report);
  CHECK_THAT(report, Contains("reads an element no work-item of the group wrote before (960 times)") &&
                         Contains("0 races and 1 uninitialised shared read between pairs of sites, 960 instances"));
}

TEST_CASE("race check: groups with more than 1 MiB of shared memory are checked too") {
  using namespace rocjit::dsl;
  if (test_device().id() != "cpu") return;  // the simulator's groups have at most 64 KiB of LDS
  Kernel k = kernel("big_shared_race", [](Array<float> out) {
    auto s = shared::array<float>({1 << 19}, "big");  // 2 MiB: shadow cells in a map
    Int t = local_id(0);
    s(t * 4096) = 1.0f;
    out(t) = s(((t + 1) % 64) * 4096);  // a neighbour's element, no barrier
  });
  auto out = device_array<float>({64});
  CHECK_THAT(race_report([&] { k[{{1}, {64}}](out); }),
             Contains("shared array 'big'") && Contains("lanes of one wavefront"));
}

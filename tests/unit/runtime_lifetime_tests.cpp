// Lifetimes in the runtime: what queued work keeps alive, and what a device forgets.
#include <catch2/catch.hpp>

#include <future>
#include <memory>

#include "rocjit/rocjit.hpp"
#include "runtime/src/backend.hpp"

using namespace rocjit;

namespace {

// Blocks `s` (an asynchronous CPU stream) until the returned promise is set.
std::promise<void> hold(const Stream& s) {
  std::promise<void> gate;
  s.impl().host_callback([f = gate.get_future().share()] { f.wait(); });
  return gate;
}

}  // namespace

// Before streams held events, the worker completed a freed event here (heap-use-after-free
// under ASan).
TEST_CASE("a CPU stream holds an Event until it reaches it, so the caller may drop it at once") {
  Device cpu = new_cpu_device();
  Stream s = stream(cpu);
  std::promise<void> gate = hold(s);
  std::weak_ptr<runtime::EventImpl> recorded;
  {
    Event e = event(cpu);
    e.record(s);
    recorded = e.impl_ptr();
  }  // the Event is gone; `s` has not reached it
  CHECK_FALSE(recorded.expired());
  gate.set_value();
  s.synchronize();
  CHECK(recorded.expired());  // passed and let go
}

TEST_CASE("a CPU stream waiting on an Event holds it until the wait is over") {
  Device cpu = new_cpu_device();
  Stream s = stream(cpu), t = stream(cpu);
  std::promise<void> gate = hold(s);
  std::weak_ptr<runtime::EventImpl> waited;
  {
    Event e = event(cpu);
    e.record(s);
    t.wait(e);
    waited = e.impl_ptr();
  }
  CHECK_FALSE(waited.expired());
  gate.set_value();
  s.synchronize();
  t.synchronize();
  CHECK(waited.expired());
}

TEST_CASE("a stream waiting on a dropped Event still waits for it") {
  Device cpu = new_cpu_device();
  Stream s = stream(cpu), t = stream(cpu);
  std::promise<void> gate = hold(s);
  bool after_wait_ran = false;
  {
    Event e = event(cpu);
    e.record(s);
    t.wait(e);
  }
  std::promise<void> reached;
  t.impl().host_callback([&] {
    after_wait_ran = true;
    reached.set_value();
  });
  auto f = reached.get_future();
  CHECK(f.wait_for(std::chrono::milliseconds(50)) == std::future_status::timeout);  // `t` waits behind `s`
  gate.set_value();
  t.synchronize();
  CHECK(after_wait_ran);
  s.synchronize();
}

TEST_CASE("a closed device is seen as closed from every thread") {
  Device cpu = new_cpu_device();
  CHECK_FALSE(cpu.closed());
  std::async(std::launch::async, [&] { cpu.close(); }).get();
  CHECK(cpu.closed());
  CHECK_THROWS_WITH(event(cpu), Catch::Matchers::Contains("was closed"));
}

TEST_CASE("a host callback on a blocking CPU stream may use the default stream without waiting for itself") {
  // The default stream waits for every blocking stream before each operation; a stream's own task
  // that copies on the default stream must not wait for the stream running it (a deadlock).
  Device cpu = new_cpu_device();
  Stream s = stream(cpu);
  std::vector<float> h(64);
  for (int i = 0; i < 64; ++i) h[i] = float(i);
  DeviceArray<float> d = to_device(h, default_stream(cpu));
  std::vector<float> seen(64, -1.0f);
  s.impl().host_callback([&] { d.copy_to_host(std::span<float>(seen), default_stream(cpu)); });
  s.synchronize();
  for (int i = 0; i < 64; ++i) REQUIRE(seen[i] == float(i));
}

TEST_CASE("the reference interpreter is a device: interp runs kernels with the interpreter's checks") {
  using namespace rocjit::dsl;
  Device interp = get_device("interp");
  CHECK(interp.id() == "interp");
  CHECK(interp.kind() == "interp");
  CHECK(interp.target() == "host");
  // A correct kernel, asynchronously on a stream, with the kernel (and so its IR) dropped before
  // the launch has run.
  auto host = std::vector<int32_t>(1000);
  for (int i = 0; i < 1000; ++i) host[i] = i;
  Stream s = stream(interp);
  auto a = to_device(host, s, interp);
  {
    Kernel twice = kernel("twice", [](Array<int32_t> x) {
      Int i = global_id(0);
      If(i < x.shape(0), [&] { x(i) = x(i) * 2; });
    });
    twice[{4, 256, s}](a);
  }
  auto out = a.copy_to_host(s);
  s.synchronize();
  for (int i = 0; i < 1000; ++i) REQUIRE(out.to_vector()[i] == 2 * i);
  // What only the interpreter checks: a shared element read before any work-item wrote it, and a
  // broken uniform() promise without ROCJIT_BOUNDS_CHECK. Errors come at the stream's next
  // synchronisation.
  Kernel unwritten = kernel("unwritten", [](Array<int32_t> x) {
    auto sh = shared::array<int32_t>({64});
    Int t = local_id(0);
    If(t > 0, [&] { sh(t) = t; });
    barrier();
    x(t) = sh((t + 1) % 64);
  }, {.max_block_size = 64});
  auto b = device_array<int32_t>({64}, Order::C, interp);
  unwritten[{1, 64, s}](b);
  CHECK_THROWS_WITH(s.synchronize(), Catch::Matchers::Contains("before") && Catch::Matchers::Contains("unwritten"));
  Kernel promise = kernel("promise", [](Array<int32_t> x) {
    Int n = uniform(local_id(0) / 32);
    x(local_id(0)) = n;
  }, {.max_block_size = 64});
  promise[{1, 64, s}](b);
  CHECK_THROWS_WITH(s.synchronize(),
                    Catch::Matchers::Contains("uniform() at") && Catch::Matchers::Contains("work-item (32, 0, 0)"));
  // The device stays usable.
  auto c = to_device(std::vector<int32_t>(64, 3), s, interp);
  Kernel inc = kernel("inc", [](Array<int32_t> x) { x(local_id(0)) = x(local_id(0)) + 1; });
  inc[{1, 64, s}](c);
  auto incremented = c.copy_to_host(s);
  s.synchronize();
  for (int32_t v : incremented.to_vector()) REQUIRE(v == 4);
  CHECK_THROWS_WITH(get_device("interpreter"), Catch::Matchers::Contains("use cpu, interp, hip"));
}

// Runtime specialisation (KernelOptions::specialize, specialize_shapes): every launch is right on
// the device under test, versions are made per distinct value and bounded, the versions' IR has
// the constants (so the kernel cache tells them apart), and bad options are errors naming the
// kernel.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "e2e.hpp"

using namespace rocjit;
using namespace rocjit::dsl;
using Catch::Matchers::Contains;

namespace {

Kernel specialised_saxpy(uint32_t versions) {
  return kernel(
      "spec_saxpy",
      [](Float a, Array<float> x, Array<float> y, Int n, Int stride) {
        Int i = global_id(0);
        For(i, n, stride, [&](Int j) { y(j) = a * x(j) + y(j); });
      },
      {.param_names = {"a", "x", "y", "n", "stride"}, .specialize = {"a", "n", "stride"},
       .max_specializations = versions});
}

}  // namespace

TEST_CASE("specialised scalars: each launch computes with its own values") {
  Kernel k = specialised_saxpy(2);
  CHECK(k.specializes());
  const int64_t size = 300;
  std::vector<float> x(size), y0(size);
  for (int64_t i = 0; i < size; ++i) {
    x[i] = static_cast<float>(i % 17) * 0.5f;
    y0[i] = static_cast<float>(i % 5) - 2.0f;
  }
  DeviceArray<float> dx = to_device(x);
  struct Case {
    float a;
    int n, stride;
  };
  // Three distinct versions with a bound of two, then the first again (made anew).
  for (Case c : {Case{2.5f, 300, 64}, Case{-1.0f, 250, 64}, Case{0.5f, 300, 32}, Case{2.5f, 300, 64}}) {
    DeviceArray<float> dy = to_device(y0);
    k[{static_cast<uint32_t>(c.stride / 32), 32}](c.a, dx, dy, c.n, c.stride);  // stride = all work-items
    std::vector<float> got = dy.copy_to_host().to_vector();
    for (int64_t i = 0; i < size; ++i) {
      const float want = i < c.n ? c.a * x[i] + y0[i] : y0[i];
      INFO("a " << c.a << " n " << c.n << " stride " << c.stride << " element " << i);
      REQUIRE(got[i] == want);
    }
    CHECK(k.specialization_count() <= 2);
  }
  CHECK(k.specialization_count() == 2);
}

TEST_CASE("specialised versions hold the launch values as constants, so their IR differs") {
  Kernel k = specialised_saxpy(16);
  std::vector<uint64_t> bits(5, 0);
  const float a = 2.5f;
  std::memcpy(&bits[0], &a, 4);
  bits[3] = 1000;
  bits[4] = 64;
  std::vector<std::vector<int64_t>> shapes(5);
  auto v1 = k.specialized(bits, shapes);
  auto again = k.specialized(bits, shapes);
  CHECK(v1 == again);  // the same version, not a new one
  bits[3] = 1001;
  auto v2 = k.specialized(bits, shapes);
  CHECK(v1 != v2);
  CHECK(k.specialization_count() == 2);
  const std::string t1 = ir::print(*v1), t2 = ir::print(*v2);
  CHECK_THAT(t1, Contains("const 2.5 : f32"));
  CHECK_THAT(t1, Contains("const 1000 : i32"));
  CHECK_THAT(t2, Contains("const 1001 : i32"));
  CHECK(t1 != t2);
  CHECK(ir::print(k.ir()).find("const 1000") == std::string::npos);  // the kernel itself is unchanged
  bits[3] = static_cast<uint32_t>(-5);  // the i32's bits as launch() packs them: sign-extended from 32
  CHECK_THAT(ir::print(*k.specialized(bits, shapes)), Contains("const -5 : i32"));
  // The version is a valid kernel for every target.
  CHECK_NOTHROW(compile(*v1, Target::host()));
  CHECK_NOTHROW(compile(*v1, Target::amdgpu("gfx90a")));
}

TEST_CASE("specialised shapes: a 2-D kernel is right for each shape, and the extents are in the IR") {
  Kernel k = kernel(
      "spec_shapes",
      [](Array<float, 2> in, Array<float, 2> out) {
        Int i = global_id(0), j = global_id(1);
        If(i < in.shape(0) && j < in.shape(1), [&] { out(i, j) = in(i, j) * 2.0f + cast<float>(in.shape(1)); });
      },
      {.specialize_shapes = true});
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{5, 7}, {3, 11}, {5, 7}}) {
    std::vector<float> h(rows * cols);
    for (size_t e = 0; e < h.size(); ++e) h[e] = static_cast<float>(e) * 0.25f;
    DeviceArray<float> din = to_device(std::span<const float>(h), {rows, cols});
    DeviceArray<float> dout = device_array<float>({rows, cols});
    k[{{2, 2}, {4, 8}}](din, dout);
    std::vector<float> got = dout.copy_to_host().to_vector();
    for (size_t e = 0; e < h.size(); ++e) {
      INFO(rows << "x" << cols << " element " << e);
      REQUIRE(got[e] == h[e] * 2.0f + static_cast<float>(cols));
    }
  }
  CHECK(k.specialization_count() == 2);
  std::vector<std::vector<int64_t>> shapes = {{5, 7}, {5, 7}};
  CHECK_THAT(ir::print(*k.specialized({0, 0}, shapes)), Contains("array<f32, 2, C, [5, 7]>"));
}

TEST_CASE("specialise options that cannot work are errors naming the kernel and the parameter") {
  auto body = [](Float a, Array<float> x) { x(global_id(0)) = a; };
  CHECK_THROWS_WITH(kernel("spec_bad1", body, {.param_names = {"a", "x"}, .specialize = {"b"}}),
                    Contains("kernel 'spec_bad1': specialize names 'b', which is not a parameter") &&
                        Contains("specialize_tests.cpp"));
  CHECK_THROWS_WITH(kernel("spec_bad2", body, {.param_names = {"a", "x"}, .specialize = {"x"}}),
                    Contains("kernel 'spec_bad2': specialize names 'x', an array"));
  CHECK_THROWS_WITH(kernel("spec_bad3", body, {.param_names = {"a", "x"}, .specialize = {"a"}, .max_specializations = 0}),
                    Contains("kernel 'spec_bad3': max_specializations 0 is outside 1..4096"));
  Kernel ok = kernel("spec_ok", body, {.param_names = {"a", "x"}, .specialize = {"a", "a"}});
  CHECK_THROWS_WITH(ok.specialized({0}, {{}, {4}}), Contains("kernel 'spec_ok': specialized() takes one scalar and one "
                                                              "shape entry per parameter (2); got 1 and 2"));
}

TEST_CASE("specialised versions keep every fence's and atomic's memory order and scope") {
  // A version is a clone of the kernel with constants put in; a clone that dropped Op::order and
  // Op::scope made every fence invalid ("a fence needs memory_order acquire, ...") and every
  // acquire/release atomic relaxed at device scope.
  const memory_order orders[] = {memory_order::acquire, memory_order::release, memory_order::acq_rel,
                                 memory_order::seq_cst};
  const memory_scope scopes[] = {memory_scope::wavefront, memory_scope::workgroup, memory_scope::device,
                                 memory_scope::system};
  for (memory_order order : orders)
    for (memory_scope scope : scopes) {
      Kernel k = kernel(
          "spec_ordered",
          [&](Array<int32_t> counts, Array<int32_t> out, Int n) {
            Int i = global_id(0);
            auto s = shared::array<int32_t>({2});
            If(local_id(0) == 0, [&] { s(0) = 0; });
            barrier();
            If(i < n, [&] {
              fence(scope, order);
              atomic::add(counts, 0, 1, order, scope);
              atomic::add(s, 0, 1, order, scope == memory_scope::wavefront ? scope : memory_scope::workgroup);
              // atomic.load takes relaxed, acquire or seq_cst; atomic.store relaxed, release or seq_cst.
              memory_order load_order = order == memory_order::release || order == memory_order::acq_rel
                                            ? memory_order::acquire : order;
              memory_order store_order = order == memory_order::acquire || order == memory_order::acq_rel
                                             ? memory_order::release : order;
              atomic::store(out, i, atomic::load(counts, 1, load_order, scope) + i, store_order, scope);
            });
          },
          {.param_names = {"counts", "out", "n"}, .specialize = {"n"}});
      INFO("order " << ir::memory_order_name(order) << " scope " << ir::memory_scope_name(scope));
      // Through a launch on the device under test.
      auto counts = to_device(std::vector<int32_t>{0, 5});
      auto out = device_array<int32_t>({64});
      REQUIRE_NOTHROW(k[{1, 64}](counts, out, 40));
      std::vector<int32_t> c = counts.copy_to_host().to_vector(), o = out.copy_to_host().to_vector();
      CHECK(c[0] == 40);
      for (int i = 0; i < 40; ++i) CHECK(o[i] == 5 + i);
      // The version's fences and atomics carry the kernel's orders and scopes, op for op.
      std::vector<uint64_t> bits(3, 0);
      bits[2] = 40;
      auto version = k.specialized(bits, std::vector<std::vector<int64_t>>(3));
      std::vector<std::pair<ir::MemoryOrder, ir::MemoryScope>> original, specialised;
      ir::walk(k.ir().body, [&](const ir::Op& op) {
        if (op.kind == ir::OpKind::fence || op.kind == ir::OpKind::atomic) original.emplace_back(op.order(), op.scope());
      });
      ir::walk(version->body, [&](const ir::Op& op) {
        if (op.kind == ir::OpKind::fence || op.kind == ir::OpKind::atomic)
          specialised.emplace_back(op.order(), op.scope());
      });
      CHECK(original.size() == 5);
      CHECK(specialised == original);
    }
}

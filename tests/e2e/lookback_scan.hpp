// A decoupled look-back scan (single pass, as CUB and rocPRIM do it), shared by the memory-model
// test (exact on every device) and the race checker's tests (clean; with relaxed flags, racy).
// Each group scans its 256 elements in shared memory; work-item 0 writes the group's aggregate
// to a plain word, publishes flag 1, looks back over lower groups (an aggregate, flag 1, adds and
// goes on; an inclusive prefix, flag 2, adds and stops), then writes its inclusive prefix and
// publishes flag 2. Groups wait only for lower groups, so any order of running them finishes.
#pragma once

#include <rocjit/rocjit.hpp>

namespace rocjit::testing {

inline constexpr int lookback_block = 256;

// `publish`/`observe`: the flags' store and load orders (release/acquire is correct).
inline Kernel lookback_scan(dsl::memory_order publish, dsl::memory_order observe) {
  using namespace rocjit::dsl;
  return kernel("lookback_scan", [publish, observe](Array<int32_t> x, Array<int32_t> y, Array<int32_t> aggregate,
                                                    Array<int32_t> inclusive, Array<uint32_t> flag) {
    auto tile = shared::array<int32_t>({lookback_block}, "tile");
    auto prefix = shared::array<int32_t>({1}, "prefix");
    Int t = local_id(0), g = group_id(0);
    tile(t) = x(global_id(0));
    barrier();
    For(1, [](Int d) { return d < lookback_block; }, [](Int d) { return d * 2; }, [&](Int d) {
      Var<int32_t> v = tile(t);
      If(t >= d, [&] { v += tile(t - d); });
      barrier();
      tile(t) = v;
      barrier();
    });
    If(t == 0, [&] {
      Int total = tile(lookback_block - 1);
      aggregate(g) = total;
      atomic::store(flag, g, 1u, publish);
      Var<int32_t> before = 0;
      Var<int32_t> p = g - 1;
      While([&] { return p >= 0; }, [&] {
        Var<uint32_t> f = 0u;
        While([&] { return f == 0u; }, [&] { f = atomic::load(flag, p, observe); });
        If(f == 2u, [&] {
          before += inclusive(p);
          p = -1;
        }).Else([&] {
          before += aggregate(p);
          p = p - 1;
        });
      });
      inclusive(g) = before + total;
      atomic::store(flag, g, 2u, publish);
      prefix(0) = before;
    });
    barrier();
    y(global_id(0)) = tile(t) + prefix(0);
  }, {.param_names = {"x", "y", "aggregate", "inclusive", "flag"}});
}

}  // namespace rocjit::testing

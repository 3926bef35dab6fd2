// Every user mistake the foundation issue lists: each raises a rocjit::Error whose message says
// what was wrong, where, and what is allowed. Never a crash, never an LLVM abort.
#include <catch2/catch.hpp>

#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>

#include "rocjit/compiler/parser.hpp"
#include "rocjit/compiler/verifier.hpp"
#include "sample_kernels.hpp"

using namespace rocjit;
using namespace rocjit::dsl;
using Catch::Matchers::Contains;

namespace {
std::string here(int line) { return std::string(__FILE__) + ":" + std::to_string(line); }
}  // namespace

TEST_CASE("storing f64 into an Array<float> needs a cast, and the error says so") {
  int line = 0;
  auto trace = [&] {
    return kernel("narrowing", [&](Array<float> x, Array<double> y) {
      Int i = global_id(0);
      line = __LINE__ + 1;
      x(i) = y(i) * 2.0;
    });
  };
  CHECK_THROWS_AS(trace(), CompileError);
  CHECK_THROWS_WITH(trace(), Contains("kernel 'narrowing'") && Contains("array 'arg0' is f32, but f64 was given") &&
                                 Contains("cast<float>") && Contains(here(line)));
}

TEST_CASE("a binary op whose result does not fit the declared type is an error naming the cast") {
  CHECK_THROWS_WITH(kernel("binop", [](Array<float> x) {
                      Int i = global_id(0);
                      Int j = x(i) + i;  // f32 + i32 is f32
                      x(j) = 1.0f;
                    }),
                    Contains("kernel 'binop'") && Contains("is i32, but f32 was given") && Contains("cast<int32_t>"));
  CHECK_THROWS_WITH(kernel("bitwise_float", [](Array<float> x) {
                      Int i = global_id(0);
                      x(i) = x(i) & 1;
                    }),
                    Contains("operator 'and' needs integer operands, got f32"));
}

TEST_CASE("indexing with a float or with the wrong number of indices is an error") {
  CHECK_THROWS_WITH(kernel("float_index", [](Array<float> x) { x(x(0)) = 1.0f; }),
                    Contains("kernel 'float_index'") && Contains("index 0 of array 'arg0' is f32") &&
                        Contains("indices must be integers"));
  CHECK_THROWS_WITH(kernel("rank", [](Array<float, 2> a) { a(global_id(0)) = 1.0f; }),
                    Contains("global array 'arg0' has rank 2 but was indexed with 1 index"));
  CHECK_THROWS_WITH(kernel("rank3", [](Array<float> a) {
                      auto s = shared::array<float>({4, 4}, "tile");
                      s(0, 1, 2) = a(0);
                    }),
                    Contains("shared array 'tile' has rank 2 but was indexed with 3 indices"));
}

TEST_CASE("shared arrays beyond the processor's LDS are rejected, naming each array and its size") {
  int line1 = 0, line2 = 0;
  Kernel k = kernel("big_lds", [&](Array<float> x) {
    line1 = __LINE__ + 1;
    auto a = shared::array<float>({10240}, "first");
    line2 = __LINE__ + 1;
    auto b = shared::array<float>({128, 80}, "second");
    Int t = local_id(0);
    a(t) = x(t);
    b(0, t) = x(t);
    barrier(CLK_LOCAL_MEM_FENCE);
    x(t) = a(t) + b(0, t);
  });
  for (const char* p : {"gfx90a", "gfx1030", "gfx1100"}) {
    CHECK_THROWS_AS(compile(k, Target::amdgpu(p)), CompileError);
    CHECK_THROWS_WITH(compile(k, Target::amdgpu(p)),
                      Contains("need 81920 bytes of LDS") && Contains("allows 65536") &&
                          Contains("'first' f32[10240] = 40960 bytes (at " + here(line1)) &&
                          Contains("'second' f32[128, 80] = 40960 bytes (at " + here(line2)));
  }
  // gfx950 has 160 KiB of LDS: the same kernel fits.
  CodeObject co = compile(k, Target::amdgpu("gfx950"));
  CHECK(co.kernel("big_lds").group_segment_fixed_size == 81920);
}

TEST_CASE("shared and local shapes must be positive constants") {
  CHECK_THROWS_WITH(kernel("zero", [](Array<float> x) { shared::array<float>({0}); }),
                    Contains("extent 0 is not positive"));
  CHECK_THROWS_WITH(kernel("negative", [](Array<float> x) { local::array<float>({4, -2}); }),
                    Contains("local array 'local0': extent -2 is not positive"));
  CHECK_THROWS_WITH(kernel("dynamic", [](Array<float> x) { shared::array<float>({x.shape(0)}, "dyn"); }),
                    Contains("shared array 'dyn': every extent must be a positive integer constant") &&
                        Contains("not a run-time value"));
  CHECK_THROWS_WITH(kernel("float_extent", [](Array<float> x) { shared::array<float>({2.5}); }),
                    Contains("every extent must be a positive integer constant"));
}

TEST_CASE("arrays too large for 32-bit indices, or for the host backend, are errors naming the array") {
  CHECK_THROWS_WITH(kernel("huge", [](Array<float> x) { shared::array<float>({65536, 65536}, "tile"); }),
                    Contains("shared array 'tile' has more than 2147483647 elements"));
  CHECK_THROWS_WITH(kernel("huge3", [](Array<float> x) { local::array<float>({2147483647, 2147483647, 2147483647}); }),
                    Contains("local array 'local0' has more than 2147483647 elements"));
  // Within the index range but beyond what the CPU backend gives a work-group or a work-item.
  Kernel big_shared = kernel("big_shared", [](Array<float> x) {
    auto s = shared::array<float>({32 << 20}, "s");
    Int i = local_id(0);
    s(i) = x(i);
    barrier(CLK_LOCAL_MEM_FENCE);
    x(i) = s(i + 1);
  });
  CHECK_THROWS_AS(compile_host(big_shared.ir()), CompileError);
  CHECK_THROWS_WITH(compile_host(big_shared.ir()),
                    Contains("kernel 'big_shared': shared arrays need 134217728 bytes of shared memory but the host "
                             "backend allows 67108864 bytes per work-group") &&
                        Contains("'s' f32[33554432]") && Contains("bad_input_tests.cpp"));
  Kernel big_local = kernel("big_local", [](Array<float> x) {
    auto l = local::array<float>({1000000}, "scratchpad");
    Int i = global_id(0);
    l(cast<int>(x(i))) = x(i);
    x(i) = l(7);
  });
  CHECK_THROWS_WITH(compile_host(big_local.ir()),
                    Contains("local arrays need 4000000 bytes of private memory but the host backend allows 262144 "
                             "bytes per work-item") &&
                        Contains("'scratchpad'"));
  // The GPU's own limit on private memory comes from LLVM, as a CompileError too.
  CHECK_THROWS_AS(compile(big_local, Target::amdgpu("gfx90a")), CompileError);
  CHECK_THROWS_WITH(compile(big_local, Target::amdgpu("gfx90a")), Contains("exceeds limit"));
}

TEST_CASE("an unknown processor is rejected with the list of supported ones") {
  CHECK_THROWS_AS(compile(samples::saxpy(), Target::amdgpu("gfx9999")), CompileError);
  CHECK_THROWS_WITH(compile(samples::saxpy(), Target::amdgpu("gfx9999")),
                    Contains("unknown AMDGPU processor 'gfx9999'") && Contains("gfx90a") && Contains("gfx1100") &&
                        Contains("gfx1200"));
  CHECK_THROWS_WITH(compile(samples::saxpy(), Target::amdgpu("sm_80")), Contains("unknown AMDGPU processor 'sm_80'"));
  CHECK_THROWS_WITH(compile(samples::saxpy(), Target::amdgpu("gfx90a", "+wavefrontsize32")),
                    Contains("gfx90a runs wave64 only"));
  CHECK_THROWS_WITH(compile(samples::saxpy(), Target::amdgpu("gfx90a", "+avx2")),
                    Contains("target feature '+avx2' is not accepted"));
  CompileOptions v3;
  v3.code_object_version = 3;
  CHECK_THROWS_WITH(compile(samples::saxpy(), Target::amdgpu("gfx90a"), v3),
                    Contains("code object version 3 is not supported"));
}

TEST_CASE("a barrier under a work-item-dependent condition is rejected with both locations") {
  int barrier_line = 0, if_line = 0, id_line = 0;
  auto trace = [&] {
    return kernel("divergent", [&](Array<float> x) {
      id_line = __LINE__ + 1;
      Int i = global_id(0);
      if_line = __LINE__ + 1;
      If(i < x.shape(0), [&] {
        x(i) = 1.0f;
        barrier_line = __LINE__ + 1;
        barrier(CLK_LOCAL_MEM_FENCE);
      });
    });
  };
  CHECK_THROWS_AS(trace(), CompileError);
  CHECK_THROWS_WITH(trace(), Contains("kernel 'divergent'") && Contains("barrier at " + here(barrier_line)) &&
                                 Contains("If condition at " + here(if_line)) &&
                                 Contains("global_id(0) at " + here(id_line)));
}

TEST_CASE("divergence through loaded memory, variables, loop bounds and Break is found") {
  // Loaded value in a loop bound.
  CHECK_THROWS_WITH(kernel("load_bound", [](Array<int32_t> n) {
                      For(0, n(0), [&](Int) { barrier(); });
                    }),
                    Contains("loop condition") && Contains("a value loaded from memory") &&
                        Contains("say so with uniform(value)"));
  // What that hint says to write is accepted.
  CHECK_NOTHROW(kernel("load_bound_uniform", [](Array<int32_t> n) {
    For(0, uniform(n(0)), [&](Int) { barrier(); });
  }));
  // The hint is only for values from memory: a work-item id cannot be promised uniform.
  CHECK_THROWS_WITH(kernel("id_bound", [](Array<int32_t> n) {
                      For(0, local_id(0), [&](Int) { barrier(); });
                    }),
                    Contains("loop condition") && !Contains("uniform(value)"));
  // A Var assigned under a divergent If becomes divergent.
  CHECK_THROWS_WITH(kernel("var_flow", [](Array<float> x) {
                      Var<int32_t> flag = 0;
                      If(local_id(0) == 0, [&] { flag = 1; });
                      If(flag == 1, [&] { barrier(); });
                    }),
                    Contains("local_id(0)"));
  // A Break under a divergent If makes the loop's trip count divergent.
  CHECK_THROWS_WITH(kernel("divergent_break", [](Array<float> x) {
                      For(0, 10, [&](Int k) {
                        If(local_id(0) == k, [&] { Break(); });
                        barrier();
                      });
                    }),
                    Contains("barrier at") && Contains("local_id(0)"));
  // A wavebarrier obeys the same rule.
  CHECK_THROWS_WITH(kernel("wave", [](Array<float> x) { If(local_id(0) < 32, [&] { wavebarrier(); }); }),
                    Contains("wavebarrier at"));
}

TEST_CASE("barriers in uniform control flow are accepted") {
  CHECK_NOTHROW(kernel("uniform", [](Array<float> x, Int n) {
    auto s = shared::array<float>({64});
    If(n > 4 && group_id(0) < num_groups(0) && x.shape(0) > 0, [&] { barrier(); });
    For(0, n, [&](Int k) {
      s(local_id(0)) = cast<float>(k);
      barrier();
      While([&] { return k < 3; }, [&] {
        barrier();
        Break();
      });
    });
  }));
}

TEST_CASE("Break outside a loop is an error") {
  int line = 0;
  auto trace = [&] {  // outside the CHECK macro: source_location inside a macro is the macro's line
    return kernel("stray_break", [&](Array<float> x) {
      line = __LINE__ + 1;
      If(global_id(0) == 0, [&] { Break(); });
    });
  };
  CHECK_THROWS_WITH(trace(), Contains("kernel 'stray_break'") && Contains("Break() outside a loop") && Contains(here(line)));
}

TEST_CASE("a DSL value from another kernel's trace is rejected") {
  Value leaked;
  kernel("first", [&](Array<float> x) { leaked = x(0) * 2.0f; });
  CHECK_THROWS_WITH(kernel("second", [&](Array<float> y) { y(0) = leaked; }),
                    Contains("kernel 'second'") && Contains("another kernel's trace"));
  // Also while kernels are nested: the inner trace cannot use the outer's values.
  CHECK_THROWS_WITH(kernel("outer", [](Array<float> x) {
                      Value v = x(0);
                      kernel("inner", [&](Array<float> y) { y(0) = v; });
                    }),
                    Contains("kernel 'inner'") && Contains("another kernel's trace"));
  // And outside any trace.
  CHECK_THROWS_WITH((void)(leaked + 1.0f), Contains("outside of kernel tracing"));
}

TEST_CASE("a kernel that throws while tracing is reported with the kernel's name and the original message") {
  CHECK_THROWS_AS(kernel("thrower", [](Array<float> x) { throw std::runtime_error("table not loaded"); }),
                  CompileError);
  CHECK_THROWS_WITH(kernel("thrower", [](Array<float> x) { throw std::runtime_error("table not loaded"); }),
                    Contains("kernel 'thrower'") && Contains("threw while being traced: table not loaded"));
  CHECK_THROWS_WITH(kernel("thrower2", [](Array<float> x) { throw 42; }),
                    Contains("kernel 'thrower2'") && Contains("non-standard exception"));
}

TEST_CASE("values defined inside a body cannot escape it") {
  CHECK_THROWS_WITH(kernel("escape", [](Array<float> x) {
                      Value inside;
                      If(global_id(0) < 4, [&] { inside = x(0) + 1.0f; });
                      x(1) = inside;
                    }),
                    Contains("kernel 'escape'") && Contains("carry values out of a body with a Var"));
}

TEST_CASE("invalid kernel options and misuse are errors") {
  CHECK_THROWS_WITH(kernel("too_big", [](Array<float> x) {}, {.max_block_size = 2048}),
                    Contains("max_block_size 2048 is outside 1..1024"));
  CHECK_THROWS_WITH(kernel("dup", [](Array<float> x, Array<float> y) {}, {.param_names = {"x", "x"}}),
                    Contains("two parameters are named 'x'"));
  CHECK_THROWS_WITH(kernel("dim", [](Array<float> x) { x(local_id(3)) = 0.0f; }),
                    Contains("local_id(3): the dimension must be 0, 1 or 2"));
  CHECK_THROWS_WITH(kernel("shape_dim", [](Array<float> x) { x(x.shape(1)) = 0.0f; }),
                    Contains("array 'arg0' has rank 1; shape(1) does not exist"));
  CHECK_THROWS_WITH(kernel("for_float", [](Array<float> x) { For(0.5, 3, [&](Value) {}); }),
                    Contains("For bounds must be integers"));
  CHECK_THROWS_WITH(kernel("step0", [](Array<float> x) { For(0, 3, 0, [&](Value) {}); }),
                    Contains("For step is 0"));
  CHECK_THROWS_WITH(kernel("atomic_local", [](Array<float> x) {
                      auto l = local::array<int32_t>({4}, "priv");
                      atomic::add(l, 0, 1);
                    }),
                    Contains("atomics work on global and shared arrays"));
  CHECK_THROWS_WITH(kernel("atomic_xor_float", [](Array<float> x) { atomic::xor_(x, 0, 1.0f); }),
                    Contains("atomic xor needs an integer array"));
  CHECK_THROWS_WITH(kernel("math_int", [](Array<int32_t> x) { x(0) = cast<int32_t>(sqrt(x(1))); }),
                    Contains("sqrt() takes f32 or f64, got i32"));
  CHECK_THROWS_WITH(kernel("literal_range", [](Array<int32_t> x) { x(0) = 5000000000LL; }),
                    Contains("the literal does not fit i32"));
}

TEST_CASE("control flow nested deeper than 256 regions is an error naming the kernel and the line") {
  // A recursive helper nests If inside If: every pass walks regions recursively, so the verifier
  // bounds the depth before any of them runs.
  std::function<void(Value, int)> nest = [&](Value c, int levels) {
    if (levels == 0) return;
    If(c, [&] { nest(c, levels - 1); });
  };
  auto make = [&](int levels) {
    return kernel("deep", [&](Array<int> x) {
      Int i = global_id(0);
      nest(i < 4, levels);
      x(i) = 1;
    });
  };
  CHECK_NOTHROW(make(255));
  CHECK_THROWS_AS(make(256), CompileError);
  CHECK_THROWS_WITH(make(256), Contains("kernel 'deep'") && Contains("regions are nested more than 256 deep") &&
                                   Contains("bad_input_tests.cpp"));
}

TEST_CASE("Continue outside a loop, bad unroll counts and barriers after a divergent Return are errors") {
  int line = 0;
  auto stray = [&] {
    return kernel("stray_continue", [&](Array<float> x) {
      line = __LINE__ + 1;
      If(global_id(0) == 0, [&] { Continue(); });
    });
  };
  CHECK_THROWS_WITH(stray(), Contains("kernel 'stray_continue'") && Contains("Continue() outside a loop") &&
                                 Contains(here(line)));
  auto unroll = [&] {
    return kernel("bad_unroll", [&](Array<float> x) {
      line = __LINE__ + 1;
      For(0, 4, [&](Int i) { x(i) = 0.0f; }, {.unroll = -2});
    });
  };
  CHECK_THROWS_WITH(unroll(), Contains("kernel 'bad_unroll'") && Contains("unroll count -2 is outside 0..1024") &&
                                  Contains(here(line)));

  int return_line = 0, barrier_line = 0, id_line = 0;
  auto after_return = [&] {
    return kernel("return_then_barrier", [&](Array<float> x) {
      id_line = __LINE__ + 1;
      Int i = local_id(0);
      return_line = __LINE__ + 1;
      If(i > 5, [&] { Return(); });
      barrier_line = __LINE__ + 1;
      barrier();
      x(i) = 1.0f;
    });
  };
  CHECK_THROWS_AS(after_return(), CompileError);
  CHECK_THROWS_WITH(after_return(), Contains("kernel 'return_then_barrier'") &&
                                        Contains("barrier at " + here(barrier_line)) &&
                                        Contains("Return() at " + here(return_line)) &&
                                        Contains("local_id(0) at " + here(id_line)));
  // In a loop, a barrier before the divergent Return is reached again by fewer work-items.
  CHECK_THROWS_WITH(kernel("return_in_loop", [](Array<float> x) {
                      For(0, 4, [&](Int k) {
                        barrier();
                        If(x(local_id(0)) > 0.0f, [&] { Return(); });
                      });
                    }),
                    Contains("barrier at") && Contains("Return() at") && Contains("a value loaded from memory"));
  // A divergent Continue makes the rest of the loop body divergent.
  CHECK_THROWS_WITH(kernel("divergent_continue", [](Array<float> x) {
                      For(0, 4, [&](Int k) {
                        If(local_id(0) == k, [&] { Continue(); });
                        barrier();
                      });
                    }),
                    Contains("barrier at") && Contains("local_id(0)"));
  // Uniform Returns and Continues before barriers are fine.
  CHECK_NOTHROW(kernel("uniform_exits", [](Array<float> x, Int n) {
    If(group_id(0) >= n, [&] { Return(); });
    For(0, n, [&](Int k) {
      If(k == 2, [&] { Continue(); });
      barrier();
    });
    barrier();
  }));
}

TEST_CASE("wave operations under divergent control, on the wrong types or after a divergent Return are errors") {
  int line = 0, if_line = 0;
  auto divergent = [&] {
    return kernel("divergent_wave", [&](Array<int32_t> x) {
      if_line = __LINE__ + 1;
      If(local_id(0) < 32, [&] {
        line = __LINE__ + 1;
        x(local_id(0)) = wave::reduce_add(x(local_id(0)));
      });
    });
  };
  CHECK_THROWS_WITH(divergent(), Contains("kernel 'divergent_wave'") && Contains("wave.reduce_add at " + here(line)) &&
                                     Contains("If condition at " + here(if_line)) && Contains("local_id(0)"));
  auto float_and = [&] {
    return kernel("float_and", [&](Array<float> x) {
      line = __LINE__ + 1;
      x(0) = wave::reduce_and(x(1));
    });
  };
  CHECK_THROWS_WITH(float_and(), Contains("kernel 'float_and'") && Contains("wave::reduce_and() needs an integer, got f32") &&
                                     Contains(here(line)));
  CHECK_THROWS_WITH(kernel("bool_shuffle", [](Array<int32_t> x) { x(0) = cast<int32_t>(wave::shuffle(x(0) > 1, 3)); }),
                    Contains("wave::shuffle() takes a number, got i1"));
  CHECK_THROWS_WITH(kernel("wave_after_return", [](Array<int32_t> x) {
                      If(lane_id() == 3, [&] { Return(); });
                      x(0) = wave::count(x(1) > 0);
                    }),
                    Contains("wave.count at") && Contains("Return() at") && Contains("lane_id(0)"));
}

TEST_CASE("wave operations need only wave-uniform control: the wave index, votes and reductions") {
  // Accepted: conditions and trip counts from local_id(0) / wave_size() (also times a positive
  // constant), from votes and reductions, and from broadcasts of a uniform lane.
  int if_line = 0, div_line = 0, op_line = 0;
  Kernel ok = kernel("wave_uniform", [&](Array<int32_t> x) {
    Int t = local_id(0);
    div_line = __LINE__ + 1;
    Int wid = t / wave_size();
    if_line = __LINE__ + 1;
    If(wid == 1, [&] {
      op_line = __LINE__ + 1;
      x(t) = wave::reduce_add(x(t));
    });
    For(0, t / (wave_size() * 2), [&](Int) { x(t) = wave::shuffle_xor(x(t), 1); });
    If(wave::any(x(t) > 0) && wave::broadcast(x(t), 3) > 1, [&] { x(t) = wave::count(x(t) > 2); wavebarrier(); });
  });
  const auto rows = ir::wave_rows_assumption(ok.ir());
  REQUIRE(rows.has_value());
  CHECK(rows->sync->loc.line == static_cast<uint32_t>(op_line));
  CHECK(rows->source->loc.line == static_cast<uint32_t>(div_line));
  // The wave index only as an index assumes nothing about rows.
  Kernel index_only = kernel("wave_index_only", [](Array<int32_t> x) {
    Int s = wave::reduce_add(x(local_id(0)));
    If(lane_id() == 0, [&] { x(local_id(0) / wave_size()) = s; });
  });
  CHECK_FALSE(ir::wave_rows_assumption(index_only.ir()).has_value());

  // Rejected: barriers still need group-uniform control.
  CHECK_THROWS_WITH(kernel("barrier_per_wave", [](Array<int32_t> x) {
                      If(local_id(0) / wave_size() == 0, [&] { barrier(); });
                    }),
                    Contains("barrier at") && Contains("local_id(0)") && Contains("work-group-uniform"));
  // Rejected: shuffles, scans and broadcasts of a lane-dependent lane differ within a wave.
  CHECK_THROWS_WITH(kernel("shuffle_condition", [](Array<int32_t> x) {
                      If(wave::shuffle_up(x(local_id(0)), 1) > 0, [&] { x(0) = wave::reduce_max(x(1)); });
                    }),
                    Contains("wave.reduce_max at") && Contains("not reached by every lane of its wavefront") &&
                        Contains("a wave operation's result (wave.shuffle_up)"));
  CHECK_THROWS_WITH(kernel("broadcast_lane", [](Array<int32_t> x) {
                      If(wave::broadcast(x(0), lane_id()) > 0, [&] { x(0) = wave::reduce_max(x(1)); });
                    }),
                    Contains("wave.reduce_max at") && Contains("lane_id(0)"));
  // Rejected: other dimensions and other divisors are not wave indices.
  CHECK_THROWS_WITH(kernel("wrong_dim", [](Array<int32_t> x) {
                      If(local_id(1) / wave_size() == 0, [&] { x(0) = wave::read_first(x(1)); });
                    }),
                    Contains("wave.read_first at") && Contains("local_id(1)") && Contains("wavefront-uniform"));
  CHECK_THROWS_WITH(kernel("fixed_divisor", [](Array<int32_t> x) {
                      If(local_id(0) / 32 == 0, [&] { x(0) = wave::read_first(x(1)); });
                    }),
                    Contains("wave.read_first at") && Contains("local_id(0)"));
  // Rejected: a wave operation after a Return() that only some waves take.
  CHECK_THROWS_WITH(kernel("wave_return_then_wave_op", [](Array<int32_t> x) {
                      If(local_id(0) / wave_size() == 1, [&] { Return(); });
                      x(0) = wave::reduce_min(x(1));
                    }),
                    Contains("wave.reduce_min at") && Contains("Return() at") && Contains("local_id(0)"));
}

TEST_CASE("memory orders an atomic or fence cannot have, and a loaded bound governing a barrier, are errors") {
  int line = 0;
  auto relaxed_fence = [&] {
    return kernel("relaxed_fence", [&](Array<int32_t> x) {
      line = __LINE__ + 1;
      fence(memory_scope::device, memory_order::relaxed);
      x(0) = 1;
    });
  };
  CHECK_THROWS_WITH(relaxed_fence(), Contains("kernel 'relaxed_fence'") && Contains("a fence needs memory_order") &&
                                         Contains(here(line)));
  auto release_load = [&] {
    return kernel("release_load", [&](Array<int32_t> x) {
      line = __LINE__ + 1;
      x(1) = atomic::load(x, 0, memory_order::release);
    });
  };
  CHECK_THROWS_WITH(release_load(), Contains("kernel 'release_load'") && Contains("atomic load on array 'arg0'") &&
                                        Contains("cannot be release") && Contains(here(line)));
  CHECK_THROWS_WITH(kernel("acquire_store", [](Array<int32_t> x) { atomic::store(x, 0, 1, memory_order::acq_rel); }),
                    Contains("an atomic store cannot be acq_rel"));
  CHECK_THROWS_WITH(kernel("local_load", [](Array<int32_t> x) {
                      auto l = local::array<int32_t>({4});
                      l(0) = 1;
                      x(0) = atomic::load(l, 0);
                    }),
                    Contains("atomic load on local array"));
  // Without uniform() a bound loaded from memory may differ between work-items.
  auto loaded_bound = [&] {
    return kernel("loaded_bound", [&](Array<int32_t> x) {
      For(0, x(0), [&](Int) { barrier(); });
    });
  };
  CHECK_THROWS_WITH(loaded_bound(), Contains("kernel 'loaded_bound'") && Contains("barrier"));
  CHECK_NOTHROW(kernel("promised_bound", [](Array<int32_t> x) { For(0, uniform(x(0)), [&](Int) { barrier(); }); }));
}

TEST_CASE("the verifier rejects a malformed fence, atomic store with a result, and a bad dynamic array") {
  auto verify_text = [](const std::string& body, const std::string& decl = "") {
    ir::Kernel k = ir::parse("kernel @v(@x: array<i32, 1, C>) max_block_size(64) {\n" + decl + body + "}\n");
    ir::verify(k);
  };
  CHECK_THROWS_WITH(verify_text("  fence relaxed device\n"), Contains("a fence needs memory_order"));
  CHECK_THROWS_WITH(verify_text("  %1 = const 0 : i32\n  %2 = atomic.load @x[%1] : i32 release\n"),
                    Contains("cannot be release"));
  CHECK_THROWS_WITH(ir::parse("kernel @v(@x: array<i32, 1, C>) max_block_size(64) {\n  %1 = const 0 : i32\n"
                              "  %2 = atomic.store @x[%1], %1 : i32\n}\n"),
                    Contains("expected no result before 'atomic.store'"));
  CHECK_THROWS_WITH(ir::parse("kernel @v(@x: array<i32, 1, C>) max_block_size(64) {\n  fence acquire\n}\n"),
                    Contains("a memory scope"));
  CHECK_THROWS_WITH(ir::parse("kernel @v(@x: array<i32, 1, C>) max_block_size(64) {\n  local @l: f32[dynamic]\n}\n"),
                    Contains("an extent"));
}

TEST_CASE("an integer division or remainder by the constant 0 is a CompileError at the user's line") {
  int line = 0;
  // (The lambdas are defined outside CHECK_THROWS_WITH: inside a macro's arguments GCC gives
  // std::source_location::current() the macro's line.)
  auto div_zero = [&] {
    return kernel("div_zero", [&](Array<int32_t> x) {
      Int i = global_id(0);
      line = __LINE__ + 1;
      x(i) = x(i) / 0;
    });
  };
  CHECK_THROWS_WITH(div_zero(), Contains("kernel 'div_zero'") && Contains("integer division by the constant 0") &&
                                    Contains(here(line)));
  auto rem_zero = [&] {
    return kernel("rem_zero", [&](Array<uint64_t> x) {
      Int i = global_id(0);
      line = __LINE__ + 1;
      x(i) %= ULong(0);
    });
  };
  CHECK_THROWS_WITH(rem_zero(), Contains("kernel 'rem_zero'") && Contains("integer remainder by the constant 0") &&
                                    Contains(here(line)));
  // Floats divide by zero as IEEE says; a computed integer zero divides totally (x / 0 = 0).
  CHECK_NOTHROW(kernel("fdiv_zero", [](Array<float> x) { x(0) = x(1) / 0; }));
  CHECK_NOTHROW(kernel("computed_zero", [](Array<int32_t> x) { x(0) = x(1) / (x(2) - x(2)); }));
  // Text IR too: the parser's kernels go through the same verifier.
  CHECK_THROWS_WITH(ir::verify(ir::parse("kernel @k(%1 n: i32) max_block_size(64) {\n  %2 = const 0 : i32\n"
                                         "  %3 = div %1, %2 : i32\n}\n")),
                    Contains("integer division by the constant 0"));
}

TEST_CASE("math functions on the wrong kind of operand are errors that say what to write") {
  CHECK_THROWS_WITH(kernel("popcount_float", [](Array<float> x) { x(0) = popcount(x(1)); }),
                    Contains("kernel 'popcount_float'") && Contains("popcount() takes integers, got f32") &&
                        Contains("bitcast"));
  CHECK_THROWS_WITH(kernel("tanh_int", [](Array<int32_t> x) { x(0) = tanh(x(1)); }),
                    Contains("tanh() takes f32 or f64, got i32") && Contains("cast<float>"));
  CHECK_THROWS_WITH(kernel("ldexp_float_exponent", [](Array<float> x) { x(0) = ldexp(x(1), x(2)); }),
                    Contains("ldexp(): the exponent must be an integer, got f32"));
  CHECK_THROWS_WITH(kernel("bitcast_size", [](Array<float> x, Array<int64_t> y) { y(0) = bitcast<int64_t>(x(0)); }),
                    Contains("bitcast<int64_t>() of a f32 value: both types must have the same size (8 and 4 bytes)"));
  CHECK_THROWS_WITH(kernel("isnan_int", [](Array<int32_t> x) { x(0) = cast<int32_t>(isnan(x(1))); }),
                    Contains("isnan() takes f32 or f64, got i32"));
  // The text IR: a math op's operand types follow its domain.
  CHECK_THROWS_WITH(ir::verify(ir::parse("kernel @k(%1 n: i32) max_block_size(64) {\n"
                                         "  %2 = math.popcount %1 : i32\n  %3 = cast %1 : i32 to f32\n"
                                         "  %4 = math.clz %3 : f32\n}\n")),
                    Contains("clz is defined on integers, not f32"));
  CHECK_THROWS_WITH(ir::verify(ir::parse("kernel @k(%1 n: i32) max_block_size(64) {\n"
                                         "  %2 = cast %1 : i32 to f64\n  %3 = bitcast %2 : f64 to i32\n}\n")),
                    Contains("bitcast from f64 to i32: both types must have the same size"));
}

// lld reads the object from a memfd and writes the code object into a pipe: linking touches no
// file system, so a TMPDIR that cannot be used (it once made linking fail) does not matter.
TEST_CASE("linking needs no temporary files: an unusable TMPDIR does not stop an AMDGPU compile") {
  Kernel k = kernel("link_tmp", [](Array<float> a) { a(global_id(0)) = 1.0f; });
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  setenv("TMPDIR", "/nonexistent-rocjit-tmp/sub", 1);
  CompileOptions options;
  options.cache = false;
  CodeObject object;
  CHECK_NOTHROW(object = compile(k, Target::amdgpu("gfx90a"), options));
  if (old) setenv("TMPDIR", saved.c_str(), 1); else unsetenv("TMPDIR");
  REQUIRE(object.elf.size() > 4);
  CHECK(std::memcmp(object.elf.data(), "\x7f" "ELF", 4) == 0);
}

TEST_CASE("a While condition may hold wave votes and reductions, not barriers, stores or lane-divergent exits") {
  CHECK_NOTHROW(kernel("vote_while", [](Array<int32_t> x) {
    Var<int32_t> v = 0;
    While([&] { return wave::any(v < x(global_id(0))); }, [&] { v = v + 1; });
    While([&] { return wave::reduce_max(v) > 3 && wave::count(v > 1) > 0; }, [&] { v = v - 1; });
    x(global_id(0)) = v;
  }));
  int line = 0;
  // A barrier or a store in a condition names the op and the line.
  auto barrier_while = [&] {
    return kernel("barrier_while", [&](Array<int32_t> x) {
      Var<int32_t> v = 0;
      While([&] {
        line = __LINE__ + 1;
        barrier();
        return v < 3;
      }, [&] { v = v + 1; });
      x(0) = v;
    });
  };
  CHECK_THROWS_WITH(barrier_while(),
                    Contains("kernel 'barrier_while'") && Contains("cannot hold a barrier") && Contains(here(line)));
  auto store_while = [&] {
    return kernel("store_while", [&](Array<int32_t> x) {
      Var<int32_t> v = 0;
      While([&] {
        line = __LINE__ + 1;
        x(1) = v;
        return v < 3;
      }, [&] { v = v + 1; });
    });
  };
  CHECK_THROWS_WITH(store_while(), Contains("kernel 'store_while'") && Contains("cannot store or modify memory") &&
                                       Contains(here(line)));
  // Lanes that leave the loop one by one would vote with fewer lanes at the next test: a shuffle's
  // lane-varying result as the condition, or a Break under a lane condition, are refused.
  CHECK_THROWS_WITH(kernel("shuffle_while", [](Array<int32_t> x) {
                      Var<int32_t> v = x(global_id(0));
                      While([&] { return wave::shuffle_down(v, 1) > 0; }, [&] { v = v - 1; });
                      x(global_id(0)) = v;
                    }),
                    Contains("kernel 'shuffle_while'") && Contains("wave.shuffle_down"));
  CHECK_THROWS_WITH(kernel("break_vote_while", [](Array<int32_t> x) {
                      Var<int32_t> v = 0;
                      While([&] { return wave::any(v < 10); }, [&] {
                        v = v + 1;
                        If(lane_id() == 0, [&] { Break(); });
                      });
                      x(global_id(0)) = v;
                    }),
                    Contains("kernel 'break_vote_while'") && Contains("wave.any"));
}

// rocjit-smith seed 2026010894: 1-D, extents 6x1x1, groups of 2x1x1 (grid 3x1x1 groups), inputs of 39 elements.
// Output slots per work-item: out_i 3, out_u 3, out_l 3, out_f 3, out_d 2, ap_f 2, ap_d 2; atomic cells at_i 1, at_u 2, at_l 3.
// Inputs, initial outputs and launch: rocjit-smith --seed=2026010894 --count=1 (see tools/rocjit-smith/README.md).
auto norm = [](const Operand& e, int n) { return ((e % n) + n) % n; };
Kernel k = kernel("smith", [&](Array<int32_t> in_i, Array<uint32_t> in_u, Array<int64_t> in_l, Array<float> in_f,
    Array<double> in_d, Array<int32_t> out_i, Array<uint32_t> out_u, Array<int64_t> out_l, Array<float> out_f,
    Array<double> out_d, Array<float> ap_f, Array<double> ap_d, Array<int32_t> at_i, Array<uint32_t> at_u,
    Array<int64_t> at_l) {
  Int lid = local_id(0) + 2 * (local_id(1) + 1 * local_id(2));
  Int gx = global_id(0), gy = global_id(1), gz = global_id(2);
  Int lin = gx + 6 * (gy + 1 * gz);
  Bool inb = gx < 6 && gy < 1 && gz < 1;
  Var<double> v0 = cast<double>(global_id(0));
  auto s0 = shared::array<int64_t>({2});
  auto p0 = local::array<double>({4});
  for (int t = 0; t < 4; ++t) p0(t) = Double(std::bit_cast<double>(0x3fb999999999999aull));
  s0(lid) = cast<int64_t>(Double(std::bit_cast<double>(0x46293e5939a08ceaull)));
  barrier(CLK_LOCAL_MEM_FENCE);
  { Value t = norm(Int(0), 4); p0(t) = (cast<double>(group_id(0)) / in_d(norm(cast<int32_t>(s0(norm(Int(0), 2))), 39))); }
  For(-3, norm(Int(2), 5) + -3, [&](Int k0) {
    { Var<int32_t> w1 = 0;
    While([&] { return w1 < 4; }, [&] {
      w1 += 1;
      Int k1 = w1;
      atomic::xor_(at_l, 1, Long(int64_t(0x0000000000000000ull)));
    }); }
    If((cast<int32_t>(p0(norm(global_id(0), 4))) >= Int(-425628504)), [&] {
      If(Bool(true), [&] { Break(); });
    });
    { Var<int32_t> w4 = 0;
    While([&] { return w4 < 1; }, [&] {
      w4 += 1;
      Int k4 = w4;
      { Value t = norm(in_i(norm(Int(0), 39)), 4); p0(t) = cast<double>(Float(std::bit_cast<float>(0xc0200000u))); }
    }); }
  });
  barrier(CLK_LOCAL_MEM_FENCE);
  For(0, norm(cast<int32_t>(p0(norm(Int(2108010186), 4))), 4) + 0, [&](Int k10) {
    v0 = Double(std::bit_cast<double>(0x0000000000000000ull));
  });
  barrier(CLK_LOCAL_MEM_FENCE);
  { Value t = v0; If(inb, [&] { out_d(lin * 2 + 1) = t; }); }
}, {.max_block_size = 2});

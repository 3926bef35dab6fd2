// rocjit-smith seed 2030013782: 3-D, extents 1x1x1, groups of 1x1x1 (grid 1x1x1 groups), inputs of 1 elements.
// Output slots per work-item: out_i 4, out_u 2, out_l 4, out_f 1, out_d 3, ap_f 2, ap_d 2; atomic cells at_i 2, at_u 4, at_l 3.
// Inputs, initial outputs and launch: rocjit-smith --seed=2030013782 --count=1 (see tools/rocjit-smith/README.md).
auto norm = [](const Operand& e, int n) { return ((e % n) + n) % n; };
Kernel k = kernel("smith", [&](Array<int32_t> in_i, Array<uint32_t> in_u, Array<int64_t> in_l, Array<float> in_f,
    Array<double> in_d, Array<int32_t> out_i, Array<uint32_t> out_u, Array<int64_t> out_l, Array<float> out_f,
    Array<double> out_d, Array<float> ap_f, Array<double> ap_d, Array<int32_t> at_i, Array<uint32_t> at_u,
    Array<int64_t> at_l) {
  Int lid = local_id(0) + 1 * (local_id(1) + 1 * local_id(2));
  Int gx = global_id(0), gy = global_id(1), gz = global_id(2);
  Int lin = gx + 1 * (gy + 1 * gz);
  Bool inb = gx < 1 && gy < 1 && gz < 1;
  Var<int64_t> v0 = Long(int64_t(0x7fffffffffffffffull));
  auto s0 = shared::array<uint32_t>({1});
  auto p0 = local::array<double>({1});
  auto p1 = local::array<uint32_t>({6});
  for (int t = 0; t < 1; ++t) p0(t) = Double(std::bit_cast<double>(0xc05ce80000000000ull));
  for (int t = 0; t < 6; ++t) p1(t) = UInt(3251790995u);
  s0(lid) = in_u(norm(Int(0), 1));
  For(0, norm(cast<int32_t>(s0(lid)), 2) + 0, [&](Int k1) {
    { Value t = norm(Int(0), 6); p1(t) = UInt8(uint8_t(0)); }
  });
  barrier(CLK_LOCAL_MEM_FENCE);
  { Var<int32_t> w2 = 0;
  While([&] { return w2 < 1; }, [&] {
    w2 += 1;
    Int k2 = w2;
    { Var<int32_t> w3 = 0;
    While([&] { return w3 < 2; }, [&] {
      w3 += 1;
      Int k3 = w3;
      If((p1(norm(Int(0), 6)) > UInt(100u)), [&] { Break(); });
      v0 |= cast<int64_t>(p0(norm(Int(0), 1)));
    }); }
  }); }
  barrier(CLK_LOCAL_MEM_FENCE);
  v0 |= (-cast<int64_t>(s0(lid)));
  barrier(CLK_LOCAL_MEM_FENCE);
  { Value t = v0; If(inb, [&] { out_l(lin * 4 + 3) = t; }); }
}, {.max_block_size = 1});

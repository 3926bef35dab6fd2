// rocjit-smith seed 2030014175: 1-D, extents 2x1x1, groups of 1x1x1 (grid 2x1x1 groups), inputs of 3 elements.
// Output slots per work-item: out_i 2, out_u 2, out_l 1, out_f 2, out_d 1, ap_f 2, ap_d 2; atomic cells at_i 2, at_u 2, at_l 1.
// Inputs, initial outputs and launch: rocjit-smith --seed=2030014175 --count=1 (see tools/rocjit-smith/README.md).
auto norm = [](const Operand& e, int n) { return ((e % n) + n) % n; };
Kernel k = kernel("smith", [&](Array<int32_t> in_i, Array<uint32_t> in_u, Array<int64_t> in_l, Array<float> in_f,
    Array<double> in_d, Array<int32_t> out_i, Array<uint32_t> out_u, Array<int64_t> out_l, Array<float> out_f,
    Array<double> out_d, Array<float> ap_f, Array<double> ap_d, Array<int32_t> at_i, Array<uint32_t> at_u,
    Array<int64_t> at_l) {
  Int lid = local_id(0) + 1 * (local_id(1) + 1 * local_id(2));
  Int gx = global_id(0), gy = global_id(1), gz = global_id(2);
  Int lin = gx + 2 * (gy + 1 * gz);
  Bool inb = gx < 2 && gy < 1 && gz < 1;
  auto s0 = shared::array<int32_t>({1});
  auto p0 = local::array<uint32_t>({2});
  for (int t = 0; t < 2; ++t) p0(t) = UInt(1227384201u);
  s0(lid) = cast<int32_t>(cast<double>(local_size(0)));
  { Value t = Half(half::from_bits(0x0000)); If(inb, [&] { out_f(lin * 2 + 1) = t; }); }
  If((Int16(int16_t(0)) == cast<uint16_t>(global_id(0))), [&] {
    { Var<int32_t> w0 = 0;
    While([&] { return w0 < 3; }, [&] {
      w0 += 1;
      Int k0 = w0;
      { Value t = Double(std::bit_cast<double>(0x0000000000000000ull)); If(inb, [&] { out_d(lin * 1 + 0) = t; }); }
      If((cast<uint8_t>(k0) <= cast<uint8_t>(p0(norm(Int(32), 2)))), [&] { Break(); });
    }); }
  });
  { Var<int32_t> w1 = 0;
  While([&] { return w1 < 3; }, [&] {
    w1 += 1;
    Int k1 = w1;
    { Value t = norm(local_id(0), 2); p0(t) = select((in_i(norm(in_i(norm(Int(0), 3)), 3)) == Int(-1)), UInt(0u), cast<uint32_t>(in_f(norm(cast<int32_t>((cast<double>(k1) + cast<double>(s0(lid)))), 3)))); }
    { Value t = cast<int64_t>(p0(norm(s0(lid), 2))); If(inb, [&] { out_l(lin * 1 + 0) = t; }); }
    { Var<int32_t> w2 = 0;
    While([&] { return w2 < 3; }, [&] {
      w2 += 1;
      Int k2 = w2;
      { Value t = cos(fmin(fmax(Float(std::bit_cast<float>(0x41200000u)), -32.0), 32.0)); If(inb, [&] { ap_f(lin * 2 + 1) = t; }); }
    }); }
  }); }
  barrier(CLK_LOCAL_MEM_FENCE);
  barrier(CLK_LOCAL_MEM_FENCE);
  { Value t = Int16(int16_t(0)); If(inb, [&] { out_i(lin * 2 + 1) = t; }); }
}, {.max_block_size = 1});

// rocjit-smith seed 2027006731: 2-D, extents 1x1x1, groups of 1x2x1 (grid 1x1x1 groups), inputs of 1 elements.
// Output slots per work-item: out_i 2, out_u 4, out_l 4, out_f 3, out_d 2, ap_f 2, ap_d 2; atomic cells at_i 2, at_u 2, at_l 4.
// Inputs, initial outputs and launch: rocjit-smith --seed=2027006731 --count=1 (see tools/rocjit-smith/README.md).
auto norm = [](const Operand& e, int n) { return ((e % n) + n) % n; };
Kernel k = kernel("smith", [&](Array<int32_t> in_i, Array<uint32_t> in_u, Array<int64_t> in_l, Array<float> in_f,
    Array<double> in_d, Array<int32_t> out_i, Array<uint32_t> out_u, Array<int64_t> out_l, Array<float> out_f,
    Array<double> out_d, Array<float> ap_f, Array<double> ap_d, Array<int32_t> at_i, Array<uint32_t> at_u,
    Array<int64_t> at_l) {
  Int lid = local_id(0) + 1 * (local_id(1) + 2 * local_id(2));
  Int gx = global_id(0), gy = global_id(1), gz = global_id(2);
  Int lin = gx + 1 * (gy + 1 * gz);
  Bool inb = gx < 1 && gy < 1 && gz < 1;
  Var<int64_t> v0 = Long(int64_t(0x0000000000000040ull));
  Var<int32_t> v1 = Int(2);
  Var<uint16_t> v2 = UInt16(uint16_t(0));
  Var<uint16_t> v3 = UInt16(uint16_t(0));
  auto s0 = shared::array<int32_t>({2});
  auto s1 = shared::array<double>({2});
  auto p0 = local::array<int32_t>({6});
  for (int t = 0; t < 6; ++t) p0(t) = Int(108302342);
  s0(lid) = Int(0);
  s1(lid) = Double(std::bit_cast<double>(0x0000000000000000ull));
  barrier(CLK_LOCAL_MEM_FENCE);
  If((in_i(norm(Int(0), 1)) >= Int(653)), [&] {
    { Var<int32_t> w0 = 0;
    While([&] { return w0 < 4; }, [&] {
      w0 += 1;
      Int k0 = w0;
      { Value t = (cast<half>(global_id(0)) + Half(half::from_bits(0x0000))); If(inb, [&] { out_d(lin * 2 + 0) = t; }); }
    }); }
  }).Else([&] {
    { Value t = log(Double(std::bit_cast<double>(0x0000000000000000ull))); If(inb, [&] { ap_d(lin * 2 + 1) = t; }); }
  });
  { Value t = Float(std::bit_cast<float>(0x00000000u)); If(inb, [&] { out_f(lin * 3 + 0) = t; }); }
  barrier(CLK_LOCAL_MEM_FENCE);
}, {.max_block_size = 2});

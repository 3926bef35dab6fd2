// rocjit-smith seed 2030013865: 2-D, extents 1x1x1, groups of 1x1x1 (grid 1x1x1 groups), inputs of 1 elements.
// Output slots per work-item: out_i 4, out_u 3, out_l 2, out_f 2, out_d 1, ap_f 2, ap_d 1; atomic cells at_i 2, at_u 4, at_l 4.
// Inputs, initial outputs and launch: rocjit-smith --seed=2030013865 --count=1 (see tools/rocjit-smith/README.md).
auto norm = [](const Operand& e, int n) { return ((e % n) + n) % n; };
Kernel k = kernel("smith", [&](Array<int32_t> in_i, Array<uint32_t> in_u, Array<int64_t> in_l, Array<float> in_f,
    Array<double> in_d, Array<int32_t> out_i, Array<uint32_t> out_u, Array<int64_t> out_l, Array<float> out_f,
    Array<double> out_d, Array<float> ap_f, Array<double> ap_d, Array<int32_t> at_i, Array<uint32_t> at_u,
    Array<int64_t> at_l) {
  Int lid = local_id(0) + 1 * (local_id(1) + 1 * local_id(2));
  Int gx = global_id(0), gy = global_id(1), gz = global_id(2);
  Int lin = gx + 1 * (gy + 1 * gz);
  Bool inb = gx < 1 && gy < 1 && gz < 1;
  Var<uint32_t> v0 = UInt(893u);
  Var<int16_t> v1 = Int16(int16_t(100));
  Var<half> v2 = Half(half::from_bits(0x0000));
  auto s0 = shared::array<int32_t>({3});
  auto s1 = shared::array<int64_t>({1});
  auto p0 = local::array<double>({5});
  for (int t = 0; t < 5; ++t) p0(t) = Double(std::bit_cast<double>(0x40effe0000000000ull));
  If(lid == 0, [&] { s0(0) = Int(65535); s0(1) = Int(994); s0(2) = Int(-59330595); });
  s1(lid) = Long(int64_t(0x0000000000000000ull));
  For(-3, norm(group_id(1), 2) + -3, [&](Int k0) {
    { Value t = Double(std::bit_cast<double>(0x0000000000000000ull)); If(inb, [&] { out_d(lin * 1 + 0) = t; }); }
    { Value t = norm(Int(0), 5); p0(t) = Double(std::bit_cast<double>(0x0000000000000000ull)); }
  });
  barrier(CLK_LOCAL_MEM_FENCE);
  barrier(CLK_LOCAL_MEM_FENCE);
  barrier(CLK_LOCAL_MEM_FENCE);
  { Value t = cast<half>(p0(norm(cast<int32_t>((Int8(int8_t(-2)) ^ cast<int8_t>(in_d(norm(Int(-1), 1))))), 5))); If(inb, [&] { out_f(lin * 2 + 0) = t; }); }
}, {.max_block_size = 1});

// rocjit-smith seed 2026007058: 2-D, extents 1x1x1, groups of 1x4x1 (grid 1x1x1 groups), inputs of 35 elements.
// Output slots per work-item: out_i 1, out_u 5, out_l 5, out_f 2, out_d 3, ap_f 2, ap_d 1; atomic cells at_i 4, at_u 1, at_l 3.
// Inputs, initial outputs and launch: rocjit-smith --seed=2026007058 --count=1 (see tools/rocjit-smith/README.md).
auto norm = [](const Operand& e, int n) { return ((e % n) + n) % n; };
Kernel k = kernel("smith", [&](Array<int32_t> in_i, Array<uint32_t> in_u, Array<int64_t> in_l, Array<float> in_f,
    Array<double> in_d, Array<int32_t> out_i, Array<uint32_t> out_u, Array<int64_t> out_l, Array<float> out_f,
    Array<double> out_d, Array<float> ap_f, Array<double> ap_d, Array<int32_t> at_i, Array<uint32_t> at_u,
    Array<int64_t> at_l) {
  Int lid = local_id(0) + 1 * (local_id(1) + 4 * local_id(2));
  Int gx = global_id(0), gy = global_id(1), gz = global_id(2);
  Int lin = gx + 1 * (gy + 1 * gz);
  Bool inb = gx < 1 && gy < 1 && gz < 1;
  Var<int64_t> v0 = Long(int64_t(0x0000000000000000ull));
  Var<uint32_t> v1 = UInt(0u);
  Var<float> v2 = Float(std::bit_cast<float>(0x355661c6u));
  Var<uint32_t> v3 = cast<uint32_t>(local_id(1));
  Var<int64_t> v4 = Long(int64_t(0x0000000000000000ull));
  Var<int64_t> v5 = Long(int64_t(0xd4413d2b26e772c7ull));
  auto s0 = shared::array<int64_t>({4});
  auto p0 = local::array<uint32_t>({5});
  for (int t = 0; t < 5; ++t) p0(t) = UInt(4294967143u);
  s0(lid) = Long(int64_t(0x0000000000000000ull));
  barrier(CLK_LOCAL_MEM_FENCE);
  barrier(CLK_LOCAL_MEM_FENCE);
  { Var<int32_t> w7 = 0;
  While([&] { return w7 < 4; }, [&] {
    w7 += 1;
    Int k7 = w7;
    { Var<int32_t> w8 = 0;
    While([&] { return w8 < 2; }, [&] {
      w8 += 1;
      Int k8 = w8;
      v2 *= Float(std::bit_cast<float>(0x42834000u));
    }); }
    If((in_d(norm(in_i(norm(k7, 35)), 35)) > (Double(std::bit_cast<double>(0x0000000000000000ull)) - cast<double>(v3))), [&] { Break(); });
  }); }
  barrier(CLK_LOCAL_MEM_FENCE);
  { Value t = v2; If(inb, [&] { out_f(lin * 2 + 1) = t; }); }
}, {.max_block_size = 4});

// rocjit-smith seed 2031007303: 2-D, extents 1x1x1, groups of 1x5x1 (grid 1x1x1 groups), inputs of 1 elements.
// Output slots per work-item: out_i 1, out_u 3, out_l 2, out_f 4, out_d 5, ap_f 2, ap_d 1; atomic cells at_i 4, at_u 2, at_l 1.
// Inputs, initial outputs and launch: rocjit-smith --seed=2031007303 --count=1 (see tools/rocjit-smith/README.md).
auto norm = [](const Operand& e, int n) { return ((e % n) + n) % n; };
Kernel k = kernel("smith", [&](Array<int32_t> in_i, Array<uint32_t> in_u, Array<int64_t> in_l, Array<float> in_f,
    Array<double> in_d, Array<int32_t> out_i, Array<uint32_t> out_u, Array<int64_t> out_l, Array<float> out_f,
    Array<double> out_d, Array<float> ap_f, Array<double> ap_d, Array<int32_t> at_i, Array<uint32_t> at_u,
    Array<int64_t> at_l) {
  Int lid = local_id(0) + 1 * (local_id(1) + 5 * local_id(2));
  Int gx = global_id(0), gy = global_id(1), gz = global_id(2);
  Int lin = gx + 1 * (gy + 1 * gz);
  Bool inb = gx < 1 && gy < 1 && gz < 1;
  Var<uint32_t> v0 = UInt(0u);
  Var<double> v1 = Double(std::bit_cast<double>(0xc046700000000000ull));
  Var<uint32_t> v2 = UInt(4294966943u);
  Var<float> v3 = Float(std::bit_cast<float>(0xc2b44000u));
  Var<double> v4 = Double(std::bit_cast<double>(0x0000000000000000ull));
  auto s0 = shared::array<float>({5});
  auto s1 = shared::array<int32_t>({2});
  s0(lid) = Float(std::bit_cast<float>(0x00000000u));
  If(lid == 0, [&] { s1(0) = Int(1); s1(1) = Int(32); });
  atomic::add(at_u, 1, UInt(886098298u));
  If((global_size(1) != 0), [&] {
    { Var<int32_t> w0 = 0;
    While([&] { return w0 < 4; }, [&] {
      w0 += 1;
      Int k0 = w0;
      atomic::max(at_l, 0, Long(int64_t(0xffffffffffffff9cull)));
    }); }
  });
  barrier(CLK_LOCAL_MEM_FENCE);
  barrier(CLK_LOCAL_MEM_FENCE);
}, {.max_block_size = 5});

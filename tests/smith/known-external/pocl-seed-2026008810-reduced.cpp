// rocjit-smith seed 2026008810: 2-D, extents 1x1x1, groups of 1x4x1 (grid 1x1x1 groups), inputs of 1 elements.
// Output slots per work-item: out_i 1, out_u 4, out_l 4, out_f 1, out_d 4, ap_f 2, ap_d 2; atomic cells at_i 1, at_u 3, at_l 1.
// Inputs, initial outputs and launch: rocjit-smith --seed=2026008810 --count=1 (see tools/rocjit-smith/README.md).
auto norm = [](const Operand& e, int n) { return ((e % n) + n) % n; };
Kernel k = kernel("smith", [&](Array<int32_t> in_i, Array<uint32_t> in_u, Array<int64_t> in_l, Array<float> in_f,
    Array<double> in_d, Array<int32_t> out_i, Array<uint32_t> out_u, Array<int64_t> out_l, Array<float> out_f,
    Array<double> out_d, Array<float> ap_f, Array<double> ap_d, Array<int32_t> at_i, Array<uint32_t> at_u,
    Array<int64_t> at_l) {
  Int lid = local_id(0) + 1 * (local_id(1) + 4 * local_id(2));
  Int gx = global_id(0), gy = global_id(1), gz = global_id(2);
  Int lin = gx + 1 * (gy + 1 * gz);
  Bool inb = gx < 1 && gy < 1 && gz < 1;
  Var<int64_t> v0 = Long(int64_t(0xffffffffffffff9cull));
  Var<double> v1 = Double(std::bit_cast<double>(0x3fe0000000000000ull));
  Var<uint32_t> v2 = UInt(0u);
  Var<double> v3 = Double(std::bit_cast<double>(0x0000000000000000ull));
  Var<uint32_t> v4 = UInt(0u);
  auto s0 = shared::array<int32_t>({2});
  auto s1 = shared::array<int64_t>({4});
  If(lid == 0, [&] { s0(0) = Int(32); s0(1) = Int(1); });
  s1(lid) = Long(int64_t(0x0000000000000000ull));
  barrier(CLK_LOCAL_MEM_FENCE);
  { Var<int32_t> w6 = 0;
  While([&] { return w6 < 2; }, [&] {
    w6 += 1;
    Int k6 = w6;
    For(-3, norm(local_id(1), 4) + -3, [&](Int k7) {
      v2 = UInt(4294967295u);
    });
  }); }
  barrier(CLK_LOCAL_MEM_FENCE);
  { Value t = v2; If(inb, [&] { out_u(lin * 4 + 2) = t; }); }
}, {.max_block_size = 4});

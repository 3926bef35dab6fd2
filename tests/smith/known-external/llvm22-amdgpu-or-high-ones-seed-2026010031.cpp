// rocjit-smith seed 2026010031: 1-D, extents 1x1x1, groups of 2x1x1 (grid 1x1x1 groups), inputs of 1 elements.
// Output slots per work-item: out_i 2, out_u 1, out_l 3, out_f 3, out_d 3, ap_f 2, ap_d 2; atomic cells at_i 4, at_u 4, at_l 3.
// Inputs, initial outputs and launch: rocjit-smith --seed=2026010031 --count=1 (see tools/rocjit-smith/README.md).
auto norm = [](const Operand& e, int n) { return ((e % n) + n) % n; };
Kernel k = kernel("smith", [&](Array<int32_t> in_i, Array<uint32_t> in_u, Array<int64_t> in_l, Array<float> in_f,
    Array<double> in_d, Array<int32_t> out_i, Array<uint32_t> out_u, Array<int64_t> out_l, Array<float> out_f,
    Array<double> out_d, Array<float> ap_f, Array<double> ap_d, Array<int32_t> at_i, Array<uint32_t> at_u,
    Array<int64_t> at_l) {
  Int lid = local_id(0) + 2 * (local_id(1) + 1 * local_id(2));
  Int gx = global_id(0), gy = global_id(1), gz = global_id(2);
  Int lin = gx + 1 * (gy + 1 * gz);
  Bool inb = gx < 1 && gy < 1 && gz < 1;
  Var<int64_t> v0 = Long(int64_t(0x1e83b1da4180042eull));
  auto s0 = shared::array<int32_t>({2});
  auto p0 = local::array<int64_t>({5});
  for (int t = 0; t < 5; ++t) p0(t) = Long(int64_t(0x7fffffffffffffffull));
  s0(lid) = Int(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  barrier(CLK_LOCAL_MEM_FENCE);
  v0 = cast<int64_t>(Double(std::bit_cast<double>(0xc059500000000000ull)));
  barrier(CLK_LOCAL_MEM_FENCE);
  { Var<int32_t> w6 = 0;
  While([&] { return w6 < 4; }, [&] {
    w6 += 1;
    Int k6 = w6;
    v0 |= (p0(norm(Int(0), 5)) + (cast<int64_t>(s0(lid)) >> v0));
  }); }
  { Value t = v0; If(inb, [&] { out_l(lin * 3 + 2) = t; }); }
}, {.max_block_size = 2});

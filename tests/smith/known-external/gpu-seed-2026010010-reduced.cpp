// rocjit-smith seed 2026010010: 2-D, extents 3x1x1, groups of 1x2x1 (grid 3x1x1 groups), inputs of 3 elements.
// Output slots per work-item: out_i 3, out_u 4, out_l 3, out_f 3, out_d 4, ap_f 2, ap_d 2; atomic cells at_i 4, at_u 1, at_l 2.
// Inputs, initial outputs and launch: rocjit-smith --seed=2026010010 --count=1 (see tools/rocjit-smith/README.md).
auto norm = [](const Operand& e, int n) { return ((e % n) + n) % n; };
Kernel k = kernel("smith", [&](Array<int32_t> in_i, Array<uint32_t> in_u, Array<int64_t> in_l, Array<float> in_f,
    Array<double> in_d, Array<int32_t> out_i, Array<uint32_t> out_u, Array<int64_t> out_l, Array<float> out_f,
    Array<double> out_d, Array<float> ap_f, Array<double> ap_d, Array<int32_t> at_i, Array<uint32_t> at_u,
    Array<int64_t> at_l) {
  Int lid = local_id(0) + 1 * (local_id(1) + 2 * local_id(2));
  Int gx = global_id(0), gy = global_id(1), gz = global_id(2);
  Int lin = gx + 3 * (gy + 1 * gz);
  Bool inb = gx < 3 && gy < 1 && gz < 1;
  Var<uint32_t> v0 = UInt(2486135792u);
  auto s0 = shared::array<double>({2});
  auto p0 = local::array<int64_t>({2});
  for (int t = 0; t < 2; ++t) p0(t) = Long(int64_t(0x000000007fffffffull));
  s0(lid) = Double(std::bit_cast<double>(0x0000000000000000ull));
  barrier(CLK_LOCAL_MEM_FENCE);
  barrier(CLK_LOCAL_MEM_FENCE);
  { Var<int32_t> w0 = 0;
  While([&] { return w0 < 3; }, [&] {
    w0 += 1;
    Int k0 = w0;
    v0 = select((p0(norm(Int(0), 2)) <= Long(int64_t(0x0000000000000000ull))), cast<uint32_t>(p0(norm(Int(143), 2))), UInt(0u));
    { Value t = norm(cast<int32_t>(s0(norm(in_i(norm(k0, 3)), 2))), 2); p0(t) = (cast<int64_t>(k0) >> cast<int64_t>(cast<double>(cast<uint32_t>(global_id(0))))); }
  }); }
  barrier(CLK_LOCAL_MEM_FENCE);
  { Value t = v0; If(inb, [&] { out_u(lin * 4 + 3) = t; }); }
}, {.max_block_size = 2});

// rocjit-smith seed 2027007156: 3-D, extents 1x1x1, groups of 1x1x1 (grid 1x1x1 groups), inputs of 5 elements.
// Output slots per work-item: out_i 3, out_u 2, out_l 2, out_f 2, out_d 1, ap_f 2, ap_d 2; atomic cells at_i 4, at_u 3, at_l 2.
// Inputs, initial outputs and launch: rocjit-smith --seed=2027007156 --count=1 (see tools/rocjit-smith/README.md).
auto norm = [](const Operand& e, int n) { return ((e % n) + n) % n; };
Kernel k = kernel("smith", [&](Array<int32_t> in_i, Array<uint32_t> in_u, Array<int64_t> in_l, Array<float> in_f,
    Array<double> in_d, Array<int32_t> out_i, Array<uint32_t> out_u, Array<int64_t> out_l, Array<float> out_f,
    Array<double> out_d, Array<float> ap_f, Array<double> ap_d, Array<int32_t> at_i, Array<uint32_t> at_u,
    Array<int64_t> at_l) {
  Int lid = local_id(0) + 1 * (local_id(1) + 1 * local_id(2));
  Int gx = global_id(0), gy = global_id(1), gz = global_id(2);
  Int lin = gx + 1 * (gy + 1 * gz);
  Bool inb = gx < 1 && gy < 1 && gz < 1;
  Var<int64_t> v0 = Long(int64_t(0x0000000000000002ull));
  auto p0 = local::array<int64_t>({2});
  for (int t = 0; t < 2; ++t) p0(t) = Long(int64_t(0x467f4a41d760fab4ull));
  { Value t = norm(in_i(norm(Int(-2), 5)), 2); p0(t) *= Long(int64_t(0x0000000000000000ull)); }
  v0 = cast<uint8_t>(p0(norm(in_i(norm(max(Int(352), cast<int32_t>(p0(norm(Int(0), 2)))), 5)), 2)));
  { Value t = v0; If(inb, [&] { out_l(lin * 2 + 1) = t; }); }
}, {.max_block_size = 1});

// rocjit-smith seed 2033012741: 3-D, extents 1x1x1, groups of 2x1x2 (grid 1x1x1 groups), inputs of 3 elements.
// Output slots per work-item: out_i 2, out_u 4, out_l 2, out_f 1, out_d 4, ap_f 1, ap_d 1; atomic cells at_i 1, at_u 4, at_l 3.
// Inputs, initial outputs and launch: rocjit-smith --seed=2033012741 --count=1 (see tools/rocjit-smith/README.md).
auto norm = [](const Operand& e, int n) { return ((e % n) + n) % n; };
Kernel k = kernel("smith", [&](Array<int32_t> in_i, Array<uint32_t> in_u, Array<int64_t> in_l, Array<float> in_f,
    Array<double> in_d, Array<int32_t> out_i, Array<uint32_t> out_u, Array<int64_t> out_l, Array<float> out_f,
    Array<double> out_d, Array<float> ap_f, Array<double> ap_d, Array<int32_t> at_i, Array<uint32_t> at_u,
    Array<int64_t> at_l) {
  Int lid = local_id(0) + 2 * (local_id(1) + 1 * local_id(2));
  Int gx = global_id(0), gy = global_id(1), gz = global_id(2);
  Int lin = gx + 1 * (gy + 1 * gz);
  Bool inb = gx < 1 && gy < 1 && gz < 1;
  Var<uint32_t> v0 = UInt(572u);
  auto s0 = shared::array<int32_t>({4});
  s0(lid) = cast<int32_t>(cast<uint8_t>(in_d(norm(select((global_id(2) != 0), Int(0), (Int(12345678) / cast<int32_t>(v0))), 3))));
  For(-1, norm(s0(lid), 4) + -1, [&](Int k0) {
    v0 = UInt(0u);
  });
  barrier(CLK_LOCAL_MEM_FENCE);
  { Value t = v0; If(inb, [&] { out_u(lin * 4 + 3) = t; }); }
}, {.max_block_size = 4});

// rocjit-smith seed 2028008126: 2-D, extents 6x1x1, groups of 5x1x1 (grid 2x1x1 groups), inputs of 1 elements.
// Output slots per work-item: out_i 1, out_u 1, out_l 3, out_f 2, out_d 2, ap_f 1, ap_d 2; atomic cells at_i 2, at_u 3, at_l 4.
// Inputs, initial outputs and launch: rocjit-smith --seed=2028008126 --count=1 (see tools/rocjit-smith/README.md).
auto norm = [](const Operand& e, int n) { return ((e % n) + n) % n; };
Kernel k = kernel("smith", [&](Array<int32_t> in_i, Array<uint32_t> in_u, Array<int64_t> in_l, Array<float> in_f,
    Array<double> in_d, Array<int32_t> out_i, Array<uint32_t> out_u, Array<int64_t> out_l, Array<float> out_f,
    Array<double> out_d, Array<float> ap_f, Array<double> ap_d, Array<int32_t> at_i, Array<uint32_t> at_u,
    Array<int64_t> at_l) {
  Int lid = local_id(0) + 5 * (local_id(1) + 1 * local_id(2));
  Int gx = global_id(0), gy = global_id(1), gz = global_id(2);
  Int lin = gx + 6 * (gy + 1 * gz);
  Bool inb = gx < 6 && gy < 1 && gz < 1;
  Var<half> v0 = Half(half::from_bits(0xbcd3));
  For(-1, norm(Int(5), 4) + -1, [&](Int k1) {
    v0 = (cast<half>(local_id(0)) / Half(half::from_bits(0x0400)));
  });
  { Value t = v0; If(inb, [&] { out_f(lin * 2 + 1) = t; }); }
}, {.max_block_size = 5});

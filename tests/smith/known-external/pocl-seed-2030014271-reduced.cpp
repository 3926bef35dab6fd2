// rocjit-smith seed 2030014271: 3-D, extents 1x1x1, groups of 1x1x1 (grid 1x1x1 groups), inputs of 1 elements.
// Output slots per work-item: out_i 3, out_u 2, out_l 3, out_f 2, out_d 3, ap_f 1, ap_d 2; atomic cells at_i 3, at_u 1, at_l 2.
// Inputs, initial outputs and launch: rocjit-smith --seed=2030014271 --count=1 (see tools/rocjit-smith/README.md).
auto norm = [](const Operand& e, int n) { return ((e % n) + n) % n; };
Kernel k = kernel("smith", [&](Array<int32_t> in_i, Array<uint32_t> in_u, Array<int64_t> in_l, Array<float> in_f,
    Array<double> in_d, Array<int32_t> out_i, Array<uint32_t> out_u, Array<int64_t> out_l, Array<float> out_f,
    Array<double> out_d, Array<float> ap_f, Array<double> ap_d, Array<int32_t> at_i, Array<uint32_t> at_u,
    Array<int64_t> at_l) {
  Int lid = local_id(0) + 1 * (local_id(1) + 1 * local_id(2));
  Int gx = global_id(0), gy = global_id(1), gz = global_id(2);
  Int lin = gx + 1 * (gy + 1 * gz);
  Bool inb = gx < 1 && gy < 1 && gz < 1;
  Var<float> v0 = Float(std::bit_cast<float>(0x00000000u));
  v0 /= Float(std::bit_cast<float>(0x00000000u));
  { Value t = ceil(cast<double>(v0)); If(inb, [&] { out_d(lin * 3 + 0) = t; }); }
}, {.max_block_size = 1});

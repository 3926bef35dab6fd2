// rocjit-smith seed 2027009067: 1-D, extents 1x1x1, groups of 1x1x1 (grid 1x1x1 groups), inputs of 66 elements.
// Output slots per work-item: out_i 4, out_u 4, out_l 3, out_f 4, out_d 1, ap_f 2, ap_d 2; atomic cells at_i 1, at_u 3, at_l 4.
// Inputs, initial outputs and launch: rocjit-smith --seed=2027009067 --count=1 (see tools/rocjit-smith/README.md).
auto norm = [](const Operand& e, int n) { return ((e % n) + n) % n; };
Kernel k = kernel("smith", [&](Array<int32_t> in_i, Array<uint32_t> in_u, Array<int64_t> in_l, Array<float> in_f,
    Array<double> in_d, Array<int32_t> out_i, Array<uint32_t> out_u, Array<int64_t> out_l, Array<float> out_f,
    Array<double> out_d, Array<float> ap_f, Array<double> ap_d, Array<int32_t> at_i, Array<uint32_t> at_u,
    Array<int64_t> at_l) {
  Int lid = local_id(0) + 1 * (local_id(1) + 1 * local_id(2));
  Int gx = global_id(0), gy = global_id(1), gz = global_id(2);
  Int lin = gx + 1 * (gy + 1 * gz);
  Bool inb = gx < 1 && gy < 1 && gz < 1;
  Var<half> v0 = Half(half::from_bits(0x566d));
  Var<int32_t> v1 = Int(3);
  auto s0 = shared::array<int64_t>({1});
  s0(lid) = (Long(int64_t(0xf090879b7e4cc843ull)) + in_l(norm(v1, 66)));
  barrier(CLK_LOCAL_MEM_FENCE);
  v0 = cast<half>((UInt16(uint16_t(0)) * in_f(norm((v1 - cast<int32_t>(s0(norm(Int(0), 1)))), 66))));
  { Value t = v0; If(inb, [&] { out_f(lin * 4 + 3) = t; }); }
}, {.max_block_size = 1});

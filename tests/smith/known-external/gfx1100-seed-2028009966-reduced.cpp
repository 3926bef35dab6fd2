// rocjit-smith seed 2028009966: 3-D, extents 1x1x1, groups of 1x1x1 (grid 1x1x1 groups), inputs of 57 elements.
// Output slots per work-item: out_i 4, out_u 3, out_l 2, out_f 3, out_d 2, ap_f 1, ap_d 2; atomic cells at_i 3, at_u 1, at_l 3.
// Inputs, initial outputs and launch: rocjit-smith --seed=2028009966 --count=1 (see tools/rocjit-smith/README.md).
auto norm = [](const Operand& e, int n) { return ((e % n) + n) % n; };
Kernel k = kernel("smith", [&](Array<int32_t> in_i, Array<uint32_t> in_u, Array<int64_t> in_l, Array<float> in_f,
    Array<double> in_d, Array<int32_t> out_i, Array<uint32_t> out_u, Array<int64_t> out_l, Array<float> out_f,
    Array<double> out_d, Array<float> ap_f, Array<double> ap_d, Array<int32_t> at_i, Array<uint32_t> at_u,
    Array<int64_t> at_l) {
  Int lid = local_id(0) + 1 * (local_id(1) + 1 * local_id(2));
  Int gx = global_id(0), gy = global_id(1), gz = global_id(2);
  Int lin = gx + 1 * (gy + 1 * gz);
  Bool inb = gx < 1 && gy < 1 && gz < 1;
  Var<int32_t> v0 = Int(-770);
  { Var<int32_t> w2 = 0;
  While([&] { return w2 < 2; }, [&] {
    w2 += 1;
    Int k2 = w2;
    { Value t = rsqrt(Double(std::bit_cast<double>(0x0000000000000000ull))); If(inb, [&] { ap_d(lin * 2 + 1) = t; }); }
    If((in_i(norm(Int(0), 57)) > Int(0)), [&] {
    }).Else([&] {
      For(-2, norm(in_i(norm(select((in_i(norm(Int(0), 57)) != Int(0)), v0, (v0 / in_i(norm(Int(1713129124), 57)))), 57)), 4) + -2, [&](Int k3) {
        v0 /= local_id(0);
      });
    });
  }); }
  { Value t = v0; If(inb, [&] { out_i(lin * 4 + 3) = t; }); }
}, {.max_block_size = 1});

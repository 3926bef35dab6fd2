// rocjit-smith seed 2032014329: 2-D, extents 1x3x1, groups of 1x2x1 (grid 1x2x1 groups), inputs of 1 elements.
// Output slots per work-item: out_i 3, out_u 2, out_l 2, out_f 6, out_d 4, ap_f 1, ap_d 2; atomic cells at_i 1, at_u 2, at_l 2.
// Inputs, initial outputs and launch: rocjit-smith --seed=2032014329 --count=1 (see tools/rocjit-smith/README.md).
auto norm = [](const Operand& e, int n) { return ((e % n) + n) % n; };
Kernel k = kernel("smith", [&](Array<int32_t> in_i, Array<uint32_t> in_u, Array<int64_t> in_l, Array<float> in_f,
    Array<double> in_d, Array<int32_t> out_i, Array<uint32_t> out_u, Array<int64_t> out_l, Array<float> out_f,
    Array<double> out_d, Array<float> ap_f, Array<double> ap_d, Array<int32_t> at_i, Array<uint32_t> at_u,
    Array<int64_t> at_l) {
  Int lid = local_id(0) + 1 * (local_id(1) + 2 * local_id(2));
  Int gx = global_id(0), gy = global_id(1), gz = global_id(2);
  Int lin = gx + 1 * (gy + 3 * gz);
  Bool inb = gx < 1 && gy < 3 && gz < 1;
  Var<int16_t> v0 = Int16(int16_t(3));
  Var<double> v1 = Double(std::bit_cast<double>(0x3fe0000000000000ull));
  Var<half> v2 = Half(half::from_bits(0x79ce));
  auto s0 = shared::array<float>({2});
  s0(lid) = Float(std::bit_cast<float>(0x00000000u));
  barrier(CLK_LOCAL_MEM_FENCE);
  { Var<int32_t> w3 = 0;
  While([&] { return w3 < 2; }, [&] {
    w3 += 1;
    Int k3 = w3;
    { Var<int32_t> w4 = 0;
    While([&] { return w4 < 1; }, [&] {
      w4 += 1;
      Int k4 = w4;
      If((Int8(int8_t(0)) != in_f(norm(Int(0), 1))), [&] {
        atomic::max(at_l, 1, Long(int64_t(0xe38f70d3606b2940ull)));
      });
    }); }
    v2 /= cast<half>(s0(norm(k3, 2)));
    For(2, norm(Int(1), 3) + 2, [&](Int k5) {
      { Value t = sin(fmin(fmax(in_f(norm(Int(-100), 1)), -32.0), 32.0)); If(inb, [&] { ap_f(lin * 1 + 0) = t; }); }
      v1 = (v1 / ((Double(std::bit_cast<double>(0x0000000000000000ull)) / cast<double>(v2)) + cast<uint16_t>(v0)));
      If((local_id(1) != 0), [&] { Break(); });
    });
  }); }
  { Value t = v1; If(inb, [&] { out_d(lin * 4 + 3) = t; }); }
}, {.max_block_size = 2});

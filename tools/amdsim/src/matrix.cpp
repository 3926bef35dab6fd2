// Matrix-core instructions: CDNA2/CDNA3 MFMA (single-block forms) and RDNA3 WMMA: D = A . B + C
// over the wave.
//
// Register layout (the ISA manuals' matrix instruction tables, for the forms with one block):
// with M = N rows and columns and K the reduction length, lane l holds
//   A[l % M][(l / M) * ka + j]   for the j-th element packed in its A registers (ka per lane),
//   B[(l / N) * kb + j][l % N]   likewise for B,
//   D[8 * (r / 4) ... ]          element r of its D registers: column l % N, row
//                                (r / 4) * (4 * 64 / N) + 4 * (l / N) + r % 4.
// Elements pack into registers as the operand types do: two f16/bf16 per dword (low half first),
// four i8 per dword, one f32, one f64 per register pair. A, B, C and D may be VGPRs or AGPRs
// (decided by the operand's register class); C may be an inline constant.
//
// Numerics follow rocjit's model of the processor (rocjit/compiler/mma.hpp, ir::mma::Model;
// docs/mma.md), written here independently: i8 products and sums wrap in i32; f32 and f64 inputs,
// and f16/bf16 on processors without a model (WMMA), are C plus the products in k order, each
// step one fused multiply-add in the accumulator's type (f16 and bf16 products exact in f32).
// f16/bf16 MFMA on gfx90a (cdna2): subnormal A, B and C values read as signed zeros; pairs of
// products summed exactly with the accumulator and rounded once to f32, a subnormal step result
// flushed to a signed zero. On gfx942 and gfx950 (cdna3): groups of four, subnormals kept. The
// groups follow k, except that forms with 8 elements per lane (gfx950's 16x16x32, 32x32x16) take
// every lane's elements 0..3 first, then 4..7 (as two MFMAs of half the k would).
// xf32 (gfx942's v_mfma_f32_16x16x8_xf32, _32x32x4_xf32): f32 A and B registers, each value cut
// toward zero to 11 significant bits (xf32's 10 fraction bits; below 2^-126 its last place is
// 2^-136), NaNs and infinities as they are; then the f32 chain of fmas above.
// The cbsz/abid/blgp broadcast modifiers are not simulated: an instruction that sets one fails.
#include <fmt/format.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "valu.h"

namespace amdsim {
namespace {

enum class Elem : uint8_t { f16, bf16, f32, f64, i8 };

struct Form {
  unsigned m = 0, n = 0, k = 0;
  Elem in = Elem::f32;
  bool f64_acc = false, int_acc = false;
  bool xf32 = false;  // f32 registers multiplied at xf32 precision (xf32_value)
};

// "v_mfma_f32_32x32x8_f16", "v_mfma_f32_32x32x8f16", "v_mfma_f32_16x16x16bf16_1k",
// "v_mfma_f64_16x16x4_f64", "v_mfma_i32_16x16x32_i8": the form, from the name.
Form parse_form(const Wave& w, const Inst& i) {
  const std::string& s = i.name;
  Form f;
  size_t p = std::string("v_mfma_").size();
  const std::string acc = s.substr(p, 3);
  f.f64_acc = acc == "f64";
  f.int_acc = acc == "i32";
  p += 4;
  char* end = nullptr;
  f.m = static_cast<unsigned>(std::strtoul(s.c_str() + p, &end, 10));
  f.n = static_cast<unsigned>(std::strtoul(end + 1, &end, 10));
  f.k = static_cast<unsigned>(std::strtoul(end + 1, &end, 10));
  std::string in(end);
  if (!in.empty() && in[0] == '_') in.erase(0, 1);
  if (in.starts_with("xf32")) f.in = Elem::f32, f.xf32 = true;
  else if (in.starts_with("f16")) f.in = Elem::f16;
  else if (in.starts_with("bf16")) f.in = Elem::bf16;
  else if (in.starts_with("f32")) f.in = Elem::f32;
  else if (in.starts_with("f64")) f.in = Elem::f64;
  else if (in.starts_with("i8")) f.in = Elem::i8;
  else w.fail(i, "amdsim does not simulate this matrix instruction's input type");
  if (f.m != f.n || f.m * f.k < 64 || (f.m != 16 && f.m != 32))
    w.fail(i, "amdsim simulates the single-block 16x16 and 32x32 MFMA forms only");
  return f;
}

unsigned elem_bits(Elem e) {
  switch (e) {
    case Elem::f16: case Elem::bf16: return 16;
    case Elem::f32: return 32;
    case Elem::f64: return 64;
    case Elem::i8: return 8;
  }
  return 32;
}

// Dword `d` of a register tuple operand in `lane` (an inline constant reads the same in every dword).
uint32_t tuple_dword(const Wave& w, const Operand& op, unsigned d, int lane) {
  if (!op.is_reg()) return read32(w, op, lane);
  Operand r = op;
  r.index = static_cast<uint16_t>(op.index + d);
  r.dwords = 1;
  return read32(w, r, lane);
}

// Element `j` of lane `lane`'s packed operand, as a double (floats) or an integer (i8).
double element(const Wave& w, const Operand& op, Elem e, unsigned j, int lane) {
  const unsigned bits = elem_bits(e);
  if (bits == 64) {
    const uint64_t lo = tuple_dword(w, op, 2 * j, lane), hi = tuple_dword(w, op, 2 * j + 1, lane);
    return bits_f64(hi << 32 | lo);
  }
  const unsigned per = 32 / bits;
  const uint32_t word = tuple_dword(w, op, j / per, lane);
  const uint32_t x = bits == 32 ? word : (word >> (bits * (j % per))) & ((1u << bits) - 1);
  switch (e) {
    case Elem::f16: return f16_bits_to_f32(static_cast<uint16_t>(x));
    case Elem::bf16: return bits_f32(x << 16);
    case Elem::f32: return bits_f32(x);
    case Elem::i8: return static_cast<int8_t>(x);
    case Elem::f64: break;
  }
  return 0;
}

// The exact sum of a few doubles rounded once to f32, to nearest even (an independent
// implementation of rocjit's ir::mma::round_sum_f32): the terms become a nonoverlapping
// expansion (Shewchuk's Grow-Expansion with two-sum), a first guess is the f32 of its double
// sum, and the guess moves to a neighbour while the exact sum lies beyond the midpoint between
// them (ties to the even one). An exact zero is -0 only if every term is -0; a NaN term or
// +inf and -inf give 0x7fc00000; `flush`: a subnormal result becomes a zero of its sign.
class Expansion {
 public:
  void add(double x) {
    double q = x;
    unsigned kept = 0;
    for (unsigned p = 0; p < n_; ++p) {  // in place: part p is read before slot kept <= p is written
      const double e = parts_[p];
      const double s = q + e, bv = s - q, err = (q - (s - bv)) + (e - bv);
      if (err != 0) parts_[kept++] = err;
      q = s;
    }
    if (q != 0) parts_[kept++] = q;
    n_ = kept;
  }
  // The sign of the exact sum minus m: -1, 0 or 1 (the largest part of a nonoverlapping expansion
  // decides).
  int compare(double m) const {
    Expansion e = *this;
    e.add(-m);
    if (e.n_ == 0) return 0;
    return e.parts_[e.n_ - 1] > 0 ? 1 : -1;
  }
  double approximate() const {
    double s = 0;
    for (unsigned p = 0; p < n_; ++p) s += parts_[p];
    return s;
  }

 private:
  double parts_[24] = {};  // increasing magnitude, the last the largest (at most one per term)
  unsigned n_ = 0;
};

float round_sum(const std::vector<double>& terms, bool flush) {
  bool nan = false, pinf = false, ninf = false, minus_zeros = !terms.empty();
  Expansion x;
  for (double t : terms) {
    if (std::isnan(t)) nan = true;
    else if (std::isinf(t)) (t > 0 ? pinf : ninf) = true;
    else x.add(t);
    if (!(t == 0 && std::signbit(t))) minus_zeros = false;
  }
  if (nan || (pinf && ninf)) return bits_f32(0x7fc00000u);
  if (pinf || ninf) return pinf ? INFINITY : -INFINITY;
  constexpr double big = 0x1p128;  // the even neighbour above FLT_MAX: a sum rounding there is infinity
  auto up = [&](double f) { return f == FLT_MAX ? big : double(std::nextafter(float(f), INFINITY)); };
  auto down = [&](double f) { return f == -FLT_MAX ? -big : double(std::nextafter(float(f), -INFINITY)); };
  auto even = [&](double f) { return std::fabs(f) == big || (f32_bits(float(f)) & 1) == 0; };
  double f = std::clamp(double(float(std::clamp(x.approximate(), -double(FLT_MAX), double(FLT_MAX)))),
                        -double(FLT_MAX), double(FLT_MAX));
  for (;;) {
    if (std::fabs(f) != big) {
      const double hi = up(f), mid_hi = (f + hi) / 2;  // exact: f32 neighbours' midpoints are doubles
      const int c = x.compare(mid_hi);
      if (c > 0 || (c == 0 && even(hi))) {
        f = hi;
        continue;
      }
    }
    if (std::fabs(f) != big) {
      const double lo = down(f), mid_lo = (f + lo) / 2;
      const int c = x.compare(mid_lo);
      if (c < 0 || (c == 0 && even(lo))) {
        f = lo;
        continue;
      }
    }
    break;
  }
  if (std::fabs(f) == big) return f > 0 ? INFINITY : -INFINITY;
  if (f == 0) return minus_zeros ? -0.0f : 0.0f;
  if (flush && std::fabs(f) < FLT_MIN) return std::copysign(0.0f, float(f));
  return float(f);
}

// An f32 value (as a double) at xf32 precision: toward zero to 11 significant bits, whose last
// place is 2^(e - 10) for a value in [2^e, 2^(e+1)), at least 2^-136 (f32's subnormals keep their
// 10 highest fraction bits). Zeros keep their sign; NaN and infinities are returned as they are.
double xf32_value(double x) {
  if (x == 0 || !std::isfinite(x)) return x;
  int e = 0;
  std::frexp(x, &e);  // |x| in [2^(e-1), 2^e)
  const int last = std::max(e - 11, -136);
  return std::ldexp(std::trunc(std::ldexp(x, -last)), last);
}

void mfma(Wave& w, const Inst& i) {
  if (i.text.find("cbsz:") != std::string::npos || i.text.find("abid:") != std::string::npos ||
      i.text.find("blgp:") != std::string::npos)
    w.fail(i, "amdsim does not simulate the cbsz/abid/blgp modifiers of matrix instructions");
  if (w.wave_size != 64 || w.exec() != ~0ull)
    w.fail(i, fmt::format("a matrix instruction ran with EXEC = 0x{:x}; MFMA needs every lane of the wave active",
                          w.exec()));
  const Form f = parse_form(w, i);
  const unsigned ka = f.m * f.k / 64, kb = f.k * f.n / 64, nd = f.m * f.n / 64;
  // All sources are read before D is written (D may be C's registers).
  std::vector<double> a(64 * ka), b(64 * kb);
  for (int l = 0; l < 64; ++l) {
    for (unsigned j = 0; j < ka; ++j) a[l * ka + j] = element(w, i.ops[1], f.in, j, l);
    for (unsigned j = 0; j < kb; ++j) b[l * kb + j] = element(w, i.ops[2], f.in, j, l);
    if (f.xf32) {
      for (unsigned j = 0; j < ka; ++j) a[l * ka + j] = xf32_value(a[l * ka + j]);
      for (unsigned j = 0; j < kb; ++j) b[l * kb + j] = xf32_value(b[l * kb + j]);
    }
  }
  const unsigned groups = 64 / f.n;  // lanes l / N
  // f16/bf16 under the processor's model: products per rounding, flushing (gfx90a), the k order.
  const bool sixteen = f.in == Elem::f16 || f.in == Elem::bf16;
  const unsigned group = sixteen && !f.int_acc && !f.f64_acc ? w.matrix_group : 0;
  const bool flush = group == 2;
  std::vector<unsigned> ks;
  for (unsigned half = 0; half < (ka == 8 && group > 1 ? 2u : 1u); ++half)
    for (unsigned lane_block = 0; lane_block < f.k / ka; ++lane_block)
      for (unsigned j = 0; j < (ka == 8 && group > 1 ? 4u : ka); ++j) ks.push_back(lane_block * ka + half * 4 + j);
  std::vector<uint64_t> d(64 * nd);
  for (int l = 0; l < 64; ++l) {
    const unsigned col = l % f.n;
    for (unsigned r = 0; r < nd; ++r) {
      const unsigned row = r / 4 * (4 * groups) + 4 * (l / f.n) + r % 4;
      // A[row][kk] is in lane row + M * (kk / ka), element kk % ka; B[kk][col] in lane
      // col + N * (kk / kb), element kk % kb.
      auto a_at = [&](unsigned kk) { return a[(row + f.m * (kk / ka)) * ka + kk % ka]; };
      auto b_at = [&](unsigned kk) { return b[(col + f.n * (kk / kb)) * kb + kk % kb]; };
      if (f.int_acc) {
        uint32_t sum = tuple_dword(w, i.ops[3], r, l);
        for (unsigned kk = 0; kk < f.k; ++kk)
          sum += static_cast<uint32_t>(static_cast<int32_t>(a_at(kk)) * static_cast<int32_t>(b_at(kk)));
        d[l * nd + r] = sum;
      } else if (f.f64_acc) {
        double sum = i.ops[3].is_reg() ? bits_f64(uint64_t(tuple_dword(w, i.ops[3], 2 * r + 1, l)) << 32 |
                                                  tuple_dword(w, i.ops[3], 2 * r, l))
                                       : bits_f64(read64(w, i.ops[3], l, true));
        for (unsigned kk = 0; kk < f.k; ++kk) sum = std::fma(a_at(kk), b_at(kk), sum);
        d[l * nd + r] = f64_bits(sum);
      } else if (group > 1) {
        // The processor's groups (see the top of this file), in the order of `ks`.
        const double smallest = f.in == Elem::f16 ? 0x1p-14 : 0x1p-126;
        auto flushed = [&](double x, double normal) { return flush && std::fabs(x) < normal ? std::copysign(0.0, x) : x; };
        float sum = static_cast<float>(flushed(bits_f32(tuple_dword(w, i.ops[3], r, l)), 0x1p-126));
        for (unsigned g = 0; g < f.k; g += group) {
          std::vector<double> terms{sum};
          for (unsigned j = g; j < g + group; ++j)
            terms.push_back(flushed(a_at(ks[j]), smallest) * flushed(b_at(ks[j]), smallest));
          sum = round_sum(terms, flush);
        }
        d[l * nd + r] = f32_bits(sum);
      } else {
        float sum = bits_f32(tuple_dword(w, i.ops[3], r, l));
        for (unsigned kk = 0; kk < f.k; ++kk)
          sum = std::fma(static_cast<float>(a_at(kk)), static_cast<float>(b_at(kk)), sum);
        d[l * nd + r] = f32_bits(sum);
      }
    }
  }
  for (int l = 0; l < 64; ++l) {
    for (unsigned r = 0; r < nd; ++r) {
      Operand dst = i.ops[0];
      dst.dwords = 1;
      if (f.f64_acc) {
        dst.index = static_cast<uint16_t>(i.ops[0].index + 2 * r);
        write32(w, dst, l, static_cast<uint32_t>(d[l * nd + r]));
        dst.index = static_cast<uint16_t>(dst.index + 1);
        write32(w, dst, l, static_cast<uint32_t>(d[l * nd + r] >> 32));
      } else {
        dst.index = static_cast<uint16_t>(i.ops[0].index + r);
        write32(w, dst, l, static_cast<uint32_t>(d[l * nd + r]));
      }
    }
  }
  w.lane_instructions += 64;
}

// --- WMMA (gfx11, RDNA3) -----------------------------------------------------------------------
//
// v_wmma_<D>_16x16x16_<in> in wave32 and wave64 (the AMD matrix instruction calculator's RDNA3
// tables, the RDNA3 ISA guide's WMMA section): with W the wave size,
//   A: lane l holds row l % 16 of A, all 16 k values packed in k order (8 registers of two
//      f16/bf16, low half first; 4 registers of four i8, low byte first);
//   B: lane l holds column l % 16 of B the same way;
//   lanes 16..W-1 replicate lanes 0..15 (l % 16): the hardware reads one copy, so differing
//   copies give undefined results, and amdsim stops the launch;
//   C/D: element (register) r of lane l is row (W / 16) * r + l / 16, column l % 16: 8 registers
//   in wave32 (rows interleaved between the half-waves), 4 in wave64.
// f16/bf16 outputs use one 16-bit half of each C/D register, chosen by op_sel[2] (low half when
// 0); amdsim keeps the other half of D (LLVM's tied forms rely on it; the untied ones leave it
// undefined). iu8: neg_lo[0] and neg_lo[1] make A's and B's bytes signed (unsigned otherwise).
// Numerics are rocjit's definition, as for MFMA: C plus the k products in k order, one fma per
// step in f32 (16-bit inputs exact in f32; no denormal flush); for f16/bf16 outputs the f32 sum is
// rounded once, to nearest even, to the output type; i8 products and sums wrap in i32.
// Not simulated (an error): iu4, the clamp modifier, and neg_lo/neg_hi on the float forms.

uint16_t f32_to_bf16_bits(float f) {
  uint32_t x = f32_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40);  // quiet NaN
  x += 0x7fffu + ((x >> 16) & 1);  // round to nearest even
  return static_cast<uint16_t>(x >> 16);
}

void wmma(Wave& w, const Inst& i) {
  const int W = w.wave_size;
  const uint64_t full = W == 64 ? ~0ull : 0xffffffffull;
  if (w.exec() != full)
    w.fail(i, fmt::format("a WMMA instruction ran with EXEC = 0x{:x}; WMMA needs every lane of the wave active",
                          w.exec()));
  const std::string& s = i.name;  // v_wmma_<acc>_16x16x16_<in>
  const std::string acc = s.substr(7, s.find('_', 7) - 7);
  const std::string in = s.substr(s.rfind('_') + 1);
  const bool integer = in == "iu8";
  if (in == "iu4") w.fail(i, "amdsim does not simulate v_wmma_i32_16x16x16_iu4");
  if (i.mod.clamp) w.fail(i, "amdsim does not simulate the clamp modifier of WMMA instructions");
  if (!integer && (i.mod.neg_lo != 0 || i.mod.neg_hi != 0))
    w.fail(i, "amdsim does not simulate the neg_lo/neg_hi modifiers of floating-point WMMA instructions");
  if (integer && (i.mod.neg_lo & 4u) != 0) w.fail(i, "neg_lo[2] must be 0 on an integer WMMA instruction");
  const unsigned ab_regs = integer ? 4 : 8;
  // Replicated A and B: every lane must hold what lane l % 16 holds.
  for (int opi = 1; opi <= 2; ++opi)
    for (unsigned d = 0; d < ab_regs; ++d)
      for (int l = 16; l < W; ++l)
        if (tuple_dword(w, i.ops[opi], d, l) != tuple_dword(w, i.ops[opi], d, l % 16))
          w.fail(i, fmt::format("WMMA operand {} (register {} of the tuple) differs between lane {} and lane {}, "
                                "which must hold the same {}; the hardware's result is undefined",
                                opi == 1 ? "A" : "B", d, l % 16, l, opi == 1 ? "row of A" : "column of B"));
  // A[row][k] and B[k][col] from lanes 0..15.
  auto a_at = [&](int row, int k) -> double {
    if (integer) {
      const uint32_t x = (tuple_dword(w, i.ops[1], k / 4, row) >> (8 * (k % 4))) & 0xff;
      return (i.mod.neg_lo & 1u) ? double(int8_t(x)) : double(x);
    }
    return element(w, i.ops[1], in == "f16" ? Elem::f16 : Elem::bf16, k, row);
  };
  auto b_at = [&](int k, int col) -> double {
    if (integer) {
      const uint32_t x = (tuple_dword(w, i.ops[2], k / 4, col) >> (8 * (k % 4))) & 0xff;
      return (i.mod.neg_lo & 2u) ? double(int8_t(x)) : double(x);
    }
    return element(w, i.ops[2], in == "f16" ? Elem::f16 : Elem::bf16, k, col);
  };
  const unsigned nd = 256 / W;  // C/D registers
  const bool half_out = acc == "f16" || acc == "bf16";
  const unsigned shift = half_out && (i.mod.op_sel & 4u) ? 16 : 0;
  std::vector<uint32_t> d(size_t(W) * nd);
  for (int l = 0; l < W; ++l)
    for (unsigned r = 0; r < nd; ++r) {
      const int row = int(W / 16 * r) + l / 16, col = l % 16;
      const uint32_t c = tuple_dword(w, i.ops[3], r, l);
      if (integer) {
        uint32_t sum = c;
        for (int k = 0; k < 16; ++k)
          sum += static_cast<uint32_t>(static_cast<int64_t>(a_at(row, k)) * static_cast<int64_t>(b_at(k, col)));
        d[size_t(l) * nd + r] = sum;
        continue;
      }
      const uint16_t c16 = static_cast<uint16_t>(c >> shift);
      float sum = acc == "f32" ? bits_f32(c) : acc == "f16" ? f16_bits_to_f32(c16) : bits_f32(uint32_t(c16) << 16);
      for (int k = 0; k < 16; ++k)
        sum = std::fma(static_cast<float>(a_at(row, k)), static_cast<float>(b_at(k, col)), sum);
      d[size_t(l) * nd + r] = !half_out ? f32_bits(sum)
                              : uint32_t(acc == "f16" ? f32_to_f16_bits(sum) : f32_to_bf16_bits(sum)) << shift;
    }
  for (int l = 0; l < W; ++l)
    for (unsigned r = 0; r < nd; ++r) {
      Operand dst = i.ops[0];
      dst.dwords = 1;
      dst.index = static_cast<uint16_t>(i.ops[0].index + r);
      uint32_t x = d[size_t(l) * nd + r];
      if (half_out) x |= read32(w, dst, l) & (0xffff0000u >> shift);
      write32(w, dst, l, x);
    }
  w.lane_instructions += W;
}

}  // namespace

void register_vector_matrix(HandlerTable& t) {
  // Opcode names with and without the underscore before the input type ("16x16x16f16" on
  // gfx90a, "16x16x32_f16" on gfx950), bf16 with and without "_1k".
  struct Spec {
    const char* acc;
    unsigned m, k;
    const char* in;
  };
  for (const Spec& s : {Spec{"f32", 16, 16, "f16"}, Spec{"f32", 32, 8, "f16"}, Spec{"f32", 16, 32, "f16"},
                        Spec{"f32", 32, 16, "f16"}, Spec{"f32", 16, 16, "bf16"}, Spec{"f32", 32, 8, "bf16"},
                        Spec{"f32", 16, 32, "bf16"}, Spec{"f32", 32, 16, "bf16"}, Spec{"f32", 16, 4, "f32"},
                        Spec{"f32", 32, 2, "f32"}, Spec{"f64", 16, 4, "f64"}, Spec{"i32", 16, 16, "i8"},
                        Spec{"i32", 32, 8, "i8"}, Spec{"i32", 16, 32, "i8"}, Spec{"i32", 32, 16, "i8"},
                        Spec{"f32", 16, 8, "xf32"}, Spec{"f32", 32, 4, "xf32"}}) {
    const std::string base = fmt::format("v_mfma_{}_{}x{}x{}", s.acc, s.m, s.m, s.k);
    for (const char* sep : {"", "_"}) {
      add_handler(t, base + sep + s.in, mfma);
      if (std::string(s.in) == "bf16") add_handler(t, base + sep + s.in + "_1k", mfma);
    }
  }
  for (const char* name : {"v_wmma_f32_16x16x16_f16", "v_wmma_f32_16x16x16_bf16", "v_wmma_f16_16x16x16_f16",
                           "v_wmma_bf16_16x16x16_bf16", "v_wmma_i32_16x16x16_iu8", "v_wmma_i32_16x16x16_iu4"})
    add_handler(t, name, wmma);
}

}  // namespace amdsim

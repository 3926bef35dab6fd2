// Fuzz target for the DSL-facing surface (libFuzzer entry point; see scripts/fuzz.sh --dsl).
//
// The input bytes are a small program for a stack machine that calls the public DSL while a
// kernel is traced: constants and ids of every type, arithmetic, comparisons, casts, bitcasts,
// math, selects, loads and stores of global, shared and local arrays (any index, any type),
// whole-vector loads and stores, Vars, If/Else, For, While, Break, Continue, Return, barriers,
// fences, atomics and wave operations, nested as the bytes say. Most byte strings misuse the DSL
// somewhere (a type mismatch, a barrier in divergent control flow, a 4-D index, a huge shared
// array...). The property: tracing, then compiling for the host and for gfx942, either succeeds
// or throws rocjit::Error. Any other exception, a crash, a sanitizer report or an LLVM abort is
// a bug. Kernels are compiled, never launched, so loops need not terminate.
//
// rocjit-dsl-replay runs the same function over tests/fuzz/dsl-corpus and dsl-regressions in the
// normal test suite (ctest dsl-fuzz-regressions).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <string>
#include <vector>

#include <rocjit/rocjit.hpp>

using namespace rocjit;
using namespace rocjit::dsl;

namespace {

[[noreturn]] void property_failed(const char* what, const std::string& detail) {
  std::fprintf(stderr, "rocjit DSL fuzz: %s\n%s\n", what, detail.c_str());
  std::abort();
}

// The parameters every fuzzed kernel has, by index.
struct Params {
  Array<float> f32;
  Array<int32_t> i32;
  Array<double> f64;
  Array<int64_t> i64;
  Array<half> f16;
  Array<uint8_t> u8;
  Array<float, 2> f32_2d;
  Float scale;
  Int n;
};

class Machine {
 public:
  Machine(const uint8_t* data, size_t size, Params& p) : data_(data), size_(size), p_(p) {}

  void run() {
    vars_i32_.emplace_back(0);
    vars_f32_.emplace_back(0.0f);
    vars_f64_.emplace_back(0.0);
    vars_i64_.emplace_back(int64_t{0});
    block(0);
  }

 private:
  static constexpr int kMaxDepth = 4;
  static constexpr size_t kMaxStack = 16;

  bool more() const { return pos_ < size_; }
  uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint32_t word() {
    uint32_t w = 0;
    for (int i = 0; i < 4; ++i) w = (w << 8) | byte();
    return w;
  }

  void push(const Value& v) {
    if (stack_.size() == kMaxStack) stack_.erase(stack_.begin());
    stack_.push_back(v);
  }
  // The value `k` places from the top, or a constant when the stack is shorter.
  Value peek(size_t k = 0) const {
    if (k < stack_.size()) return stack_[stack_.size() - 1 - k];
    return Int(static_cast<int32_t>(k));
  }
  Value pop() {
    Value v = peek();
    if (!stack_.empty()) stack_.pop_back();
    return v;
  }

  ArrayRef global_array(uint8_t which) {
    switch (which % 7) {
      case 0: return p_.f32;
      case 1: return p_.i32;
      case 2: return p_.f64;
      case 3: return p_.i64;
      case 4: return p_.f16;
      case 5: return p_.u8;
      default: return p_.f32_2d;
    }
  }

  ArrayRef any_array(uint8_t which) {
    if (which < 200 || (shared_.empty() && locals_.empty())) return global_array(which);
    if (which < 228 && !shared_.empty()) return shared_[which % shared_.size()];
    if (!locals_.empty()) return locals_[which % locals_.size()];
    return shared_[which % shared_.size()];
  }

  Value constant(uint8_t type) {
    const uint32_t w = word();
    float f;
    std::memcpy(&f, &w, sizeof f);
    switch (type % 12) {
      case 0: return Int(static_cast<int32_t>(w));
      case 1: return UInt(w);
      case 2: return Long(static_cast<int64_t>(static_cast<int32_t>(w)) * 977);
      case 3: return ULong(static_cast<uint64_t>(w) << (w & 31));
      case 4: return Float(f);
      case 5: return Double(static_cast<double>(f) * 3.0);
      case 6: return Int8(static_cast<int8_t>(w));
      case 7: return UInt8(static_cast<uint8_t>(w));
      case 8: return Int16(static_cast<int16_t>(w));
      case 9: return UInt16(static_cast<uint16_t>(w));
      case 10: return Half(half(f));
      default: return Bool((w & 1) != 0);
    }
  }

  Value id(uint8_t which) {
    const int dim = (which >> 3) % 4;  // 3 is out of range: an error
    switch (which % 8) {
      case 0: return global_id(dim);
      case 1: return local_id(dim);
      case 2: return group_id(dim);
      case 3: return local_size(dim);
      case 4: return num_groups(dim);
      case 5: return global_size(dim);
      case 6: return lane_id();
      default: return wave_size();
    }
  }

  Value cast_to(uint8_t type, const Value& v) {
    switch (type % 12) {
      case 0: return cast<int32_t>(v);
      case 1: return cast<uint32_t>(v);
      case 2: return cast<int64_t>(v);
      case 3: return cast<uint64_t>(v);
      case 4: return cast<float>(v);
      case 5: return cast<double>(v);
      case 6: return cast<int8_t>(v);
      case 7: return cast<uint8_t>(v);
      case 8: return cast<int16_t>(v);
      case 9: return cast<uint16_t>(v);
      case 10: return cast<half>(v);
      default: return cast<bfloat16>(v);
    }
  }

  Value bitcast_to(uint8_t type, const Value& v) {
    switch (type % 6) {
      case 0: return bitcast<int32_t>(v);
      case 1: return bitcast<float>(v);
      case 2: return bitcast<int64_t>(v);
      case 3: return bitcast<double>(v);
      case 4: return bitcast<uint16_t>(v);
      default: return bitcast<half>(v);
    }
  }

  Value binary(uint8_t op, const Value& a, const Value& b) {
    switch (op % 12) {
      case 0: return a + b;
      case 1: return a - b;
      case 2: return a * b;
      case 3: return a / b;
      case 4: return a % b;
      case 5: return a & b;
      case 6: return a | b;
      case 7: return a ^ b;
      case 8: return a << b;
      case 9: return a >> b;
      case 10: return min(a, b);
      default: return max(a, b);
    }
  }

  Value comparison(uint8_t op, const Value& a, const Value& b) {
    switch (op % 8) {
      case 0: return a == b;
      case 1: return a != b;
      case 2: return a < b;
      case 3: return a <= b;
      case 4: return a > b;
      case 5: return a >= b;
      case 6: return a && b;
      default: return a || b;
    }
  }

  Value math1(uint8_t op, const Value& x) {
    switch (op % 40) {
      case 0: return sqrt(x);
      case 1: return rsqrt(x);
      case 2: return exp(x);
      case 3: return log(x);
      case 4: return sin(x);
      case 5: return cos(x);
      case 6: return tan(x);
      case 7: return fabs(x);
      case 8: return floor(x);
      case 9: return ceil(x);
      case 10: return asin(x);
      case 11: return atan(x);
      case 12: return tanh(x);
      case 13: return erf(x);
      case 14: return tgamma(x);
      case 15: return lgamma(x);
      case 16: return expm1(x);
      case 17: return log1p(x);
      case 18: return cbrt(x);
      case 19: return trunc(x);
      case 20: return round(x);
      case 21: return rint(x);
      case 22: return isnan(x);
      case 23: return isinf(x);
      case 24: return signbit(x);
      case 25: return popcount(x);
      case 26: return clz(x);
      case 27: return ctz(x);
      case 28: return bitreverse(x);
      case 29: return abs(x);
      case 30: return -x;
      case 31: return ~x;
      case 32: return !x;
      case 33: return uniform(x);
      case 34: return exp10(x);
      case 35: return acosh(x);
      case 36: return erfc(x);
      case 37: return log2(x);
      case 38: return sinh(x);
      default: return isfinite(x);
    }
  }

  Value math2(uint8_t op, const Value& a, const Value& b) {
    switch (op % 12) {
      case 0: return atan2(a, b);
      case 1: return pow(a, b);
      case 2: return fmin(a, b);
      case 3: return fmax(a, b);
      case 4: return hypot(a, b);
      case 5: return fmod(a, b);
      case 6: return copysign(a, b);
      case 7: return ldexp(a, b);
      case 8: return rotl(a, b);
      case 9: return mul_hi(a, b);
      case 10: return nextafter(a, b);
      default: return remainder(a, b);
    }
  }

  Value wave(uint8_t op, const Value& v, const Value& w) {
    switch (op % 14) {
      case 0: return wave::shuffle(v, w);
      case 1: return wave::shuffle_xor(v, w);
      case 2: return wave::shuffle_up(v, w);
      case 3: return wave::shuffle_down(v, w);
      case 4: return wave::broadcast(v, w);
      case 5: return wave::read_first(v);
      case 6: return wave::ballot(v);
      case 7: return wave::any(v);
      case 8: return wave::all(v);
      case 9: return wave::count(v);
      case 10: return wave::reduce_add(v);
      case 11: return wave::reduce_max(v);
      case 12: return wave::reduce_xor(v);
      default: return wave::inclusive_scan_add(v);
    }
  }

  Value atomic_op(uint8_t op, const ArrayRef& a, const Value& i, const Value& v) {
    switch (op % 9) {
      case 0: return atomic::add(a, i, v);
      case 1: return atomic::sub(a, i, v);
      case 2: return atomic::min(a, i, v);
      case 3: return atomic::max(a, i, v);
      case 4: return atomic::and_(a, i, v);
      case 5: return atomic::or_(a, i, v);
      case 6: return atomic::xor_(a, i, v);
      case 7: return atomic::exchange(a, i, v);
      default: return atomic::compare_exchange(a, i, v, peek(2));
    }
  }

  void assign_var(uint8_t which, const Value& v) {
    switch (which % 4) {
      case 0: vars_i32_[which % vars_i32_.size()] = v; break;
      case 1: vars_f32_[which % vars_f32_.size()] = v; break;
      case 2: vars_f64_[which % vars_f64_.size()] = v; break;
      default: vars_i64_[which % vars_i64_.size()] = v; break;
    }
  }
  Value read_var(uint8_t which) {
    switch (which % 4) {
      case 0: return vars_i32_[which % vars_i32_.size()];
      case 1: return vars_f32_[which % vars_f32_.size()];
      case 2: return vars_f64_[which % vars_f64_.size()];
      default: return vars_i64_[which % vars_i64_.size()];
    }
  }

  // A nested body: the bytes up to a 0xff (or the end), with its own value stack.
  void nested(int depth) {
    std::vector<Value> saved = stack_;
    block(depth + 1);
    stack_ = saved;
  }

  void block(int depth) {
    while (more()) {
      const uint8_t op = byte();
      if (op == 0xff) return;  // end of this body
      step(op % 30, depth);
    }
  }

  void step(uint8_t op, int depth) {
    switch (op) {
      case 0: push(constant(byte())); break;
      case 1: push(id(byte())); break;
      case 2: { Value b = pop(), a = pop(); push(binary(byte(), a, b)); break; }
      case 3: { Value b = pop(), a = pop(); push(comparison(byte(), a, b)); break; }
      case 4: push(cast_to(byte(), pop())); break;
      case 5: push(bitcast_to(byte(), pop())); break;
      case 6: push(math1(byte(), pop())); break;
      case 7: { Value b = pop(), a = pop(); push(math2(byte(), a, b)); break; }
      case 8: { Value c = pop(), a = pop(), b = pop(); push(select(c, a, b)); break; }
      case 9: {  // load a[i] or a[i, j]
        ArrayRef a = any_array(byte());
        if (byte() & 1) push(a(peek(), peek(1)));
        else push(a(pop()));
        break;
      }
      case 10: {  // a[i] = v
        ArrayRef a = any_array(byte());
        Value i = pop(), v = pop();
        a(i) = v;
        break;
      }
      case 11: assign_var(byte(), pop()); break;
      case 12: push(read_var(byte())); break;
      case 13: {
        if (depth >= kMaxDepth) break;
        const uint8_t shape = byte();
        Value c = pop();
        if (shape & 1) If(c, [&] { nested(depth); }).Else([&] { nested(depth); });
        else If(c, [&] { nested(depth); });
        break;
      }
      case 14: {
        if (depth >= kMaxDepth) break;
        Value end = pop(), begin = pop();
        if (byte() & 1) For(begin, end, [&](Value i) { push(i); nested(depth); });
        else For(begin, end, peek(), [&](Value i) { push(i); nested(depth); });
        break;
      }
      case 15: {
        if (depth >= kMaxDepth) break;
        Value c = pop();
        While([&] { return c; }, [&] { nested(depth); });
        break;
      }
      case 16: {
        switch (byte() % 3) {
          case 0: Break(); break;
          case 1: Continue(); break;
          default: Return(); break;
        }
        break;
      }
      case 17: {
        switch (byte() % 4) {
          case 0: barrier(CLK_LOCAL_MEM_FENCE); break;
          case 1: barrier(CLK_GLOBAL_MEM_FENCE); break;
          case 2: wavebarrier(); break;
          default: fence(memory_scope::workgroup, memory_order::acq_rel); break;
        }
        break;
      }
      case 18: {
        ArrayRef a = any_array(byte());
        Value i = pop(), v = pop();
        push(atomic_op(byte(), a, i, v));
        break;
      }
      case 19: { Value w = pop(), v = pop(); push(wave(byte(), v, w)); break; }
      case 20: {  // a shared array; the size may be far beyond any LDS
        const uint8_t kind = byte();
        const int extent = 1 + static_cast<int>(word() % (kind & 0x80 ? 1u << 20 : 512u));
        if (kind & 1) shared_.push_back(shared::array<float>({extent}));
        else if (kind & 2) shared_.push_back(shared::array<int32_t>({extent, 4}));
        else shared_.push_back(shared::array<half>({extent}));
        break;
      }
      case 21: {
        const uint8_t kind = byte();
        const int extent = 1 + static_cast<int>(word() % (kind & 0x80 ? 1u << 16 : 64u));
        if (kind & 1) locals_.push_back(local::array<int32_t>({extent}));
        else locals_.push_back(local::array<double>({extent}));
        break;
      }
      case 22: {  // whole-vector load and store
        ArrayRef a = any_array(byte());
        const uint8_t lanes = byte();
        Value i = pop();
        if (lanes & 1) {
          Vec<float, 4> v = a.vload<4, float>(i);
          push(v[lanes % 4]);
          a.vstore(i + 1, v * 2.0f);
        } else {
          Vec<int32_t, 2> v = a.vload<2, int32_t>(i);
          push(v.x() + v.y());
        }
        break;
      }
      case 23: {
        const uint8_t which = byte();
        if (which & 1) vars_i32_.emplace_back(peek());
        else vars_f32_.emplace_back(peek());
        break;
      }
      case 24: { Value b = pop(), a = pop(); push(Vec<float, 2>(a, b).x() + ceil_div(a, b)); break; }
      case 25: push(p_.scale); break;
      case 26: push(p_.n); break;
      case 27: push(p_.f32.shape(byte() % 3)); break;
      case 28: push(fma(peek(), peek(1), peek(2))); break;
      default: stack_.clear(); break;
    }
  }

  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  Params& p_;
  std::vector<Value> stack_;
  std::vector<ArrayRef> shared_, locals_;
  // Deques: a Var never moves once declared (copying one would declare another).
  std::deque<Var<int32_t>> vars_i32_;
  std::deque<Var<float>> vars_f32_;
  std::deque<Var<double>> vars_f64_;
  std::deque<Var<int64_t>> vars_i64_;
};

template <class F>
void expect_rocjit_errors_only(const char* stage, F&& f) {
  try {
    f();
  } catch (const rocjit::Error&) {
    throw;
  } catch (const std::exception& e) {
    property_failed(stage, std::string("threw a non-rocjit exception: ") + e.what());
  } catch (...) {
    property_failed(stage, "threw something that is not a std::exception");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // ROCJIT_DSL_FUZZ_VERBOSE=1: say what became of each input (the replay tool's corpus check).
  static const bool verbose = std::getenv("ROCJIT_DSL_FUZZ_VERBOSE") != nullptr;
  const uint8_t block = size > 0 ? data[0] : 64;
  try {
    Kernel k;
    expect_rocjit_errors_only("tracing", [&] {
      k = kernel(
          "fuzz",
          [&](Array<float> f32, Array<int32_t> i32, Array<double> f64, Array<int64_t> i64, Array<half> f16,
              Array<uint8_t> u8, Array<float, 2> f32_2d, Float scale, Int n) {
            Params p{f32, i32, f64, i64, f16, u8, f32_2d, scale, n};
            Machine m(size > 0 ? data + 1 : data, size > 0 ? size - 1 : 0, p);
            m.run();
          },
          {.max_block_size = 1u + block * 4u});
    });
    CompileOptions options;
    options.bounds_check = (block & 1) != 0;
    options.fast_math = (block & 2) != 0;
    expect_rocjit_errors_only("the host compile", [&] { compile(k, Target::host(), options); });
    expect_rocjit_errors_only("the gfx942 compile", [&] { compile(k, Target::amdgpu("gfx942"), options); });
    if (verbose) std::fprintf(stderr, "  compiled for the host and gfx942\n");
  } catch (const rocjit::Error& e) {
    // Refused with a message: what rocjit should do with a misuse.
    if (verbose) std::fprintf(stderr, "  refused: %s\n", e.what());
  }
  return 0;
}

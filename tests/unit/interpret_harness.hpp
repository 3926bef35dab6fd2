// The interpreter-vs-CPU harness of the unit tests: owned kernel arguments, a run on the
// reference interpreter, a run on the CPU back end (run_host), and a bit-for-bit comparison that
// names the first differing elements.
#pragma once

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include <rocjit/compiler/interpret.hpp>
#include <rocjit/rocjit.hpp>

namespace rocjit::testing {

// One owned kernel argument: an array's bytes (with shape and strides) or a scalar's bits.
struct Arg {
  ir::Type type = ir::Type::none;
  bool array = false;
  std::vector<std::byte> bytes;
  std::vector<int64_t> shape, strides;
  uint64_t bits = 0;

  template <class T>
  std::vector<T> as() const {
    std::vector<T> v(bytes.size() / sizeof(T));
    std::memcpy(v.data(), bytes.data(), bytes.size());
    return v;
  }
};

struct Args {
  std::vector<Arg> list;
  template <class T>
  Args& array(const std::vector<T>& v, std::vector<int64_t> shape = {}, std::vector<int64_t> strides = {}) {
    Arg a;
    a.type = InterpretArgument::type_of<T>();
    a.array = true;
    a.bytes.resize(v.size() * sizeof(T));
    std::memcpy(a.bytes.data(), v.data(), a.bytes.size());
    a.shape = shape.empty() ? std::vector<int64_t>{static_cast<int64_t>(v.size())} : std::move(shape);
    a.strides = std::move(strides);
    list.push_back(std::move(a));
    return *this;
  }
  template <class T>
  Args& scalar(T v) {
    Arg a;
    a.type = InterpretArgument::type_of<T>();
    std::memcpy(&a.bits, &v, sizeof(T));
    list.push_back(std::move(a));
    return *this;
  }
};

inline std::vector<Arg> run_interpreter(const ir::Kernel& k, Dim3 grid, Dim3 block, std::vector<Arg> args,
                                        InterpretOptions options = {}) {
  std::vector<InterpretArgument> ia;
  for (Arg& a : args) {
    InterpretArgument x;
    x.type = a.type;
    if (a.array) {
      x.kind = InterpretArgument::Kind::array;
      x.data = a.bytes.data();
      x.size = static_cast<int64_t>(a.bytes.size() / ir::byte_size(a.type));
      x.shape = a.shape;
      x.strides = a.strides;
    } else {
      x.bits = a.bits;
    }
    ia.push_back(std::move(x));
  }
  interpret(k, grid, block, ia, options);
  return args;
}

// `dynamic_shared_bytes` is the trailing argument of kernels with shared::dynamic arrays.
inline std::vector<Arg> run_cpu(const ir::Kernel& k, Dim3 grid, Dim3 block, std::vector<Arg> args,
                                uint32_t dynamic_shared_bytes = 0, const CompileOptions& options = {}) {
  // run_host's arguments: per array its pointer, one i32 per extent and (strided) one i64 per stride.
  std::vector<void*> pointers;
  std::vector<int32_t> extents;
  std::vector<int64_t> strides;
  extents.reserve(64);
  strides.reserve(64);
  std::vector<void*> cells;
  cells.reserve(64);
  for (size_t i = 0; i < args.size(); ++i) {
    Arg& a = args[i];
    if (!a.array) {
      pointers.push_back(&a.bits);
      continue;
    }
    cells.push_back(a.bytes.data());
    pointers.push_back(&cells.back());
    for (int64_t e : a.shape) {
      extents.push_back(static_cast<int32_t>(e));
      pointers.push_back(&extents.back());
    }
    if (k.memories[k.params[i].memory].layout == ir::Layout::strided)
      for (int64_t s : a.strides) {
        strides.push_back(s);
        pointers.push_back(&strides.back());
      }
  }
  if (k.has_dynamic_shared()) pointers.push_back(&dynamic_shared_bytes);
  run_host(compile_host(k, options), grid, block, pointers.data());
  return args;
}

inline std::string show(ir::Type t, const std::byte* p) {
  auto get = [&](auto v) { std::memcpy(&v, p, sizeof(v)); return v; };
  if (t == ir::Type::f32) { float f = get(float{}); return fmt::format("{} ({:#010x})", f, std::bit_cast<uint32_t>(f)); }
  if (t == ir::Type::f64) { double d = get(double{}); return fmt::format("{} ({:#018x})", d, std::bit_cast<uint64_t>(d)); }
  std::string text = "?";
  if (t != ir::Type::i1) ir::with_cpp_type(t, [&](auto zero) { text = fmt::format("{}", get(zero)); });
  return text;
}

// Checks that two runs left every array bit-identical; names the first differing elements.
inline void require_same(const ir::Kernel& k, const std::vector<Arg>& interp, const std::vector<Arg>& cpu) {
  for (size_t i = 0; i < interp.size(); ++i) {
    if (!interp[i].array || interp[i].bytes == cpu[i].bytes) continue;
    size_t size = ir::byte_size(interp[i].type);
    std::string report;
    int shown = 0, count = 0;
    for (size_t e = 0; e * size < interp[i].bytes.size(); ++e) {
      if (std::memcmp(&interp[i].bytes[e * size], &cpu[i].bytes[e * size], size) == 0) continue;
      ++count;
      if (shown++ < 8)
        report += fmt::format("\n  element {}: interpreter {}, cpu {}", e, show(interp[i].type, &interp[i].bytes[e * size]),
                              show(interp[i].type, &cpu[i].bytes[e * size]));
    }
    FAIL(fmt::format("kernel '{}', argument {} ('{}'): {} elements differ{}", k.name, i, k.params[i].name, count, report));
  }
}

// Runs the kernel on the interpreter and on the CPU back end from the same inputs, requires
// bit-identical results and returns the interpreter's.
inline std::vector<Arg> run_both(const ir::Kernel& k, Dim3 grid, Dim3 block, const Args& args,
                                 uint32_t dynamic_shared_bytes = 0, const CompileOptions& compile_options = {}) {
  InterpretOptions options;
  options.dynamic_shared_bytes = dynamic_shared_bytes;
  std::vector<Arg> interp = run_interpreter(k, grid, block, args.list, options);
  std::vector<Arg> cpu = run_cpu(k, grid, block, args.list, dynamic_shared_bytes, compile_options);
  require_same(k, interp, cpu);
  SUCCEED("interpreter and cpu agree on kernel '" << k.name << "'");
  return interp;
}

}  // namespace rocjit::testing

// rocjit::kernel(): traces a C++ lambda once and keeps the resulting IR.
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <source_location>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "rocjit/compiler/compile.hpp"
#include "rocjit/compiler/ir.hpp"
#include "rocjit/compiler/target.hpp"
#include "rocjit/compiler/time_trace.hpp"
#include "rocjit/dsl/array.hpp"
#include "rocjit/dsl/value.hpp"

namespace rocjit {

struct LaunchConfig;
class Launcher;

/// Options of rocjit::kernel(): the maximum block size and parameter names.
struct KernelOptions {
  /// Largest work-group the kernel will be launched with (1..1024); becomes the AMDGPU
  /// "amdgpu-flat-work-group-size" upper bound and is checked at launch.
  uint32_t max_block_size = 1024;
  /// Parameter names for messages and printed IR; defaults are arg0, arg1, ...
  std::vector<std::string> param_names;
  /// Contraction and approximate functions for this kernel (README, "fast_math"); the same as
  /// CompileOptions::fast_math on every compile of it.
  bool fast_math = false;
  /// Contraction in the IR: every f32/f64 `a * b + c` whose product has no other use becomes
  /// fma(a, b, c) when the kernel is defined, so every device computes the same fused, once-rounded
  /// result (fast_math lets LLVM contract per target instead, so devices may differ). Off by
  /// default. (HIP's clang contracts by default: -ffp-contract=fast-honor-pragmas.)
  bool contract = false;
  /// Runtime specialisation (README, "Runtime specialisation"): the scalar parameters named here
  /// become constants of the launch's values; each distinct tuple of values is compiled (and
  /// cached) as its own version of the kernel.
  std::vector<std::string> specialize;
  /// Array parameters' extents become constants of the launch's shapes the same way (strides of
  /// strided views stay run-time values).
  bool specialize_shapes = false;
  /// Specialised versions kept per kernel; the least recently launched one is dropped first
  /// (and compiled again, or found in the kernel cache, when launched again). 1..4096.
  uint32_t max_specializations = 16;
};

class Kernel;
/// \cond INTERNAL
class Stream;
namespace dsl::detail {
struct Specializations;
Kernel finish(Trace& t, const KernelOptions& options);
}  // namespace dsl::detail
/// \endcond

/// A traced kernel: its name and IR. Cheap to copy (the IR is shared and immutable).
class Kernel {
 public:
  Kernel() = default;
  /// Wraps traced IR.
  explicit Kernel(std::shared_ptr<const ir::Kernel> ir) : ir_(std::move(ir)) {}
  /// An empty (default-constructed) Kernel throws rocjit::Error from every accessor.
  explicit operator bool() const { return ir_ != nullptr; }
  /// The kernel's name.
  const std::string& name() const { return ir().name; }
  /// The kernel's IR; throws CompileError if this Kernel is empty.
  const ir::Kernel& ir() const {
    if (!ir_) empty_kernel();
    return *ir_;
  }
  /// The shared IR (compile() caches by it).
  const std::shared_ptr<const ir::Kernel>& ir_ptr() const { return ir_; }
  /// The kernel's IR as .rjir text.
  std::string print(bool locations = true) const;
  /// The signature as users write it, e.g. "saxpy(f32 a, array<f32, 1> x, array<f32, 1> y)".
  std::string signature() const;

  /// What the JIT makes of this kernel, like Numba's inspect_llvm() / inspect_asm(): the same
  /// texts as ROCJIT_DUMP and rocjit-dump. `target` is a Target or its spelling: "gfx90a",
  /// "amdgpu:gfx1100:+wavefrontsize64", "host". At -O3 (AMDGPU code object v5). llvm_ir() and
  /// assembly() always compile afresh; metadata() for a GPU comes from the kernel cache when the
  /// kernel was compiled before. For the host nothing is added to the process's JIT.
  /// (The IR itself is ir(); print() or `std::cout << k.ir()` shows it as .rjir.)
  enum class LlvmStage { lowered, optimized };
  /// The LLVM IR for `target`, optimised or as lowered (compiles afresh).
  std::string llvm_ir(const Target& target, LlvmStage stage = LlvmStage::optimized) const;
  /// The assembly for `target` (compiles afresh).
  std::string assembly(const Target& target) const;
  /// Registers, spills, LDS, scratch, kernel arguments and occupancy (AMDGPU), or regions,
  /// per-work-item storage, shared bytes and argument order (host).
  std::string metadata(const Target& target) const;
  /// Numba-style launch: k[{grid, block}](args...) or k[{grid, block, stream}](args...).
  /// Defined in rocjit/runtime/launch.hpp (included by rocjit/rocjit.hpp).
  Launcher operator[](const LaunchConfig& config) const;
  /// A one-dimensional launch over `n` work-items, like Numba's kernel.forall(n):
  /// `k.forall(n)(args...)` runs global ids 0 .. at least n - 1 (the kernel guards `i < n`) in
  /// work-groups the runtime picks for the device (runtime::forall_config); forall(0) launches
  /// nothing. Defined in rocjit/runtime/launch.hpp.
  Launcher forall(int64_t n) const;
  /// forall(n) on `stream` (and its device).
  Launcher forall(int64_t n, const Stream& stream) const;

  /// Whether launches specialise this kernel (KernelOptions::specialize, specialize_shapes).
  bool specializes() const { return specializations_ != nullptr; }
  /// The version of this kernel for one launch: the specialised scalars' argument bits (by
  /// parameter index; other entries are ignored) and the array arguments' shapes (by parameter
  /// index) made constants. From a least-recently-used set of versions per kernel; the kernel's
  /// own IR when it does not specialise. Used by launch().
  std::shared_ptr<const ir::Kernel> specialized(const std::vector<uint64_t>& scalar_bits,
                                                const std::vector<std::vector<int64_t>>& shapes) const;
  /// How many specialised versions are held now (tests and bench-specialize).
  size_t specialization_count() const;

 private:
  friend Kernel dsl::detail::finish(dsl::detail::Trace& t, const KernelOptions& options);
  [[noreturn]] static void empty_kernel();
  std::shared_ptr<const ir::Kernel> ir_;
  std::shared_ptr<dsl::detail::Specializations> specializations_;
};

/// Compiles traced kernels for one target in parallel, e.g. to have every kernel of an application
/// in the cache before its first launches: compile_all() of rocjit/compiler/compile.hpp on their IR.
std::vector<CodeObject> compile_all(std::span<const Kernel> kernels, const Target& target,
                                    const CompileOptions& options = {}, unsigned threads = 0);

/// \cond INTERNAL
namespace dsl::detail {

template <class T>
struct lambda_traits : lambda_traits<decltype(&T::operator())> {};
template <class C, class R, class... A>
struct lambda_traits<R (C::*)(A...) const> {
  using args = std::tuple<std::decay_t<A>...>;
};
template <class C, class R, class... A>
struct lambda_traits<R (C::*)(A...)> {
  using args = std::tuple<std::decay_t<A>...>;
};

template <class P>
struct param_maker;  ///< specialised for Array<T, N, L> and Expr<T>

ArrayRef add_array_param(Trace& t, const std::string& name, ir::Type element, unsigned rank, ir::Layout layout);
Value add_scalar_param(Trace& t, const std::string& name, ir::Type type);

template <Scalar T, int N, ir::Layout L>
struct param_maker<Array<T, N, L>> {
  static Array<T, N, L> make(Trace& t, const std::string& name) {
    ArrayRef r = add_array_param(t, name, ir_type_v<T>, N, L);
    return Array<T, N, L>(r.memory(), r.element_type(), r.rank(), r.trace());
  }
};
template <Scalar T>
struct param_maker<Expr<T>> {
  static Expr<T> make(Trace& t, const std::string& name) { return Expr<T>(add_scalar_param(t, name, ir_type_v<T>)); }
};

std::string param_name(const KernelOptions& options, size_t index);
/// Verifies the finished trace and wraps it; errors name the kernel.
Kernel finish(Trace& t, const KernelOptions& options);
[[noreturn]] void rethrow_tracing_error(const std::string& name, const std::source_location& loc);

template <class F, size_t... I>
void invoke_traced(Trace& t, F& body, const KernelOptions& options, std::index_sequence<I...>) {
  using Args = typename lambda_traits<std::decay_t<F>>::args;
  // Parameters are created left to right so their order in the IR matches the lambda's.
  std::tuple<std::tuple_element_t<I, Args>...> params{
      param_maker<std::tuple_element_t<I, Args>>::make(t, param_name(options, I))...};
  std::apply(body, params);
}

}  // namespace dsl::detail
/// \endcond

/// Traces `body` once and returns the kernel. Lambda parameters must be rocjit::dsl::Array<T, N>
/// (global arrays) or scalar expressions (Float, Int, ...). Errors while tracing are rethrown as
/// rocjit::CompileError naming the kernel.
template <class F>
Kernel kernel(std::string name, F&& body, KernelOptions options = {},
              std::source_location loc = std::source_location::current()) {
  using Args = typename dsl::detail::lambda_traits<std::decay_t<F>>::args;
  dsl::detail::TraceScope scope(name, loc);
  time_trace::Record record(name, "dsl");
  try {
    time_trace::Phase phase("trace");
    dsl::detail::invoke_traced(scope.trace(), body, options, std::make_index_sequence<std::tuple_size_v<Args>>{});
  } catch (...) {
    dsl::detail::rethrow_tracing_error(name, loc);
  }
  return dsl::detail::finish(scope.trace(), options);
}

}  // namespace rocjit

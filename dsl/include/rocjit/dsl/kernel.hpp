// dsl::trace_kernel(): traces a C++ lambda once and keeps the resulting IR (TracedKernel). The
// DSL records kernels and does not run or compile them: rocjit::kernel() and rocjit::Kernel,
// which launch and inspect them, are the runtime's (rocjit/runtime/kernel.hpp).
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

#include "rocjit/compiler/ir.hpp"
#include "rocjit/compiler/time_trace.hpp"
#include "rocjit/dsl/array.hpp"
#include "rocjit/dsl/value.hpp"

namespace rocjit {

/// Options of rocjit::kernel() (and dsl::trace_kernel()): the maximum block size and parameter names.
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

class TracedKernel;
/// \cond INTERNAL
namespace dsl::detail {
struct Specializations;
TracedKernel finish(Trace& t, const KernelOptions& options);
}  // namespace dsl::detail
/// \endcond

/// A traced kernel: its name, its IR and its specialised versions. Cheap to copy (the IR is shared
/// and immutable). What the DSL makes; rocjit::Kernel (rocjit/runtime/kernel.hpp) is one that can
/// also be launched and inspected.
class TracedKernel {
 public:
  TracedKernel() = default;
  /// Wraps traced IR.
  explicit TracedKernel(std::shared_ptr<const ir::Kernel> ir) : ir_(std::move(ir)) {}
  /// Whether this holds a kernel: an empty (default-constructed) one throws rocjit::Error from
  /// every accessor.
  explicit operator bool() const { return ir_ != nullptr; }
  /// The kernel's name.
  const std::string& name() const { return ir().name; }
  /// The kernel's IR; throws rocjit::Error if this kernel is empty.
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
  friend TracedKernel dsl::detail::finish(dsl::detail::Trace& t, const KernelOptions& options);
  [[noreturn]] static void empty_kernel();
  std::shared_ptr<const ir::Kernel> ir_;
  std::shared_ptr<dsl::detail::Specializations> specializations_;
};

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
TracedKernel finish(Trace& t, const KernelOptions& options);
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

namespace dsl {

/// Traces `body` once and returns the traced kernel. Lambda parameters must be
/// rocjit::dsl::Array<T, N> (global arrays) or scalar expressions (Float, Int, ...). Errors while
/// tracing are rethrown as rocjit::CompileError naming the kernel. Programs call rocjit::kernel(),
/// which returns the same kernel as a launchable rocjit::Kernel.
template <class F>
TracedKernel trace_kernel(std::string name, F&& body, KernelOptions options = {},
                          std::source_location loc = std::source_location::current()) {
  using Args = typename detail::lambda_traits<std::decay_t<F>>::args;
  detail::TraceScope scope(name, loc);
  time_trace::Record record(name, "dsl");
  try {
    time_trace::Phase phase("trace");
    detail::invoke_traced(scope.trace(), body, options, std::make_index_sequence<std::tuple_size_v<Args>>{});
  } catch (...) {
    detail::rethrow_tracing_error(name, loc);
  }
  return detail::finish(scope.trace(), options);
}

}  // namespace dsl
}  // namespace rocjit

// vectorize() and guvectorize(): Numba's ufunc and gufunc builders over device arrays
// (docs/vectorize.md).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <source_location>
#include <span>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "rocjit/compiler/error.hpp"
#include "rocjit/dsl/array.hpp"
#include "rocjit/runtime/kernel.hpp"
#include "rocjit/dsl/promotion.hpp"
#include "rocjit/dsl/value.hpp"
#include "rocjit/runtime/array.hpp"
#include "rocjit/runtime/launch.hpp"
#include "rocjit/runtime/stream.hpp"

namespace rocjit {

namespace dsl {

/// \cond INTERNAL
namespace detail {
/// The element of `array` at the loop indices `loop` followed by the core indices `core` (checked
/// against `core_rank`); a view with no dimensions at all is its one element.
ElementRef core_element(const ArrayRef& array, const std::vector<Value>& loop, unsigned core_rank,
                        std::initializer_list<const Operand*> core, const std::source_location& loc);
/// Extent `d` of the core dimensions of `array` (after `loop_rank` loop dimensions).
Int core_shape(const ArrayRef& array, unsigned loop_rank, unsigned core_rank, int d, const std::source_location& loc);
/// Reads a core array without core dimensions as a value (an error for one with core dimensions).
Value core_load(const ArrayRef& array, const std::vector<Value>& loop, unsigned core_rank,
                const std::source_location& loc);
}  // namespace detail
/// \endcond

/// What a guvectorize lambda receives for an array argument: the argument's core dimensions at the
/// work-item's loop index, e.g. the (n) row of a "(n),(n)->()" input. Index it with one index per
/// core dimension, `a(k)` or `m(i, j)`; `shape(d)` is core dimension d's extent. An argument
/// with no core dimensions, "()", is its one element: `x()` reads or writes it (`out() = acc;`),
/// and it can be used directly as a value (`x * 2`).
template <Scalar T>
class CoreArray {
 public:
  /// The C++ element type.
  using element_type = T;
  /// The view of `array` at loop indices `loop` with `core_rank` core dimensions after them.
  CoreArray(ArrayRef array, std::vector<Value> loop, unsigned core_rank)
      : array_(array), loop_(std::move(loop)), core_rank_(core_rank) {}

  /// The element of an argument without core dimensions: "()".
  ElementRef operator()(std::source_location loc = std::source_location::current()) const {
    return detail::core_element(array_, loop_, core_rank_, {}, loc);
  }
  /// The element at core index i (one core dimension).
  ElementRef operator()(const Operand& i) const {
    return detail::core_element(array_, loop_, core_rank_, {&i}, i.loc());
  }
  /// The element at core index (i, j) (two core dimensions).
  ElementRef operator()(const Operand& i, const Operand& j) const {
    return detail::core_element(array_, loop_, core_rank_, {&i, &j}, i.loc());
  }
  /// The element at core index (i, j, k) (three core dimensions).
  ElementRef operator()(const Operand& i, const Operand& j, const Operand& k) const {
    return detail::core_element(array_, loop_, core_rank_, {&i, &j, &k}, i.loc());
  }
  /// The element at core index i (one core dimension), as Numba's `a[i]`.
  ElementRef operator[](const Operand& i) const { return (*this)(i); }
  /// Extent of core dimension `d` (i32): for "(m,n)", shape(0) is m and shape(1) is n.
  Int shape(int d, std::source_location loc = std::source_location::current()) const {
    return detail::core_shape(array_, static_cast<unsigned>(loop_.size()), core_rank_, d, loc);
  }
  /// Number of core dimensions.
  unsigned core_rank() const { return core_rank_; }
  /// Reads the element of an argument without core dimensions, so that it can be used as a value.
  Value load(const std::source_location& loc) const { return detail::core_load(array_, loop_, core_rank_, loc); }

 private:
  ArrayRef array_;
  std::vector<Value> loop_;
  unsigned core_rank_;
};

}  // namespace dsl

namespace runtime {

/// A gufunc signature such as "(m,n),(n,p)->(m,p)": the names of each input's and each output's
/// core dimensions ("()": none).
struct GufuncSignature {
  /// The signature as written.
  std::string text;
  /// Core dimension names per input.
  std::vector<std::vector<std::string>> inputs;
  /// Core dimension names per output.
  std::vector<std::vector<std::string>> outputs;
};

/// Parses a gufunc signature for guvectorize `name` (defined at `loc`). A malformed signature, a
/// core rank above 3, or a number of outputs other than one is an Error naming the builder, the
/// signature, the position in it and `loc`.
GufuncSignature parse_gufunc_signature(const std::string& text, const std::string& name,
                                       const std::source_location& loc);

/// Who is calling, for messages: the builder ("vectorize" or "guvectorize"), its name and the
/// caller's file:line.
struct UfuncCallSite {
  /// "vectorize" or "guvectorize".
  const char* builder;
  /// The builder's name.
  const std::string& name;
  /// The call's location.
  std::source_location loc;
};

/// How one call of a ufunc or gufunc becomes one launch.
struct UfuncPlan {
  /// The loop shape: the inputs' loop dimensions broadcast together.
  Shape loop;
  /// The output's shape: loop shape followed by its core shape ({1} when both are empty).
  Shape output;
  /// The output's core extents.
  Shape output_core;
  /// Core dimensions per input (0 for scalars and vectorize's arguments).
  std::vector<unsigned> input_cores;
  /// Loop dimensions of the kernel's arrays: 1 on the contiguous path, else the loop shape's rank
  /// (so a kernel unravels only the dimensions there are).
  unsigned kernel_loop_rank = 0;
  /// Work-items: the loop shape's element count.
  int64_t count = 0;
  /// Whether the call takes the contiguous path: every array C-contiguous with the output's shape
  /// (and the output too), so the kernel indexes raveled arrays with the work-item's id.
  bool contiguous = false;
};

/// Checks a call's arguments against `signature` (array inputs, nullptr for scalar inputs; `out`,
/// nullptr when the call allocates it) and plans the launch: the loop shape by NumPy's
/// broadcasting, the core dimensions' sizes, the output's shape. `allow_contiguous`: whether the
/// contiguous path may be taken. Mismatches are LaunchErrors naming the builder, the argument,
/// the shapes and the caller's file:line.
UfuncPlan plan_ufunc(const UfuncCallSite& site, const GufuncSignature& signature,
                     std::span<const DeviceArrayBase* const> inputs, const DeviceArrayBase* out,
                     bool allow_contiguous);

/// The view the kernel takes of `a` (an input with `core_rank` core dimensions, or the output):
/// on the contiguous path `a` raveled; otherwise of rank kernel_loop_rank + core_rank (at least
/// 1), its loop dimensions aligned at the right with the loop shape, the missing and broadcast
/// ones given the loop's extent and stride 0.
DeviceArrayBase ufunc_view(const DeviceArrayBase& a, const UfuncPlan& plan, unsigned core_rank);

/// The stream a call runs on: `given`, else the default stream of the first array's device (the
/// inputs', then `out`'s), else of the default device.
Stream ufunc_stream(const Stream& given, std::span<const DeviceArrayBase* const> inputs, const DeviceArrayBase* out);

/// One input of a ufunc kernel: its element type and whether it is an array (else a scalar).
struct UfuncInputType {
  /// Element (or scalar) type.
  ir::Type type;
  /// Whether it is an array.
  bool array;
};

/// The key of a kernel in a builder's cache (also the end of its name): the inputs' types, the
/// output's type, the path and the loop rank, e.g. "f32-f64scalar.f32.contiguous".
std::string ufunc_kernel_key(std::span<const UfuncInputType> inputs, ir::Type output, const UfuncPlan& plan);

/// A kernel parameter of one ufunc input inside the trace: an array, or a scalar's value.
struct UfuncParam {
  /// The array parameter (arrays).
  dsl::ArrayRef array;
  /// The scalar parameter (scalars).
  dsl::Value scalar;
};

/// Records a ufunc kernel's frame in the open trace: the parameters (out, n, the inputs), the
/// guard `global_id(0) < n`, and the loop index of the work-item unravelled from the output's
/// extents; inside the guard calls `body(out, loop, inputs)`. The ops are recorded at `loc` (the
/// builder's definition).
void trace_ufunc_frame(const UfuncPlan& plan, ir::Type output, std::span<const UfuncInputType> inputs,
                       const std::source_location& loc,
                       const std::function<void(const dsl::ArrayRef&, const std::vector<dsl::Value>&,
                                                const std::vector<UfuncParam>&)>& body);

/// Checks the value the lambda of vectorize `name` (defined at `defined_at`) returned for
/// `argument_types` against its result type: converted when the type was named or the lambda's own; when it was
/// deduced from an untyped Value (`deduced`), a different type is a trace error naming the fix.
dsl::Value ufunc_result(const dsl::Value& v, ir::Type result, bool deduced, const std::string& name,
                        const std::string& argument_types, const std::source_location& defined_at);

}  // namespace runtime

/// \cond INTERNAL
namespace detail {

// What a ufunc argument of C++ type A is: a DeviceArray<T> (or a class derived from it) of
// elements T, or a scalar (arithmetic types by their row of the type table; half and bfloat16).
template <class A>
struct UfuncArgument {
  static constexpr bool valid = false;
  static constexpr bool array = false;
  using element = float;
};
// DeviceArray<T> and the arrays derived from it.
template <class A>
  requires std::is_base_of_v<DeviceArrayBase, A> && requires { typename A::element_type; }
struct UfuncArgument<A> {
  static constexpr bool valid = true;
  static constexpr bool array = true;
  using element = typename A::element_type;
};
template <class A>
  requires std::is_arithmetic_v<A> && (!std::is_same_v<A, long double>)
struct UfuncArgument<A> {
  static constexpr bool valid = true;
  static constexpr bool array = false;
  using element = ir::arithmetic_row_t<A>;
};
template <class A>
  requires std::is_same_v<A, half> || std::is_same_v<A, bfloat16>
struct UfuncArgument<A> {
  static constexpr bool valid = true;
  static constexpr bool array = false;
  using element = A;
};

template <class A>
const DeviceArrayBase* ufunc_array(const A& a) {
  if constexpr (UfuncArgument<A>::array) return &a;
  else return nullptr;
}

// The result type of a vectorize lambda for element types E...: R when named; else the T of a
// returned Expr<T>, the table's type of a returned C++ scalar, or, for an untyped Value (what the
// DSL's operators return), the type the DSL's promotion gives E... together.
template <class F, class R, class... E>
struct UfuncResult {
  using returned = std::decay_t<std::invoke_result_t<const F&, dsl::Expr<E>...>>;
  static constexpr bool deduced_from_value = std::is_void_v<R> && std::is_same_v<returned, dsl::Value>;
  static auto pick() {
    if constexpr (!std::is_void_v<R>) return std::type_identity<R>{};
    else if constexpr (std::is_same_v<returned, dsl::Value>) return std::type_identity<dsl::promoted_t<E...>>{};
    else if constexpr (std::is_base_of_v<dsl::Value, returned>) return std::type_identity<typename returned::type>{};
    else if constexpr (std::is_arithmetic_v<returned>) return std::type_identity<ir::arithmetic_row_t<returned>>{};
    else if constexpr (std::is_same_v<returned, half> || std::is_same_v<returned, bfloat16>)
      return std::type_identity<returned>{};
    else return std::type_identity<void>{};
  }
  using type = typename decltype(pick())::type;
};

// The type names of a call's inputs, for messages: "(float, double)".
template <class... A>
std::string ufunc_argument_types() {
  std::string s = "(";
  bool first = true;
  for (ir::Type t : {dsl::ir_type_v<typename UfuncArgument<A>::element>...}) {
    if (!first) s += ", ";
    s += ir::cpp_type_name(t);
    first = false;
  }
  return s + ")";
}

// The kernels a builder has made, one per key, shared by its copies; thread-safe.
class UfuncKernels {
 public:
  template <class Make>
  Kernel get(const std::string& key, Make&& make) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = kernels_.find(key);
    if (it != kernels_.end()) return it->second;
    Kernel k = make();
    kernels_.emplace(key, k);
    return k;
  }
  size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return kernels_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Kernel> kernels_;
};

// What a builder and all its copies share: the name, the lambda, the options and the kernels.
template <class F>
struct UfuncState {
  UfuncState(std::string n, F f, KernelOptions o, std::source_location at, runtime::GufuncSignature s)
      : name(std::move(n)), body(std::move(f)), options(std::move(o)), defined_at(at), signature(std::move(s)) {}
  std::string name;
  F body;
  KernelOptions options;
  std::source_location defined_at;
  runtime::GufuncSignature signature;  // guvectorize only
  UfuncKernels kernels;
};

// The output a call writes: a given DeviceArray<O>, or none (O = void: allocated by the call).
template <class O>
using UfuncOut =
    std::conditional_t<std::is_void_v<O>, std::monostate, DeviceArray<std::conditional_t<std::is_void_v<O>, float, O>>>;

/// What Ufunc and Gufunc share: the state, the stream and the given output, on() and out(), and
/// the call operators f(a, b, ...) with up to eight arguments, each overload taking the caller's
/// location last (a defaulted parameter cannot follow a pack); they call Builder::call.
template <template <class, class, class> class Builder, class F, class R, class O>
class UfuncBuilder {
  using Loc = std::source_location;
  using Derived = Builder<F, R, O>;
  const Derived& self() const { return static_cast<const Derived&>(*this); }

 public:
  /// A builder over the shared state, on `stream` (empty: the arguments' device's default
  /// stream), writing into `out` when O is not void.
  UfuncBuilder(std::shared_ptr<UfuncState<F>> state, Stream stream, UfuncOut<O> out)
      : state_(std::move(state)), stream_(std::move(stream)), out_(std::move(out)) {}

  /// The same builder launching on `stream` (and allocating its output on the stream's device).
  Derived on(const Stream& stream) const { return Derived(state_, stream, out_); }
  /// The same builder writing into `out` instead of allocating its output: `add.out(r)(a, b)`.
  /// The call returns `out`.
  template <class T>
  Builder<F, R, T> out(const DeviceArray<T>& out) const {
    return Builder<F, R, T>(state_, stream_, out);
  }
  /// The builder's name (its kernels are named after it).
  const std::string& name() const { return state_->name; }
  /// How many kernels it has made so far: one per combination of argument types (and path).
  size_t kernel_count() const { return state_->kernels.size(); }

  /// Runs the builder on the arguments (the operator() overloads for 1 to 8 arguments).
  ///@{
  template <class A1>
  auto operator()(const A1& a1, Loc loc = Loc::current()) const {
    return self().call(loc, a1);
  }
  template <class A1, class A2>
  auto operator()(const A1& a1, const A2& a2, Loc loc = Loc::current()) const {
    return self().call(loc, a1, a2);
  }
  template <class A1, class A2, class A3>
  auto operator()(const A1& a1, const A2& a2, const A3& a3, Loc loc = Loc::current()) const {
    return self().call(loc, a1, a2, a3);
  }
  template <class A1, class A2, class A3, class A4>
  auto operator()(const A1& a1, const A2& a2, const A3& a3, const A4& a4, Loc loc = Loc::current()) const {
    return self().call(loc, a1, a2, a3, a4);
  }
  template <class A1, class A2, class A3, class A4, class A5>
  auto operator()(const A1& a1, const A2& a2, const A3& a3, const A4& a4, const A5& a5,
                  Loc loc = Loc::current()) const {
    return self().call(loc, a1, a2, a3, a4, a5);
  }
  template <class A1, class A2, class A3, class A4, class A5, class A6>
  auto operator()(const A1& a1, const A2& a2, const A3& a3, const A4& a4, const A5& a5, const A6& a6,
                  Loc loc = Loc::current()) const {
    return self().call(loc, a1, a2, a3, a4, a5, a6);
  }
  template <class A1, class A2, class A3, class A4, class A5, class A6, class A7>
  auto operator()(const A1& a1, const A2& a2, const A3& a3, const A4& a4, const A5& a5, const A6& a6,
                  const A7& a7, Loc loc = Loc::current()) const {
    return self().call(loc, a1, a2, a3, a4, a5, a6, a7);
  }
  template <class A1, class A2, class A3, class A4, class A5, class A6, class A7, class A8>
  auto operator()(const A1& a1, const A2& a2, const A3& a3, const A4& a4, const A5& a5, const A6& a6,
                  const A7& a7, const A8& a8, Loc loc = Loc::current()) const {
    return self().call(loc, a1, a2, a3, a4, a5, a6, a7, a8);
  }
  ///@}

 protected:
  /// What the builder's copies share.
  std::shared_ptr<UfuncState<F>> state_;
  /// The stream given with on(), or none.
  Stream stream_;
  /// The output given with out(), or std::monostate.
  UfuncOut<O> out_;
};

// Plans a call, picks (or traces) its kernel and launches it; returns the output. `invoke(out,
// loop, params)` records the body for one work-item inside the kernel's frame.
template <class Out, class O, class F, class... A, class Invoke>
DeviceArray<Out> run_ufunc(UfuncState<F>& state, const char* builder, const runtime::GufuncSignature& signature,
                           bool allow_contiguous, const Stream& given_stream, const UfuncOut<O>& given_out,
                           const std::source_location& loc, Invoke&& invoke, const A&... args) {
  const DeviceArrayBase* inputs[] = {ufunc_array(args)...};
  const DeviceArrayBase* out_given = nullptr;
  if constexpr (!std::is_void_v<O>) out_given = &given_out;
  const runtime::UfuncCallSite site{builder, state.name, loc};
  const runtime::UfuncPlan plan = runtime::plan_ufunc(site, signature, inputs, out_given, allow_contiguous);
  const Stream stream = runtime::ufunc_stream(given_stream, inputs, out_given);
  DeviceArray<Out> out;
  if constexpr (std::is_void_v<O>) out = device_array<Out>(plan.output, Order::C, stream.device());
  else out = given_out;

  const runtime::UfuncInputType types[] = {
      {dsl::ir_type_v<typename UfuncArgument<A>::element>, UfuncArgument<A>::array}...};
  const ir::Type out_type = dsl::ir_type_v<Out>;
  const std::string key = runtime::ufunc_kernel_key(types, out_type, plan);
  Kernel kernel = state.kernels.get(key, [&] {
    return rocjit::kernel(
        state.name + "." + key,
        [&] {
          runtime::trace_ufunc_frame(plan, out_type, types, state.defined_at,
                                     [&](const dsl::ArrayRef& o, const std::vector<dsl::Value>& loop,
                                         const std::vector<runtime::UfuncParam>& params) { invoke(o, loop, params); });
        },
        state.options, state.defined_at);
  });
  if (plan.count == 0) return out;

  // The launch: the output's view, the count, then each input's view or value.
  const LaunchConfig config = runtime::forall_config(kernel, plan.count, stream);
  std::vector<DeviceArrayBase> views;
  views.reserve(1 + sizeof...(A));
  std::vector<runtime::LaunchArgument> launch_args;
  views.push_back(runtime::ufunc_view(out, plan, static_cast<unsigned>(plan.output_core.size())));
  launch_args.push_back(runtime::make_argument(views.back()));
  const int32_t count = static_cast<int32_t>(plan.count);
  launch_args.push_back(runtime::make_argument(count));
  size_t index = 0;
  auto push = [&](const auto& a) {
    using Arg = std::decay_t<decltype(a)>;
    if constexpr (UfuncArgument<Arg>::array) {
      views.push_back(runtime::ufunc_view(a, plan, plan.input_cores[index]));
      launch_args.push_back(runtime::make_argument(views.back()));
    } else {
      launch_args.push_back(runtime::make_argument(a));
    }
    ++index;
  };
  (push(args), ...);
  runtime::launch(kernel, config, launch_args);
  return out;
}

// The value the lambda sees for input I: vectorize passes every input as an Expr<T> (an array's
// element at the loop index), guvectorize passes arrays as CoreArray<T>.
template <class A>
auto ufunc_input(const runtime::UfuncParam& p, const std::vector<dsl::Value>& loop, const std::source_location& loc) {
  using T = typename UfuncArgument<A>::element;
  if constexpr (UfuncArgument<A>::array) return dsl::Expr<T>(dsl::detail::core_load(p.array, loop, 0, loc), loc);
  else return dsl::Expr<T>(p.scalar, loc);
}
template <class A>
auto gufunc_input(const runtime::UfuncParam& p, const std::vector<dsl::Value>& loop, unsigned core_rank) {
  using T = typename UfuncArgument<A>::element;
  if constexpr (UfuncArgument<A>::array) return dsl::CoreArray<T>(p.array, loop, core_rank);
  else return dsl::Expr<T>(p.scalar);
}
template <class A>
using gufunc_input_t = decltype(gufunc_input<A>(std::declval<const runtime::UfuncParam&>(),
                                                std::declval<const std::vector<dsl::Value>&>(), 0u));

}  // namespace detail
/// \endcond

/// A ufunc: an elementwise kernel builder made by vectorize(). Call it with device arrays and
/// scalars; copies share the compiled kernels. `R`: the result type when named, else void
/// (deduced per call); `O`: the element type of the output given with out(), else void.
/// With out(r), `r` must have the arguments' broadcast shape; the result is converted to its
/// element type (as cast<T>).
template <class F, class R = void, class O = void>
class Ufunc : public detail::UfuncBuilder<Ufunc, F, R, O> {
  using Base = detail::UfuncBuilder<Ufunc, F, R, O>;

 public:
  using Base::Base;

  /// Runs the ufunc on `args` (DeviceArray<T> of rank 1 to 3, views included, and scalars),
  /// called at `loc`: the operator() overloads come here. Returns the result array.
  template <class... A>
  auto call(const std::source_location& loc, const A&... args) const {
    static_assert((detail::UfuncArgument<A>::valid && ...),
                  "vectorize arguments are DeviceArray<T>, arithmetic scalars, half or bfloat16");
    static_assert(std::is_invocable_v<const F&, dsl::Expr<typename detail::UfuncArgument<A>::element>...>,
                  "the vectorize lambda cannot be called with this many arguments (or these types)");
    using Traits = detail::UfuncResult<F, R, typename detail::UfuncArgument<A>::element...>;
    using Result = typename Traits::type;
    static_assert(!std::is_void_v<Result>,
                  "a vectorize lambda returns a DSL value (Value or Expr<T>) or a C++ scalar");
    static_assert(!std::is_same_v<Result, bool>,
                  "a vectorize lambda's result is stored in an array, and arrays cannot hold bool: return "
                  "Int(cast<int32_t>(...)) or name the result type, vectorize<int32_t>(...)");
    using Out = std::conditional_t<std::is_void_v<O>, Result, O>;
    const runtime::GufuncSignature signature{"", std::vector<std::vector<std::string>>(sizeof...(A)),
                                             std::vector<std::vector<std::string>>(1)};
    const std::string types = detail::ufunc_argument_types<A...>();
    const F& body = this->state_->body;
    const std::source_location defined_at = this->state_->defined_at;
    auto invoke = [&](const dsl::ArrayRef& o, const std::vector<dsl::Value>& loop,
                      const std::vector<runtime::UfuncParam>& params) {
      [&]<size_t... I>(std::index_sequence<I...>) {
        // The inputs are read in order (a braced list is evaluated left to right; arguments are not).
        const std::tuple<decltype(detail::ufunc_input<A>(params[I], loop, defined_at))...> inputs{
            detail::ufunc_input<A>(params[I], loop, defined_at)...};
        const dsl::Operand r(std::apply(body, inputs), defined_at);
        dsl::Value v = r.is_literal() ? dsl::detail::cast(dsl::ir_type_v<Result>, r) : r.value();
        v = runtime::ufunc_result(v, dsl::ir_type_v<Result>, Traits::deduced_from_value, this->state_->name, types,
                                  defined_at);
        dsl::detail::core_element(o, loop, 0, {}, defined_at) = dsl::Operand(dsl::cast<Out>(v), defined_at);
      }(std::index_sequence_for<A...>{});
    };
    return detail::run_ufunc<Out, O>(*this->state_, "vectorize", signature, true, this->stream_, this->out_, loc,
                                     invoke, args...);
  }
};

/// Numba's vectorize decorator: makes an elementwise kernel builder (a ufunc) from a scalar lambda generic
/// over its arguments' types, e.g. `auto add = vectorize("add", [](auto x, auto y) { return x + y; });`.
/// Calling it, `add(a, b)`, runs the lambda once per element of the arguments' broadcast shape
/// (NumPy's rules) on device arrays of rank 1 to 3 (views included) and scalars, and returns a new
/// DeviceArray with the result; `add.out(r)(a, b)` writes into `r`, `add.on(stream)(a, b)` runs on
/// a stream. The lambda receives Expr<T> values; its result type is deduced per argument types
/// (`R` names it instead). One kernel is traced per combination of argument types and path
/// (contiguous or strided), cached in the ufunc. Errors name `name`, the argument and the caller's
/// file:line. Details: docs/vectorize.md.
template <class R = void, class F>
Ufunc<std::decay_t<F>, R> vectorize(std::string name, F&& body, KernelOptions options = {},
                                    std::source_location loc = std::source_location::current()) {
  auto state = std::make_shared<detail::UfuncState<std::decay_t<F>>>(std::move(name), std::forward<F>(body),
                                                                     std::move(options), loc,
                                                                     runtime::GufuncSignature{});
  return Ufunc<std::decay_t<F>, R>(std::move(state), Stream(), std::monostate{});
}

/// A gufunc: a kernel builder over core dimensions made by guvectorize(). Copies share the
/// compiled kernels. `R`: the output's element type when named, else void (the promoted type of
/// the inputs' types); `O`: the element type of the output given with out(), else void.
/// With out(r), `r` must have the loop shape followed by the output's core shape.
template <class F, class R = void, class O = void>
class Gufunc : public detail::UfuncBuilder<Gufunc, F, R, O> {
  using Base = detail::UfuncBuilder<Gufunc, F, R, O>;

 public:
  using Base::Base;
  /// The parsed signature.
  const runtime::GufuncSignature& signature() const { return this->state_->signature; }

  /// Runs the gufunc on the inputs `args`, called at `loc`: the operator() overloads come here.
  template <class... A>
  auto call(const std::source_location& loc, const A&... args) const {
    static_assert((detail::UfuncArgument<A>::valid && ...),
                  "guvectorize arguments are DeviceArray<T>, arithmetic scalars, half or bfloat16");
    using Result =
        std::conditional_t<std::is_void_v<R>, dsl::promoted_t<typename detail::UfuncArgument<A>::element...>, R>;
    using Out = std::conditional_t<std::is_void_v<O>, Result, O>;
    static_assert(!std::is_same_v<Out, bool>,
                  "arrays cannot hold bool: name the output type, guvectorize<int32_t>(...)");
    const F& body = this->state_->body;
    const runtime::GufuncSignature& signature = this->state_->signature;
    auto invoke = [&](const dsl::ArrayRef& o, const std::vector<dsl::Value>& loop,
                      const std::vector<runtime::UfuncParam>& params) {
      // The signature's arity was checked by plan_ufunc; a lambda that takes another is refused here,
      // at run time like that check (a static_assert would also reject calls the signature refuses).
      if constexpr (std::is_invocable_v<const F&, detail::gufunc_input_t<A>..., dsl::CoreArray<Out>>) {
        [&]<size_t... I>(std::index_sequence<I...>) {
          body(detail::gufunc_input<A>(params[I], loop, static_cast<unsigned>(signature.inputs[I].size()))...,
               dsl::CoreArray<Out>(o, loop, static_cast<unsigned>(signature.outputs[0].size())));
        }(std::index_sequence_for<A...>{});
      } else {
        throw CompileError("guvectorize '" + this->state_->name + "': the lambda cannot be called with " +
                           std::to_string(sizeof...(A)) + " input" + (sizeof...(A) == 1 ? "" : "s") +
                           " and the output: it takes one parameter per input of the signature \"" + signature.text +
                           "\" and one for the output (a CoreArray<T> per array input, an Expr<T> per scalar)");
      }
    };
    return detail::run_ufunc<Out, O>(*this->state_, "guvectorize", signature, false, this->stream_, this->out_, loc,
                                     invoke, args...);
  }
};

/// Numba's guvectorize decorator: makes a kernel builder over core dimensions (a gufunc) from a lambda and a
/// signature such as "(m,n),(n,p)->(m,p)", e.g.
/// `auto dot = guvectorize("(n),(n)->()", "dot", [](auto a, auto b, auto out) { ... out() = acc; });`.
/// One work-item runs the lambda per element of the inputs' loop dimensions (the dimensions before
/// the core ones, broadcast as in NumPy); the lambda gets a CoreArray<T> per array input (an
/// Expr<T> per scalar input, for "()"), and a CoreArray for the output, which it writes. The call
/// returns the output, allocated with the loop shape followed by the core sizes of the inputs'
/// dimensions of the same names, or writes into `g.out(r)`. The output's element type is `R`, or
/// the inputs' promoted type. Loop plus core dimensions are at most 3 per argument. Details:
/// docs/vectorize.md.
template <class R = void, class F>
Gufunc<std::decay_t<F>, R> guvectorize(const std::string& signature, std::string name, F&& body,
                                       KernelOptions options = {},
                                       std::source_location loc = std::source_location::current()) {
  runtime::GufuncSignature parsed = runtime::parse_gufunc_signature(signature, name, loc);
  auto state = std::make_shared<detail::UfuncState<std::decay_t<F>>>(std::move(name), std::forward<F>(body),
                                                                     std::move(options), loc, std::move(parsed));
  return Gufunc<std::decay_t<F>, R>(std::move(state), Stream(), std::monostate{});
}

}  // namespace rocjit

// Kernel-side arrays: kernel parameters (Array<T, N>), shared::array and local::array, and the
// element references that indexing returns.
#pragma once

#include <initializer_list>
#include <source_location>
#include <string>
#include <vector>

#include "rocjit/dsl/value.hpp"
#include "rocjit/dsl/vector.hpp"

namespace rocjit::dsl {

class ArrayRef;
namespace detail {
/// Records a vector load of `lanes` elements of `lane_type` at `indices` of `a` (the last one a
/// vector index), and the extraction of its lanes.
std::vector<Value> vload(const ArrayRef& a, ir::Type lane_type, unsigned lanes, std::span<const Operand* const> indices);
/// Records a vector store of `lanes` at `indices` of `a` (the last one a vector index).
void vstore(const ArrayRef& a, std::span<const Operand* const> indices, std::span<const Value> lanes);
}  // namespace detail

/// One element of an array: reading it records a load, assigning it records a store.
class ElementRef {
 public:
  /// A reference to one element, made by indexing an array.
  ElementRef(ir::MemoryId memory, ir::Type element, std::vector<ir::ValueId> indices, uint64_t trace,
             std::source_location loc)
      : memory_(memory), element_(element), indices_(std::move(indices)), trace_(trace), loc_(loc) {}

  /// Records a load of the element. `Value v = x(i);` calls it through Value's constructor for
  /// Loadable types, at the caller's line.
  Value load(const std::source_location& loc) const;
  /// Records a store of `v` to the element.
  void store(const Operand& v) const;

  /// Records a store of `v` to the element.
  const ElementRef& operator=(const Operand& v) const {
    store(v);
    return *this;
  }
  /// a(i) = b(i): the load is recorded where b(i) was indexed, the store where a(i) was (the
  /// caller's lines: a copy assignment cannot take a defaulted location parameter).
  const ElementRef& operator=(const ElementRef& other) const {
    store(Operand(other.load(other.loc_), loc_));
    return *this;
  }
  /// Records element += v.
  const ElementRef& operator+=(const Operand& v) const { return update(ir::BinaryOp::add, v); }
  /// Records element -= v.
  const ElementRef& operator-=(const Operand& v) const { return update(ir::BinaryOp::sub, v); }
  /// Records element *= v.
  const ElementRef& operator*=(const Operand& v) const { return update(ir::BinaryOp::mul, v); }
  /// Records element /= v.
  const ElementRef& operator/=(const Operand& v) const { return update(ir::BinaryOp::div, v); }
  /// Records element %= v.
  const ElementRef& operator%=(const Operand& v) const { return update(ir::BinaryOp::rem, v); }
  /// Records element &= v.
  const ElementRef& operator&=(const Operand& v) const { return update(ir::BinaryOp::and_, v); }
  /// Records element |= v.
  const ElementRef& operator|=(const Operand& v) const { return update(ir::BinaryOp::or_, v); }
  /// Records element ^= v.
  const ElementRef& operator^=(const Operand& v) const { return update(ir::BinaryOp::xor_, v); }

  /// The array it indexes.
  ir::MemoryId memory() const { return memory_; }
  /// Index values, one per dimension.
  const std::vector<ir::ValueId>& indices() const { return indices_; }

 private:
  const ElementRef& update(ir::BinaryOp op, const Operand& v) const;
  ir::MemoryId memory_;
  ir::Type element_;
  std::vector<ir::ValueId> indices_;
  uint64_t trace_;
  std::source_location loc_;
};

/// A handle on a memory object of the trace: parameter, shared or local array.
class ArrayRef {
 public:
  ArrayRef() = default;
  /// An array of the kernel being traced.
  ArrayRef(ir::MemoryId memory, ir::Type element, unsigned rank, uint64_t trace)
      : memory_(memory), element_(element), rank_(rank), trace_(trace) {}

  /// The element at index i.
  ElementRef operator()(const Operand& i) const { return element({&i}); }
  /// The element at (i, j).
  ElementRef operator()(const Operand& i, const Operand& j) const { return element({&i, &j}); }
  /// The element at (i, j, k).
  ElementRef operator()(const Operand& i, const Operand& j, const Operand& k) const {
    return element({&i, &j, &k});
  }
  /// The element at index i (one-dimensional arrays).
  ElementRef operator[](const Operand& i) const { return element({&i}); }

  /// Elements N*i ... N*i+N-1 of a one-dimensional array of T as one Vec, read in one access
  /// (a 16-byte global_load_dwordx4 for Vec<float, 4>): `tile.vload<4, float>(i)`. The array's
  /// extent need not be a multiple of N, but the whole vector must lie inside it.
  template <int N, Scalar T>
  Vec<T, N> vload(const Operand& i) const {
    return vload_at<N, T>({&i});
  }
  /// Elements (i, N*j) ... (i, N*j+N-1) of a two-dimensional array of T in C order (the last
  /// dimension contiguous) as one Vec: vector accesses run along the last dimension.
  template <int N, Scalar T>
  Vec<T, N> vload(const Operand& i, const Operand& j) const {
    return vload_at<N, T>({&i, &j});
  }
  /// Elements (i, j, N*k) ... (i, j, N*k+N-1) of a three-dimensional array of T in C order.
  template <int N, Scalar T>
  Vec<T, N> vload(const Operand& i, const Operand& j, const Operand& k) const {
    return vload_at<N, T>({&i, &j, &k});
  }
  /// Writes `v` to elements N*i ... N*i+N-1 of a one-dimensional array of T in one access.
  template <Scalar T, int N>
  void vstore(const Operand& i, const Vec<T, N>& v) const {
    const Operand* idx[] = {&i};
    detail::vstore(*this, idx, std::span<const Value>(v.lanes()));
  }
  /// Writes `v` to elements (i, N*j) ... (i, N*j+N-1) of a two-dimensional array in C order.
  template <Scalar T, int N>
  void vstore(const Operand& i, const Operand& j, const Vec<T, N>& v) const {
    const Operand* idx[] = {&i, &j};
    detail::vstore(*this, idx, std::span<const Value>(v.lanes()));
  }
  /// Writes `v` to elements (i, j, N*k) ... (i, j, N*k+N-1) of a three-dimensional array in C order.
  template <Scalar T, int N>
  void vstore(const Operand& i, const Operand& j, const Operand& k, const Vec<T, N>& v) const {
    const Operand* idx[] = {&i, &j, &k};
    detail::vstore(*this, idx, std::span<const Value>(v.lanes()));
  }

  /// Extent of dimension d (i32), like Numba's arr.shape[d].
  Int shape(int d, std::source_location loc = std::source_location::current()) const;

  /// The array's memory id in the IR.
  ir::MemoryId memory() const { return memory_; }
  /// The element type.
  ir::Type element_type() const { return element_; }
  /// Number of dimensions.
  unsigned rank() const { return rank_; }
  /// The trace it belongs to.
  uint64_t trace() const { return trace_; }
  /// Indexes with a list of operands (used by atomics and by operator()).
  ElementRef element(std::initializer_list<const Operand*> indices) const;

 private:
  template <int N, Scalar T>
  Vec<T, N> vload_at(std::initializer_list<const Operand*> indices) const {
    std::vector<Value> lanes =
        detail::vload(*this, ir_type_v<T>, N, std::span<const Operand* const>(indices.begin(), indices.size()));
    std::array<Value, N> a;
    for (int k = 0; k < N; ++k) a[k] = lanes[k];
    return Vec<T, N>::from_lanes(a);
  }

  ir::MemoryId memory_ = 0;
  ir::Type element_ = ir::Type::none;
  unsigned rank_ = 0;
  uint64_t trace_ = 0;
};

/// A kernel parameter: an N-dimensional array of T in global memory, laid out as L.
template <Scalar T, int N = 1, ir::Layout L = ir::Layout::C>
class Array : public ArrayRef {
  static_assert(N >= 1 && N <= 3, "rocjit arrays have rank 1 to 3");

 public:
  /// The C++ element type.
  using element_type = T;
  /// Number of dimensions.
  static constexpr int rank_v = N;
  /// Index linearisation.
  static constexpr ir::Layout layout = L;
  /// Typed view of an untyped array reference.
  using ArrayRef::ArrayRef;

  /// Elements N*i ... N*i+N-1 as one Vec<T, N>, read in one access: `pos.vload<4>(j)` (the
  /// whole vector must lie inside the extent).
  template <int Lanes>
  Vec<T, Lanes> vload(const Operand& i) const {
    return ArrayRef::vload<Lanes, T>(i);
  }
  /// Elements (i, N*j) ... (i, N*j+N-1) of a C-order two-dimensional array: `img.vload<4>(row, j)`.
  template <int Lanes>
  Vec<T, Lanes> vload(const Operand& i, const Operand& j) const {
    return ArrayRef::vload<Lanes, T>(i, j);
  }
  /// Elements (i, j, N*k) ... (i, j, N*k+N-1) of a C-order three-dimensional array.
  template <int Lanes>
  Vec<T, Lanes> vload(const Operand& i, const Operand& j, const Operand& k) const {
    return ArrayRef::vload<Lanes, T>(i, j, k);
  }
};

namespace detail {
ArrayRef make_array(ir::MemorySpace space, ir::Type element, std::initializer_list<Operand> shape,
                    const std::string& name, const std::source_location& loc);
ArrayRef make_dynamic_shared(ir::Type element, const std::string& name, const std::source_location& loc);
}

namespace shared {
/// A work-group shared (LDS) array with a constant shape, like Numba's cuda.shared.array.
template <Scalar T>
ArrayRef array(std::initializer_list<Operand> shape, const std::string& name = {},
               std::source_location loc = std::source_location::current()) {
  return detail::make_array(ir::MemorySpace::shared, ir_type_v<T>, shape, name, loc);
}
/// Dynamic shared memory (CUDA's `extern __shared__`): a 1-D shared array whose size comes from
/// the launch, `k[{grid, block, stream, shared_bytes}]`; shape(0) is shared_bytes / sizeof(T).
/// It follows the static shared arrays, and every dynamic array of a kernel starts at the same
/// address (16-byte aligned), so two of them view the same bytes.
template <Scalar T>
ArrayRef dynamic(const std::string& name = {}, std::source_location loc = std::source_location::current()) {
  return detail::make_dynamic_shared(ir_type_v<T>, name, loc);
}
}  // namespace shared

namespace local {
/// A per-work-item (private) array with a constant shape, like Numba's cuda.local.array.
template <Scalar T>
ArrayRef array(std::initializer_list<Operand> shape, const std::string& name = {},
               std::source_location loc = std::source_location::current()) {
  return detail::make_array(ir::MemorySpace::local, ir_type_v<T>, shape, name, loc);
}
}  // namespace local

/// A mutable kernel variable; promoted to a register by the compiler. `Var<Vec<T, N>>` holds a
/// vector (below).
template <VarType T>
class Var {
 public:
  /// An uninitialised variable.
  explicit Var(std::source_location loc = std::source_location::current()) : slot_(declare(ir_type_v<T>, loc)) {
    assign(Operand(T{}, loc));
  }
  /// Copy-initialisation from literals, values and loads: Var<float> acc = 0.0f;
  template <class L>
    requires std::is_arithmetic_v<L>
  Var(L literal, std::source_location loc = std::source_location::current()) : slot_(declare(ir_type_v<T>, loc)) {
    assign(Operand(literal, loc));
  }
  /// A variable initialised with `v`.
  Var(const Value& v, std::source_location loc = std::source_location::current()) : slot_(declare(ir_type_v<T>, loc)) {
    assign(Operand(v, loc));
  }
  /// A variable initialised with `x`.
  template <Loadable X>
  Var(const X& x, std::source_location loc = std::source_location::current()) : slot_(declare(ir_type_v<T>, loc)) {
    assign(Operand(x.load(loc), loc));
  }
  /// A new variable initialised with `other`'s current value.
  Var(const Var& other, std::source_location loc = std::source_location::current())
      : slot_(declare(ir_type_v<T>, loc)) {
    assign(Operand(other.load(loc), loc));
  }
  /// Assignment from a literal, a value, another Var or an array element: one overload taking an
  /// Operand, whose implicit conversion records the caller's location (an operator cannot take a
  /// defaulted std::source_location parameter, but the converting constructor of its argument can).
  Var& operator=(const Operand& v) & {
    assign(v);
    return *this;
  }
  /// Declared only so that C++ generates no copy assignment (which would rebind this Var to the
  /// other one's slot instead of recording a store). Being &&-qualified it is not viable for the
  /// lvalue Vars kernels assign to, so `a = b` takes the Operand overload above.
  Var& operator=(const Var&) && = delete;
  /// Records var += v.
  Var& operator+=(const Operand& v) { return update(ir::BinaryOp::add, v); }
  /// Records var -= v.
  Var& operator-=(const Operand& v) { return update(ir::BinaryOp::sub, v); }
  /// Records var *= v.
  Var& operator*=(const Operand& v) { return update(ir::BinaryOp::mul, v); }
  /// Records var /= v.
  Var& operator/=(const Operand& v) { return update(ir::BinaryOp::div, v); }
  /// Records var %= v.
  Var& operator%=(const Operand& v) { return update(ir::BinaryOp::rem, v); }
  /// Records var &= v.
  Var& operator&=(const Operand& v) { return update(ir::BinaryOp::and_, v); }
  /// Records var |= v.
  Var& operator|=(const Operand& v) { return update(ir::BinaryOp::or_, v); }
  /// Records var ^= v.
  Var& operator^=(const Operand& v) { return update(ir::BinaryOp::xor_, v); }

  /// Records a load of the current value. `Value v = acc;` calls it through Value's constructor
  /// for Loadable types, at the caller's line.
  Value load(const std::source_location& loc) const { return load_slot(slot_, ir_type_v<T>, trace_, loc); }
  /// Reads the current value as a typed expression.
  Expr<T> get(std::source_location loc = std::source_location::current()) const { return Expr<T>(load(loc), loc); }

 private:
  static uint32_t declare(ir::Type type, const std::source_location& loc);
  static Value load_slot(uint32_t slot, ir::Type type, uint64_t trace, const std::source_location& loc);
  static void store_slot(uint32_t slot, ir::Type type, uint64_t trace, const Operand& v);
  void assign(const Operand& v) { store_slot(slot_, ir_type_v<T>, trace_, v); }
  Var& update(ir::BinaryOp op, const Operand& v) {
    assign(Operand(detail::binary(op, Operand(load(v.loc()), v.loc()), v), v.loc()));
    return *this;
  }

  uint32_t slot_;
  uint64_t trace_ = detail::current_or_null() ? detail::current_or_null()->serial : 0;
};

namespace detail {
uint32_t declare_slot(ir::Type type, const std::source_location& loc);
Value load_slot(uint32_t slot, ir::Type type, uint64_t trace, const std::source_location& loc);
void store_slot(uint32_t slot, ir::Type type, uint64_t trace, const Operand& v);
}  // namespace detail

template <VarType T>
uint32_t Var<T>::declare(ir::Type type, const std::source_location& loc) {
  return detail::declare_slot(type, loc);
}
template <VarType T>
Value Var<T>::load_slot(uint32_t slot, ir::Type type, uint64_t trace, const std::source_location& loc) {
  return detail::load_slot(slot, type, trace, loc);
}
template <VarType T>
void Var<T>::store_slot(uint32_t slot, ir::Type type, uint64_t trace, const Operand& v) {
  detail::store_slot(slot, type, trace, v);
}

/// A mutable vector variable: one variable per lane (each promoted to a register), read and
/// written as a whole Vec or lane by lane. Like Var<T> it carries a vector out of If/For/While
/// bodies and across loop iterations:
/// `Var<Vec<float, 4>> acc(Vec<float, 4>(0.0f)); For(0, n, [&](Int i) { acc += x.vload<4>(i); });`
template <Scalar T, int N>
class Var<Vec<T, N>> {
 public:
  /// The Vec type it holds.
  using vec_type = Vec<T, N>;
  /// An operand of its assignments: a Vec or a vector Var, with the caller's line.
  using arg_type = typename vec_type::Arg;
  /// A variable whose lanes are zero.
  explicit Var(std::source_location loc = std::source_location::current()) {
    declare(loc);
    assign(vec_type(Operand(T{}, loc)), loc);
  }
  /// A variable initialised with `v`.
  Var(const vec_type& v, std::source_location loc = std::source_location::current()) {
    declare(loc);
    assign(v, loc);
  }
  /// A new variable initialised with `other`'s current value.
  Var(const Var& other, std::source_location loc = std::source_location::current()) {
    declare(loc);
    assign(other.get(loc), loc);
  }
  /// Assignment from a Vec or another vector Var (its current value), recorded at the caller's line.
  Var& operator=(const arg_type& v) & {
    assign(v.vec, v.loc);
    return *this;
  }
  /// Declared only so that C++ generates no copy assignment (see Var<T>).
  Var& operator=(const Var&) && = delete;

  /// The current value (a load of every lane).
  vec_type get(std::source_location loc = std::source_location::current()) const {
    std::array<Value, N> lanes;
    for (int k = 0; k < N; ++k) lanes[k] = detail::load_slot(slots_[k], ir_type_v<T>, trace_, loc);
    return vec_type::from_lanes(lanes);
  }
  /// The current value of lane k (a constant 0 <= k < N).
  Expr<T> operator[](const Lane& k) const {
    detail::check_lane(k, N);
    return Expr<T>(detail::load_slot(slots_[static_cast<size_t>(k.index)], ir_type_v<T>, trace_, k.loc), k.loc);
  }
  /// Sets lane k to `x` (converted as a Var<T> assignment would).
  void set(const Lane& k, const Operand& x) {
    detail::check_lane(k, N);
    detail::store_slot(slots_[static_cast<size_t>(k.index)], ir_type_v<T>, trace_, x);
  }

  /// Lane-wise compound assignment with a Vec (or vector Var) or a scalar applied to every lane,
  /// with the rules of Vec's operators.
  ///@{
  Var& operator+=(const arg_type& v) { return *this = arg_type(get(v.loc) + v, v.loc); }
  Var& operator-=(const arg_type& v) { return *this = arg_type(get(v.loc) - v, v.loc); }
  Var& operator*=(const arg_type& v) { return *this = arg_type(get(v.loc) * v, v.loc); }
  Var& operator/=(const arg_type& v) { return *this = arg_type(get(v.loc) / v, v.loc); }
  Var& operator+=(const Operand& s) { return *this = arg_type(get(s.loc()) + s, s.loc()); }
  Var& operator-=(const Operand& s) { return *this = arg_type(get(s.loc()) - s, s.loc()); }
  Var& operator*=(const Operand& s) { return *this = arg_type(get(s.loc()) * s, s.loc()); }
  Var& operator/=(const Operand& s) { return *this = arg_type(get(s.loc()) / s, s.loc()); }
  ///@}

 private:
  void declare(const std::source_location& loc) {
    for (uint32_t& s : slots_) s = detail::declare_slot(ir_type_v<T>, loc);
  }
  void assign(const vec_type& v, const std::source_location& loc) {
    for (int k = 0; k < N; ++k) detail::store_slot(slots_[k], ir_type_v<T>, trace_, Operand(v.lanes()[k], loc));
  }

  std::array<uint32_t, N> slots_{};
  uint64_t trace_ = detail::current_or_null() ? detail::current_or_null()->serial : 0;
};

}  // namespace rocjit::dsl

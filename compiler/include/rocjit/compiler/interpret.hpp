// The reference interpreter: the executable specification of rocjit IR.
//
// interpret() runs an ir::Kernel on host buffers, one work-group after another, with the meaning
// the README's "Semantics" table gives every operation (integer x / 0 = 0, x % 0 = x,
// INT_MIN / -1 = INT_MIN, shift amounts masked to the width, saturating float -> int with
// NaN -> 0, two's-complement wrapping, For counters that end instead of wrapping, IEEE floats
// without fast-math). It is deliberately simple and slow (tens of millions of operations per
// second): the oracle that tests and rocjit-smith compare the compiled kernels against, since the
// CPU and AMDGPU back ends share their lowering and a shared bug would hide from comparing them.
//
// Unlike the compiled kernels, it checks everything: every array access against the array's
// shape and the buffer bound to it, every argument against its parameter, every barrier against
// the work-group (all work-items must reach the same barrier). A violation is a rocjit::Error
// naming the kernel, the array, the index, the op's file:line and the work-item.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "rocjit/compiler/host.hpp"  // Dim3
#include "rocjit/compiler/ir.hpp"
#include "rocjit/settings.hpp"

namespace rocjit {

/// One kernel argument: an array bound to host memory, or a scalar. Build with array() / scalar().
struct InterpretArgument {
  /// Whether the argument is an array or a scalar.
  enum class Kind : uint8_t { array, scalar };
  /// Array or scalar.
  Kind kind = Kind::scalar;
  ir::Type type = ir::Type::none;  ///< element type (array) or value type (scalar)

  /// Arrays: `size` elements of `type` at `data`; every access must fall inside them. `shape` has
  /// one extent per dimension (empty for a 1-D array: the whole buffer). `strides` are in
  /// elements and required for Layout::strided parameters (one per dimension); for C and F
  /// parameters they must be empty (the layout defines them).
  void* data = nullptr;
  /// Number of elements (arrays).
  int64_t size = 0;
  /// Extents per dimension (arrays).
  std::vector<int64_t> shape;
  /// Element strides per dimension (arrays).
  std::vector<int64_t> strides;

  /// Scalars: the value's bits, zero-extended (f32 as its 32 bits, i1 as 0 or 1).
  uint64_t bits = 0;

  /// The IR type of the C++ type T.
  template <class T>
  static constexpr ir::Type type_of() {
    return ir::type_of<T>();
  }

  /// An array argument over `data`; shape and strides default to one contiguous dimension.
  template <class T>
  static InterpretArgument array(std::span<T> data, std::vector<int64_t> shape = {}, std::vector<int64_t> strides = {}) {
    InterpretArgument a;
    a.kind = Kind::array;
    a.type = type_of<std::remove_const_t<T>>();
    a.data = const_cast<std::remove_const_t<T>*>(data.data());
    a.size = static_cast<int64_t>(data.size());
    a.shape = std::move(shape);
    a.strides = std::move(strides);
    return a;
  }
  /// An array argument over a vector's elements; shape and strides default to one contiguous dimension.
  template <class T>
  static InterpretArgument array(std::vector<T>& data, std::vector<int64_t> shape = {}, std::vector<int64_t> strides = {}) {
    return array(std::span<T>(data), std::move(shape), std::move(strides));
  }
  /// A scalar argument holding `value`.
  template <class T>
  static InterpretArgument scalar(T value) {
    InterpretArgument a;
    a.kind = Kind::scalar;
    a.type = type_of<T>();
    if constexpr (std::is_same_v<T, bool>) {
      a.bits = value ? 1 : 0;
    } else {
      std::memcpy(&a.bits, &value, sizeof(T));  // little-endian: the low bytes
    }
    return a;
  }
};

/// How interpret() runs a kernel.
struct InterpretOptions {
  /// Stops a kernel that has not finished after this many executed operations (summed over all
  /// work-items) with a LaunchError; 0 = no limit. For generated kernels that may not terminate.
  uint64_t max_operations = 0;
  /// Reading a shared array element no work-item of the group has written yet, a local array
  /// element or a variable its work-item has not written yet, is a LaunchError (on devices their
  /// first contents are unspecified, so such a kernel has no single meaning). Off: they read 0.
  bool check_uninitialized = true;
  /// Lanes per wavefront for wave operations and lane_id() (the CPU back end's is
  /// host_wave_size; AMDGPU targets use 64 or 32).
  unsigned wave_size = host_wave_size;
  /// Bytes of dynamic shared memory per work-group (the launch's shared_bytes). Reads of it are
  /// not checked for unwritten elements; it starts zeroed in each group.
  size_t dynamic_shared_bytes = 0;
  /// The launch's print buffer (rocjit/compiler/device_print.hpp: print_buffer_header(), then
  /// the record area) for kernels with print or assert ops; the caller delivers it
  /// (deliver_prints). nullptr: interpret() makes one of Settings::print_buffer_bytes and
  /// delivers it when the kernel has run, throwing the DeviceAssertion of a failed assert.
  void* print_buffer = nullptr;
  /// What device_assert does (Settings::asserts; trap acts as report here).
  AssertMode asserts = AssertMode::report;
};

/// The definition of the wave operation `op` on one wavefront of `active` lanes (of `width`, a
/// power of two): a[i] and b[i] hold lane i's operands as the interpreter's bits (b: the lane
/// operand of shuffles), `type` is a's type, out[i] receives lane i's result. The interpreter's
/// implementation of the rules in rocjit/compiler/semantics.hpp, which the CPU back end (inline
/// loops over a wave's lanes) and the AMDGPU lowering (cross-lane instructions) implement on
/// their own, so floats sum in the same order on every target of the same wave size.
void interpret_wave(ir::WaveOp op, ir::Type type, const uint64_t* a, const uint64_t* b, uint64_t* out,
                    unsigned active, unsigned width);

/// The checks interpret() makes before running `kernel` (ir::verify and the pipeline's
/// uniformity rule, as every compile): a CompileError naming the kernel and file:line. The
/// interpreter device calls it when it "compiles" a kernel, so errors come at the first launch.
void check_interpretable(const ir::Kernel& kernel);

/// Runs `kernel` over `grid` work-groups of `block` work-items; args[i] binds parameter i.
/// Throws CompileError if the kernel does not verify, LaunchError for bad geometry or arguments,
/// an out-of-bounds access, a read of unwritten shared/local memory or of an unwritten variable,
/// work-items of a group at different barriers, or an exhausted operation budget. Memory written
/// before the error stays written.
///
/// Shared arrays start unwritten in each work-group, local arrays and variables in each
/// work-item (see InterpretOptions::check_uninitialized). Work-items between two barriers run
/// one after another in order of their linear local id (x fastest), so racy kernels see one
/// particular interleaving; atomics are sequential read-modify-writes. `wavebarrier` is a
/// work-group barrier here (it must be reached by the whole group anyway), and so is a wave
/// operation: when every work-item has reached it, it runs for each wave of the group
/// (InterpretOptions::wave_size consecutive linear ids) through interpret_wave().
void interpret(const ir::Kernel& kernel, Dim3 grid, Dim3 block, std::span<const InterpretArgument> args,
               const InterpretOptions& options = {});

}  // namespace rocjit

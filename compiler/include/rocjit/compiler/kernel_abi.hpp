// The kernel ABI: the one description of how a kernel's parameters become its explicit
// arguments, used by the lowering (LLVM signature), the runtime (argument packing), the host
// runner, the simulator's benchmarks and the tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "rocjit/compiler/ir.hpp"

namespace rocjit {

/// One explicit kernel argument, as every target passes it.
struct AbiArgument {
  /// What the argument carries.
  enum class Kind : uint8_t {
    scalar,   ///< a scalar parameter's value
    pointer,  ///< an array parameter's base address
    extent,   ///< one extent of an array (i32)
    stride,   ///< one element stride of a strided array (i64)
    print_buffer,    ///< the print buffer (rocjit/compiler/device_print.hpp) of a kernel that prints or asserts
    dynamic_shared,  ///< bytes of dynamic shared memory of the launch (u32); the last argument
  };
  Kind kind = Kind::scalar;     ///< what it carries
  std::string name;             ///< "x", "x.shape0", "x.stride1": its name in LLVM IR and the metadata
  ir::Type type = ir::Type::none;  ///< scalar: the value's type; pointer: the element type; i32; i64
  uint32_t size = 0;            ///< bytes in the argument segment
  uint32_t alignment = 0;       ///< bytes; the offset is a multiple of it
  uint32_t offset = 0;          ///< bytes from the start of the explicit arguments
  uint32_t param = 0;           ///< index of the kernel parameter it belongs to (print_buffer, dynamic_shared: params.size())
  uint32_t dim = 0;             ///< extent and stride: the dimension
};

/// A kernel's explicit arguments in order: per array parameter its pointer, one i32 extent per
/// dimension, then (strided layout only) one i64 element stride per dimension; per scalar
/// parameter its value; then, when the kernel has print or assert ops, the print buffer's
/// address; last, when the kernel uses shared::dynamic, the launch's dynamic shared bytes. Each argument is naturally aligned, as in the AMDGPU kernarg segment.
struct KernelAbi {
  std::vector<AbiArgument> arguments;  ///< in order
  uint32_t size = 0;                   ///< bytes of explicit arguments (end of the last one)
  /// Index in `arguments` of the first argument of parameter `param`.
  size_t first_of(uint32_t param) const;
};

/// The ABI of `kernel`.
KernelAbi kernel_abi(const ir::Kernel& kernel);

}  // namespace rocjit

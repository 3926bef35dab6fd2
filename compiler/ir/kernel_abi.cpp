// The kernel ABI, derived from the kernel's parameters (see kernel_abi.hpp).
#include "rocjit/compiler/kernel_abi.hpp"

#include <fmt/format.h>

#include "rocjit/compiler/error.hpp"

namespace rocjit {

size_t KernelAbi::first_of(uint32_t param) const {
  for (size_t i = 0; i < arguments.size(); ++i)
    if (arguments[i].param == param) return i;
  throw Error(fmt::format("the kernel has no parameter {}", param));
}

KernelAbi kernel_abi(const ir::Kernel& kernel) {
  KernelAbi abi;
  auto place = [&](AbiArgument a) {
    abi.size = (abi.size + a.alignment - 1) / a.alignment * a.alignment;
    a.offset = abi.size;
    abi.size += a.size;
    abi.arguments.push_back(std::move(a));
  };
  for (uint32_t p = 0; p < kernel.params.size(); ++p) {
    const ir::Param& param = kernel.params[p];
    if (param.kind == ir::Param::Kind::scalar) {
      uint32_t bytes = ir::byte_size(param.type);
      place({AbiArgument::Kind::scalar, param.name, param.type, bytes, bytes, 0, p, 0});
      continue;
    }
    const ir::Memory& m = kernel.memories[param.memory];
    place({AbiArgument::Kind::pointer, param.name, m.element, 8, 8, 0, p, 0});
    for (uint32_t d = 0; d < m.rank; ++d)
      place({AbiArgument::Kind::extent, fmt::format("{}.shape{}", param.name, d), ir::Type::i32, 4, 4, 0, p, d});
    if (m.layout == ir::Layout::strided)
      for (uint32_t d = 0; d < m.rank; ++d)
        place({AbiArgument::Kind::stride, fmt::format("{}.stride{}", param.name, d), ir::Type::i64, 8, 8, 0, p, d});
  }
  bool prints = false;
  ir::walk(kernel.body, [&](const ir::Op& op) {
    prints = prints || op.kind == ir::OpKind::print || op.kind == ir::OpKind::assert_;
  });
  if (prints)
    place({AbiArgument::Kind::print_buffer, "print.buffer", ir::Type::u32, 8, 8, 0,
           static_cast<uint32_t>(kernel.params.size()), 0});
  if (kernel.has_dynamic_shared())
    place({AbiArgument::Kind::dynamic_shared, "shared.dynamic_bytes", ir::Type::u32, 4, 4, 0,
           static_cast<uint32_t>(kernel.params.size()), 0});
  return abi;
}

}  // namespace rocjit

// Finishing a trace: parameters, verification, the error wrapper and printing. (Inspection
// through the compiler, Kernel::llvm_ir/assembly/metadata, is the runtime's: runtime/src/inspect.cpp.)
#include "rocjit/dsl/kernel.hpp"

#include <fmt/format.h>

#include <array>

#include "rocjit/compiler/error.hpp"
#include "rocjit/compiler/printer.hpp"
#include "passes/pipeline.h"

namespace rocjit {

void Kernel::empty_kernel() {
  throw Error("this rocjit::Kernel is empty (default-constructed); assign it the result of rocjit::kernel(...)");
}

std::string Kernel::print(bool locations) const {
  ir::PrintOptions o;
  o.locations = locations;
  return ir::print(ir(), o);
}

std::string Kernel::signature() const {
  std::string s = name() + "(";
  for (size_t i = 0; i < ir_->params.size(); ++i) {
    const ir::Param& p = ir_->params[i];
    if (i) s += ", ";
    if (p.kind == ir::Param::Kind::scalar) {
      s += fmt::format("{} {}", ir::type_name(p.type), p.name);
    } else {
      const ir::Memory& m = ir_->memories[p.memory];
      s += fmt::format("array<{}, {}{}> {}", ir::type_name(m.element), m.rank,
                       m.layout == ir::Layout::C ? "" : fmt::format(", {}", ir::layout_name(m.layout)), p.name);
    }
  }
  return s + ")";
}

namespace dsl::detail {

std::string param_name(const KernelOptions& options, size_t index) {
  if (index < options.param_names.size()) return options.param_names[index];
  return fmt::format("arg{}", index);
}

ArrayRef add_array_param(Trace& t, const std::string& name, ir::Type element, unsigned rank, ir::Layout layout) {
  ir::Memory m;
  m.name = name;
  m.space = ir::MemorySpace::global;
  m.element = element;
  m.rank = rank;
  m.layout = layout;
  m.param_index = static_cast<int>(t.kernel.params.size());
  m.loc = t.kernel.loc;
  t.kernel.memories.push_back(m);
  ir::Param p;
  p.name = name;
  p.kind = ir::Param::Kind::array;
  p.type = element;
  p.memory = static_cast<ir::MemoryId>(t.kernel.memories.size() - 1);
  t.kernel.params.push_back(p);
  return ArrayRef(p.memory, element, rank, t.serial);
}

Value add_scalar_param(Trace& t, const std::string& name, ir::Type type) {
  ir::Param p;
  p.name = name;
  p.kind = ir::Param::Kind::scalar;
  p.type = type;
  p.value = t.kernel.new_value(type);
  t.kernel.params.push_back(p);
  return Value(p.value, type, t.serial);
}

Kernel finish(Trace& t, const KernelOptions& options) {
  ir::Kernel& k = t.kernel;
  if (options.max_block_size < 1 || options.max_block_size > 1024)
    throw CompileError(fmt::format("kernel '{}': max_block_size {} is outside 1..1024 (at {})", k.name,
                                   options.max_block_size, k.loc.str()));
  k.max_block_size = options.max_block_size;
  k.fast_math = options.fast_math;
  for (size_t i = 0; i < k.params.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (k.params[i].name == k.params[j].name)
        throw CompileError(fmt::format("kernel '{}': two parameters are named '{}' (at {})", k.name,
                                       k.params[i].name, k.loc.str()));
  auto owned = std::make_shared<ir::Kernel>(std::move(k));
  owned->index_definitions();
  passes::check(*owned);
  return Kernel(std::move(owned));
}

void rethrow_tracing_error(const std::string& name, const std::source_location& loc) {
  try {
    throw;
  } catch (const Error&) {
    throw;  // already names the kernel and the location
  } catch (const std::exception& e) {
    throw CompileError(fmt::format("kernel '{}' (defined at {}:{}): the kernel body threw while being traced: {}",
                                   name, loc.file_name(), loc.line(), e.what()));
  } catch (...) {
    throw CompileError(fmt::format("kernel '{}' (defined at {}:{}): the kernel body threw a non-standard "
                                   "exception while being traced",
                                   name, loc.file_name(), loc.line()));
  }
}

}  // namespace dsl::detail
}  // namespace rocjit

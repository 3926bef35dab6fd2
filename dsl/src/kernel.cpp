// Finishing a trace: parameters, verification, the error wrapper and printing. (Launching and
// inspection through the compiler, Kernel::llvm_ir/assembly/metadata, are the runtime's:
// rocjit/runtime/kernel.hpp, runtime/src/inspect.cpp.)
#include "rocjit/dsl/kernel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <list>
#include <map>
#include <mutex>

#include "rocjit/compiler/error.hpp"
#include "rocjit/compiler/float16.hpp"
#include "rocjit/compiler/printer.hpp"
#include "rocjit/compiler/visitor.hpp"
#include "rocjit/compiler/passes.hpp"

namespace rocjit {

void TracedKernel::empty_kernel() {
  throw Error("this rocjit::Kernel is empty (default-constructed); assign it the result of rocjit::kernel(...)");
}

std::string TracedKernel::print(bool locations) const {
  ir::PrintOptions o;
  o.locations = locations;
  return ir::print(ir(), o);
}

std::string TracedKernel::signature() const {
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

// A kernel's runtime specialisation: which scalars and whether the shapes become constants, and
// the versions made so far, least recently launched last.
struct Specializations {
  std::vector<size_t> scalars;  // parameter indices
  bool shapes = false;
  size_t capacity = 16;
  std::mutex lock;
  using Entry = std::pair<std::string, std::shared_ptr<const ir::Kernel>>;
  std::list<Entry> order;
  std::map<std::string, std::list<Entry>::iterator> versions;
};

namespace {

// A `const` op of type `t` holding the argument bits `b` (as launch() packs them).
std::unique_ptr<ir::Op> constant_of(ir::Type t, uint64_t b, ir::ValueId result, const ir::SourceLoc& loc) {
  auto op = std::make_unique<ir::Op>(ir::OpKind::constant);
  op->type = t;
  op->result = result;
  op->loc = loc;
  // The bits as the parameter's C++ type (launch() packed them that way), read through the one
  // C++ <-> IR table.
  ir::with_cpp_type(t, [&](auto zero) {
    using T = decltype(zero);
    T value{};
    if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) value = T::from_bits(static_cast<uint16_t>(b));
    else std::memcpy(&value, &b, sizeof value);
    if constexpr (ir::is_float_v<T>) op->get<ir::ConstantAttrs>().floating = static_cast<double>(value);
    else op->get<ir::ConstantAttrs>().integer = static_cast<int64_t>(value);
  });
  return op;
}

}  // namespace

}  // namespace dsl::detail

std::shared_ptr<const ir::Kernel> TracedKernel::specialized(const std::vector<uint64_t>& scalar_bits,
                                                      const std::vector<std::vector<int64_t>>& shapes) const {
  const ir::Kernel& base = ir();
  if (!specializations_) return ir_;
  if (scalar_bits.size() != base.params.size() || shapes.size() != base.params.size())
    throw CompileError(fmt::format("kernel '{}': specialized() takes one scalar and one shape entry per parameter "
                                   "({}); got {} and {} (defined at {})",
                                   base.name, base.params.size(), scalar_bits.size(), shapes.size(), base.loc.str()));
  dsl::detail::Specializations& sp = *specializations_;
  std::string key;
  for (size_t i : sp.scalars) key += fmt::format("{}={:x};", i, scalar_bits.at(i));
  if (sp.shapes)
    for (size_t i = 0; i < base.params.size(); ++i)
      if (base.params[i].kind == ir::Param::Kind::array) {
        const ir::Memory& m = base.memories[base.params[i].memory];
        if (shapes[i].size() != m.rank)
          throw CompileError(fmt::format("kernel '{}': specialized() got {} extents for '{}', an array of rank {} "
                                         "(defined at {})",
                                         base.name, shapes[i].size(), base.params[i].name, m.rank, base.loc.str()));
        key += fmt::format("{}:[{}];", i, fmt::join(shapes[i], ","));
      }
  {
    std::lock_guard<std::mutex> guard(sp.lock);
    if (auto it = sp.versions.find(key); it != sp.versions.end()) {
      sp.order.splice(sp.order.begin(), sp.order, it->second);
      return it->second->second;
    }
  }
  // A new version: the scalars' uses read constants (each parameter keeps a fresh, unused value),
  // the arrays carry fixed extents.
  auto version = std::make_shared<ir::Kernel>(ir::clone(base));
  std::vector<std::unique_ptr<ir::Op>> constants;
  for (size_t i : sp.scalars) {
    ir::Param& p = version->params[i];
    const ir::ValueId used = p.value;
    p.value = version->new_value(p.type);
    constants.push_back(dsl::detail::constant_of(p.type, scalar_bits.at(i), used, base.loc));
  }
  version->body.ops.insert(version->body.ops.begin(), std::make_move_iterator(constants.begin()),
                           std::make_move_iterator(constants.end()));
  if (sp.shapes)
    for (size_t i = 0; i < version->params.size(); ++i)
      if (version->params[i].kind == ir::Param::Kind::array) version->memories[version->params[i].memory].shape = shapes.at(i);
  version->index_definitions();
  std::lock_guard<std::mutex> guard(sp.lock);
  if (auto it = sp.versions.find(key); it != sp.versions.end()) return it->second->second;  // another thread's
  sp.order.emplace_front(key, version);
  sp.versions[key] = sp.order.begin();
  while (sp.order.size() > sp.capacity) {
    sp.versions.erase(sp.order.back().first);
    sp.order.pop_back();
  }
  return version;
}

size_t TracedKernel::specialization_count() const {
  if (!specializations_) return 0;
  std::lock_guard<std::mutex> guard(specializations_->lock);
  return specializations_->order.size();
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

TracedKernel finish(Trace& t, const KernelOptions& options) {
  ir::Kernel& k = t.kernel;
  if (options.max_block_size < 1 || options.max_block_size > 1024)
    throw CompileError(fmt::format("kernel '{}': max_block_size {} is outside 1..1024 (at {})", k.name,
                                   options.max_block_size, k.loc.str()));
  k.max_block_size = options.max_block_size;
  k.fast_math = options.fast_math;
  if (options.contract) passes::contract_multiply_adds(k);  // in the IR: the same fma on every device
  for (size_t i = 0; i < k.params.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (k.params[i].name == k.params[j].name)
        throw CompileError(fmt::format("kernel '{}': two parameters are named '{}' (at {})", k.name,
                                       k.params[i].name, k.loc.str()));
  std::shared_ptr<Specializations> specializations;
  if (!options.specialize.empty() || options.specialize_shapes) {
    if (options.max_specializations < 1 || options.max_specializations > 4096)
      throw CompileError(fmt::format("kernel '{}': max_specializations {} is outside 1..4096 (at {})", k.name,
                                     options.max_specializations, k.loc.str()));
    specializations = std::make_shared<Specializations>();
    specializations->shapes = options.specialize_shapes;
    specializations->capacity = options.max_specializations;
    for (const std::string& name : options.specialize) {
      size_t found = k.params.size();
      for (size_t i = 0; i < k.params.size(); ++i)
        if (k.params[i].name == name) found = i;
      if (found == k.params.size())
        throw CompileError(fmt::format("kernel '{}': specialize names '{}', which is not a parameter (at {})", k.name,
                                       name, k.loc.str()));
      if (k.params[found].kind == ir::Param::Kind::scalar && k.params[found].type.lanes > 1)
        throw CompileError(fmt::format("kernel '{}': specialize names '{}', a vector ({}); only one-lane scalar "
                                       "parameters are specialised (at {})",
                                       k.name, name, ir::type_name(k.params[found].type), k.loc.str()));
      if (k.params[found].kind != ir::Param::Kind::scalar)
        throw CompileError(fmt::format("kernel '{}': specialize names '{}', an array; only scalar parameters are "
                                       "specialised (specialize_shapes fixes array extents) (at {})",
                                       k.name, name, k.loc.str()));
      if (std::find(specializations->scalars.begin(), specializations->scalars.end(), found) ==
          specializations->scalars.end())
        specializations->scalars.push_back(found);
    }
  }
  auto owned = std::make_shared<ir::Kernel>(std::move(k));
  owned->index_definitions();
  passes::check(*owned);
  TracedKernel kernel(std::move(owned));
  kernel.specializations_ = std::move(specializations);
  return kernel;
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

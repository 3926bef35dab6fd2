// vectorize() and guvectorize(): signatures, broadcasting, the launch's views and the kernels'
// common frame; the templates in vectorize.hpp supply the types and the user's lambda.
#include "rocjit/runtime/vectorize.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "rocjit/compiler/error.hpp"
#include "rocjit/dsl/builtins.hpp"
#include "rocjit/dsl/control.hpp"
#include "src/array_access.h"

namespace rocjit {

namespace dsl::detail {

ElementRef core_element(const ArrayRef& array, const std::vector<Value>& loop, unsigned core_rank,
                        std::initializer_list<const Operand*> core, const std::source_location& loc) {
  if (core.size() != core_rank)
    fail(loc, fmt::format("an argument with {} core dimension{} is indexed with {} ind{}", core_rank,
                          core_rank == 1 ? "" : "s", core.size(), core.size() == 1 ? "ex" : "ices"));
  std::vector<Operand> all;
  all.reserve(loop.size() + core.size());
  for (const Value& v : loop) all.emplace_back(v, loc);
  for (const Operand* c : core) all.push_back(*c);
  if (all.empty()) all.emplace_back(0, loc);  // no loop and no core dimensions: the view's one element
  switch (all.size()) {
    case 1: return array.element({&all[0]});
    case 2: return array.element({&all[0], &all[1]});
    default: return array.element({&all[0], &all[1], &all[2]});
  }
}

Int core_shape(const ArrayRef& array, unsigned loop_rank, unsigned core_rank, int d, const std::source_location& loc) {
  if (d < 0 || static_cast<unsigned>(d) >= core_rank)
    fail(loc, fmt::format("shape({}) of an argument with {} core dimension{}", d, core_rank,
                          core_rank == 1 ? "" : "s"));
  return array.shape(static_cast<int>(loop_rank) + d, loc);
}

Value core_load(const ArrayRef& array, const std::vector<Value>& loop, unsigned core_rank,
                const std::source_location& loc) {
  if (core_rank != 0)
    fail(loc, fmt::format("an argument with {} core dimension{} is used as a value; index it, e.g. a(i)", core_rank,
                          core_rank == 1 ? "" : "s"));
  return core_element(array, loop, 0, {}, loc).load(loc);
}

}  // namespace dsl::detail

namespace runtime {
namespace {

std::string where(const std::source_location& loc) { return dsl::detail::to_loc(loc).str(); }

std::string shape_text(std::span<const int64_t> shape) { return fmt::format("({})", fmt::join(shape, ", ")); }

std::string core_text(const std::vector<std::string>& names) { return fmt::format("({})", fmt::join(names, ",")); }

// A recursive-descent reader of "(a,b),(c)->(d)" that remembers where it is for messages.
class SignatureReader {
 public:
  SignatureReader(const std::string& text, const std::string& name, const std::source_location& loc)
      : text_(text), name_(name), loc_(loc) {}

  GufuncSignature read() {
    GufuncSignature s;
    s.text = text_;
    s.inputs = arguments();
    skip_space();
    if (text_.compare(pos_, 2, "->") != 0) fail("'->' or ','");
    pos_ += 2;
    s.outputs = arguments();
    skip_space();
    if (pos_ != text_.size()) fail("the end of the signature or ','");
    return s;
  }

 private:
  std::vector<std::vector<std::string>> arguments() {
    std::vector<std::vector<std::string>> list{argument()};
    for (skip_space(); pos_ < text_.size() && text_[pos_] == ','; skip_space()) {
      ++pos_;
      list.push_back(argument());
    }
    return list;
  }
  std::vector<std::string> argument() {
    skip_space();
    if (pos_ >= text_.size() || text_[pos_] != '(') fail("'('");
    ++pos_;
    std::vector<std::string> names;
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == ')') {
      ++pos_;
      return names;
    }
    for (;;) {
      skip_space();
      const size_t start = pos_;
      if (pos_ < text_.size() && (std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
        while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
          ++pos_;
      if (pos_ == start) fail("a dimension name (a letter or '_', then letters, digits or '_')");
      names.push_back(text_.substr(start, pos_ - start));
      skip_space();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == ')') {
        ++pos_;
        return names;
      }
      fail("',' or ')'");
    }
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  [[noreturn]] void fail(const char* expected) const {
    const std::string found = pos_ < text_.size() ? fmt::format("'{}'", text_[pos_]) : std::string("the end");
    throw Error(fmt::format("guvectorize '{}' (defined at {}): signature \"{}\" is malformed at position {}: "
                            "expected {}, found {}; a signature reads like \"(m,n),(n,p)->(m,p)\"",
                            name_, where(loc_), text_, pos_, expected, found));
  }

  const std::string& text_;
  const std::string& name_;
  const std::source_location& loc_;
  size_t pos_ = 0;
};

// An error of one call: "<builder> '<name>' called at <file:line>: <what>".
[[noreturn]] void refuse(const UfuncCallSite& site, const std::string& what) {
  throw LaunchError(fmt::format("{} '{}' called at {}: {}", site.builder, site.name, where(site.loc), what));
}

}  // namespace

GufuncSignature parse_gufunc_signature(const std::string& text, const std::string& name,
                                       const std::source_location& loc) {
  GufuncSignature s = SignatureReader(text, name, loc).read();
  auto refuse_signature = [&](const std::string& what) {
    throw Error(fmt::format("guvectorize '{}' (defined at {}): signature \"{}\": {}", name, where(loc), text, what));
  };
  for (size_t i = 0; i < s.inputs.size(); ++i)
    if (s.inputs[i].size() > 3)
      refuse_signature(fmt::format("input {} has {} core dimensions; rocjit arrays have rank at most 3", i,
                                   s.inputs[i].size()));
  if (s.inputs.size() > 8) refuse_signature(fmt::format("{} inputs; a gufunc takes at most 8", s.inputs.size()));
  if (s.outputs.size() != 1)
    refuse_signature(fmt::format("{} outputs; rocjit's guvectorize makes one output (write one gufunc per output)",
                                 s.outputs.size()));
  if (s.outputs[0].size() > 3)
    refuse_signature(fmt::format("the output has {} core dimensions; rocjit arrays have rank at most 3",
                                 s.outputs[0].size()));
  return s;
}

UfuncPlan plan_ufunc(const UfuncCallSite& site, const GufuncSignature& signature,
                     std::span<const DeviceArrayBase* const> inputs, const DeviceArrayBase* out,
                     bool allow_contiguous) {
  const bool elementwise = signature.text.empty();  // vectorize: every core is "()"
  if (inputs.size() != signature.inputs.size())
    refuse(site, fmt::format("it takes {} input{} (signature \"{}\"), {} {} given", signature.inputs.size(),
                             signature.inputs.size() == 1 ? "" : "s", signature.text, inputs.size(),
                             inputs.size() == 1 ? "was" : "were"));
  UfuncPlan plan;
  // Core dimension sizes by name, with who fixed them first.
  std::map<std::string, std::pair<int64_t, std::string>> sizes;
  auto bind = [&](const std::string& dim, int64_t extent, const std::string& who) {
    auto [it, fresh] = sizes.emplace(dim, std::make_pair(extent, who));
    if (!fresh && it->second.first != extent)
      refuse(site, fmt::format("core dimension '{}' is {} in {} but {} in {} (signature \"{}\")", dim,
                               it->second.first, it->second.second, extent, who, signature.text));
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::vector<std::string>& core = signature.inputs[i];
    plan.input_cores.push_back(static_cast<unsigned>(core.size()));
    const DeviceArrayBase* a = inputs[i];
    if (!a) {
      if (!core.empty())
        refuse(site, fmt::format("argument {} is a scalar, but its core dimensions in signature \"{}\" are {}", i,
                                 signature.text, core_text(core)));
      continue;
    }
    if (!*a) refuse(site, fmt::format("argument {} is an empty DeviceArray", i));
    const Shape& shape = a->shape();
    if (shape.size() < core.size())
      refuse(site, fmt::format("argument {} has shape {}, of rank {}, fewer than its {} core dimensions {}", i,
                               shape_text(shape), shape.size(), core.size(), core_text(core)));
    const size_t own_loop = shape.size() - core.size();
    const std::string who = fmt::format("argument {} (shape {})", i, shape_text(shape));
    for (size_t c = 0; c < core.size(); ++c) bind(core[c], shape[own_loop + c], who);
    // NumPy's broadcasting: dimensions aligned at the right; extents equal, or one of them 1.
    Shape merged(std::max(plan.loop.size(), own_loop));
    for (size_t d = 0; d < merged.size(); ++d) {
      const size_t from_right = merged.size() - 1 - d;
      const int64_t x = from_right < plan.loop.size() ? plan.loop[plan.loop.size() - 1 - from_right] : 1;
      const int64_t y = from_right < own_loop ? shape[own_loop - 1 - from_right] : 1;
      if (x != y && x != 1 && y != 1) {
        if (elementwise)
          refuse(site, fmt::format("argument {} has shape {}, which does not broadcast with shape {} of the "
                                   "arguments before it: extents {} and {} differ and neither is 1",
                                   i, shape_text(shape), shape_text(plan.loop), y, x));
        refuse(site, fmt::format("argument {} has loop dimensions {} (shape {}, core dimensions {}), which do not "
                                 "broadcast with the loop shape {} of the arguments before it: extents {} and {} "
                                 "differ and neither is 1",
                                 i, shape_text(std::span<const int64_t>(shape).first(own_loop)), shape_text(shape),
                                 core_text(core), shape_text(plan.loop), y, x));
      }
      merged[d] = x == 1 ? y : x;
    }
    plan.loop = std::move(merged);
  }

  // The output: its core sizes come from the inputs' dimensions of the same names, or from `out`.
  const std::vector<std::string>& out_core = signature.outputs[0];
  if (out && !*out) refuse(site, "out is an empty DeviceArray");
  if (out && out->ndim() >= out_core.size())
    for (size_t c = 0; c < out_core.size(); ++c)
      bind(out_core[c], out->shape()[out->ndim() - out_core.size() + c],
           fmt::format("the output (shape {})", shape_text(out->shape())));
  for (const std::string& dim : out_core) {
    auto it = sizes.find(dim);
    if (it == sizes.end())
      refuse(site, fmt::format("the output's core dimension '{}' (signature \"{}\") is no input's, so its size is "
                               "unknown; pass the output with out(...)",
                               dim, signature.text));
    plan.output_core.push_back(it->second.first);
  }
  unsigned max_core = static_cast<unsigned>(out_core.size());
  for (unsigned k : plan.input_cores) max_core = std::max(max_core, k);
  for (size_t i = 0; i <= inputs.size(); ++i) {
    const size_t k = i < inputs.size() ? plan.input_cores[i] : out_core.size();
    if (plan.loop.size() + k > 3)
      refuse(site, fmt::format("the loop shape {} and the {} core dimension{} of {} need {} dimensions; rocjit arrays "
                               "have rank at most 3",
                               shape_text(plan.loop), k, k == 1 ? "" : "s",
                               i < inputs.size() ? fmt::format("argument {}", i) : std::string("the output"),
                               plan.loop.size() + k));
  }
  plan.output = plan.loop;
  plan.output.insert(plan.output.end(), plan.output_core.begin(), plan.output_core.end());
  if (plan.output.empty()) plan.output = {1};  // no rank-0 arrays: one element
  if (out && out->shape() != plan.output) {
    if (elementwise)
      refuse(site, fmt::format("out has shape {}, but the arguments broadcast to shape {}", shape_text(out->shape()),
                               shape_text(plan.output)));
    refuse(site, fmt::format("out has shape {}, but the loop shape {} and the output's core dimensions {} make "
                             "shape {}",
                             shape_text(out->shape()), shape_text(plan.loop), core_text(out_core),
                             shape_text(plan.output)));
  }
  plan.count = 1;
  for (int64_t e : plan.loop) plan.count *= e;

  plan.contiguous = allow_contiguous && max_core == 0 && (!out || out->is_c_contiguous());
  for (const DeviceArrayBase* a : inputs)
    if (a && (!a->is_c_contiguous() || a->shape() != plan.output)) plan.contiguous = false;
  plan.kernel_loop_rank = plan.contiguous ? 1 : static_cast<unsigned>(plan.loop.size());
  return plan;
}

DeviceArrayBase ufunc_view(const DeviceArrayBase& a, const UfuncPlan& plan, unsigned core_rank) {
  ArrayLayout l;
  l.dtype = a.dtype();
  const int64_t item = a.layout().itemsize();
  if (plan.contiguous) {
    l.shape = {a.size()};
    l.strides = {item};
    return ArrayAccess::make(a.allocation(), ArrayAccess::offset(a), std::move(l));
  }
  const size_t loop_rank = plan.kernel_loop_rank;
  const size_t own_loop = a.ndim() - core_rank;
  for (size_t d = 0; d < loop_rank; ++d) {
    // Padded loop dimension d, and the dimension of `a` aligned with it at the right (if any).
    const int64_t extent = d + plan.loop.size() >= loop_rank ? plan.loop[d + plan.loop.size() - loop_rank] : 1;
    const bool own = d + own_loop >= loop_rank;
    const size_t s = own ? d + own_loop - loop_rank : 0;
    l.shape.push_back(extent);
    l.strides.push_back(own && a.shape()[s] == extent && extent != 1 ? a.strides()[s] : 0);
  }
  for (size_t c = 0; c < core_rank; ++c) {
    l.shape.push_back(a.shape()[own_loop + c]);
    l.strides.push_back(a.strides()[own_loop + c]);
  }
  if (l.shape.empty()) {  // no loop and no core dimensions: the one element
    l.shape = {1};
    l.strides = {item};
  }
  return ArrayAccess::make(a.allocation(), ArrayAccess::offset(a), std::move(l));
}

Stream ufunc_stream(const Stream& given, std::span<const DeviceArrayBase* const> inputs, const DeviceArrayBase* out) {
  if (given) return given;
  for (const DeviceArrayBase* a : inputs)
    if (a) return default_stream(a->device());
  if (out) return default_stream(out->device());
  return default_stream();
}

std::string ufunc_kernel_key(std::span<const UfuncInputType> inputs, ir::Type output, const UfuncPlan& plan) {
  std::vector<std::string> parts;
  for (const UfuncInputType& t : inputs) parts.push_back(ir::type_name(t.type) + (t.array ? "" : "scalar"));
  return fmt::format("{}.{}.{}", fmt::join(parts, "-"), ir::type_name(output),
                     plan.contiguous ? std::string("contiguous") : fmt::format("strided{}", plan.kernel_loop_rank));
}

void trace_ufunc_frame(const UfuncPlan& plan, ir::Type output, std::span<const UfuncInputType> inputs,
                       const std::source_location& loc,
                       const std::function<void(const dsl::ArrayRef&, const std::vector<dsl::Value>&,
                                                const std::vector<UfuncParam>&)>& body) {
  using namespace rocjit::dsl;
  dsl::detail::Trace& t = *dsl::detail::current_or_null();
  const ir::Layout layout = plan.contiguous ? ir::Layout::C : ir::Layout::strided;
  const unsigned loop_rank = plan.kernel_loop_rank;
  auto rank = [&](size_t core) { return std::max(1u, loop_rank + static_cast<unsigned>(core)); };
  const ArrayRef out = dsl::detail::add_array_param(t, "out", output, rank(plan.output_core.size()), layout);
  const Int n(dsl::detail::add_scalar_param(t, "n", ir::Type::i32));
  std::vector<UfuncParam> params(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = fmt::format("arg{}", i);
    if (inputs[i].array)
      params[i].array = dsl::detail::add_array_param(t, name, inputs[i].type, rank(plan.input_cores[i]), layout);
    else
      params[i].scalar = dsl::detail::add_scalar_param(t, name, inputs[i].type);
  }
  const Int id = global_id(0, loc);
  If(Operand(id, loc) < Operand(n, loc), [&] {
    // The work-item's loop index, the last dimension fastest, from the output's loop extents.
    std::vector<Value> loop(loop_rank);
    Value rest = id;
    for (unsigned d = loop_rank; d-- > 0;) {
      if (d == 0) {
        loop[0] = rest;
      } else {
        const Int extent = out.shape(static_cast<int>(d), loc);
        loop[d] = Operand(rest, loc) % Operand(extent, loc);
        rest = Operand(rest, loc) / Operand(extent, loc);
      }
    }
    body(out, loop, params);
  }, loc);
}

dsl::Value ufunc_result(const dsl::Value& v, ir::Type result, bool deduced, const std::string& name,
                        const std::string& argument_types, const std::source_location& defined_at) {
  if (v.type() == result) return v;
  if (!deduced) return dsl::detail::cast(result, dsl::Operand(v, defined_at));
  dsl::detail::fail(defined_at,
                    fmt::format("vectorize '{}': the lambda returns a {} value for arguments {}, but the result type "
                                "deduced at compile time is {} (the arguments' promoted type, since the lambda returns "
                                "an untyped Value): return an Expr<T>, e.g. Int(cast<int32_t>(...)), or name the "
                                "result type, vectorize<T>(...)",
                                name, ir::cpp_type_name(v.type()), argument_types, ir::cpp_type_name(result)));
}

}  // namespace runtime
}  // namespace rocjit

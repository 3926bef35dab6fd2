// The race checker's proof that some arrays need no checks (race_free.h).
#include "passes/race_free.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "rocjit/compiler/kernel_abi.hpp"

namespace rocjit::passes {
namespace {

using ir::OpKind;
using ir::ValueId;
using ir::WorkItem;

// Keys name how a value is computed, so that two sites computing one index separately compare
// equal. Values whose computation is not understood have no key.
class IndexKeys {
 public:
  explicit IndexKeys(const ir::Kernel& k) : kernel_(k) {}

  // The key of a value that is the same for every work-item of a launch.
  std::optional<std::string> uniform(ValueId v, unsigned depth = 0) {
    if (auto it = uniform_.find(v); it != uniform_.end()) return it->second;
    std::optional<std::string> key = depth > max_depth ? std::nullopt : uniform_uncached(v, depth);
    uniform_.emplace(v, key);
    return key;
  }

  // A value that is an injective function of (group_id(dim), local_id(local)): two work-items
  // that differ in either get different values. Additions and subtractions of uniform values,
  // negation and widening integer casts keep that (modulo 2^bits they are bijections); the id
  // itself is global_id(d) or group_id(d) * local_size(d) + local_id(d) (dim = local = d), or
  // group_id(g) * C + local_id(l) for a positive constant C (`bound`). `plain`: only the id,
  // perhaps widened (its values are 0 to the launch's size along dim - 1, or, bounded, to
  // (groups along g - 1) * C + work-items along l - 1).
  struct Injective {
    int dim = 0;    // the group-id dimension
    int local = 0;  // the local-id dimension
    std::string key;
    bool plain = true;
    int64_t bound = 0;  // > 0: C (work-groups may have at most C work-items along `local`)
  };
  std::optional<Injective> injective(ValueId v, unsigned depth = 0) {
    const ir::Op* op = kernel_.values.at(v).def;
    if (!op || depth > max_depth) return std::nullopt;
    const std::string type = ir::type_name(kernel_.value_type(v));
    if (const auto id = global_id(*op)) {
      if (id->bound == 0) return Injective{id->group, id->local, fmt::format("g{}", id->group)};
      return Injective{id->group, id->local, fmt::format("g{}.{}.{}", id->group, id->local, id->bound), true,
                       id->bound};
    }
    if (op->kind == OpKind::cast) {
      const ir::Type from = kernel_.value_type(op->operands[0]), to = kernel_.value_type(v);
      if (!ir::is_integer(from) || !ir::is_integer(to) || ir::bit_width(to) < ir::bit_width(from) || from.lanes != 1 ||
          to.lanes != 1)
        return std::nullopt;
      auto inner = injective(op->operands[0], depth + 1);
      if (!inner) return std::nullopt;
      // A widened id keeps its values (sizes are below 2^31).
      inner->key = fmt::format("cast.{}.{}({})", ir::type_name(from), type, inner->key);
      return inner;
    }
    if (op->kind == OpKind::unary) {
      if (op->unary_op() != ir::UnaryOp::neg || !ir::is_integer(kernel_.value_type(v))) return std::nullopt;
      auto inner = injective(op->operands[0], depth + 1);
      if (!inner) return std::nullopt;
      inner->key = fmt::format("neg.{}({})", type, inner->key);
      inner->plain = false;
      return inner;
    }
    if (op->kind == OpKind::binary) {
      const ir::BinaryOp b = op->binary_op();
      if ((b != ir::BinaryOp::add && b != ir::BinaryOp::sub) || !ir::is_integer(kernel_.value_type(v)))
        return std::nullopt;
      const char* name = b == ir::BinaryOp::add ? "add" : "sub";
      if (auto left = injective(op->operands[0], depth + 1)) {
        auto right = uniform(op->operands[1], depth + 1);
        if (!right) return std::nullopt;
        left->key = fmt::format("{}.{}({},{})", name, type, left->key, *right);
        left->plain = false;
        return left;
      }
      auto left = uniform(op->operands[0], depth + 1);
      if (!left) return std::nullopt;
      auto right = injective(op->operands[1], depth + 1);
      if (!right) return std::nullopt;
      // u + i is i + u; u - i is a reflection.
      right->key = fmt::format("{}.{}({},{})", b == ir::BinaryOp::add ? "add" : "rsub", type, right->key, *left);
      right->plain = false;
      return right;
    }
    return std::nullopt;
  }

 private:
  static constexpr unsigned max_depth = 64;

  const ir::Op* def(ValueId v) const { return kernel_.values.at(v).def; }

  std::optional<WorkItem> workitem(ValueId v, unsigned dim) const {
    const ir::Op* op = def(v);
    if (!op || op->kind != OpKind::workitem || op->dim() != dim) return std::nullopt;
    return op->workitem();
  }

  // global_id(d), as the op or as group_id(d) * local_size(d) + local_id(d) in either order:
  // (d, d, 0). group_id(g) * C + local_id(l) with C a positive constant is injective in the two
  // ids when the launch's work-groups have at most C work-items along l: (g, l, C).
  struct Id {
    int group = 0, local = 0;
    int64_t bound = 0;
  };
  std::optional<Id> global_id(const ir::Op& op) const {
    if (op.kind == OpKind::workitem) {
      if (op.workitem() == WorkItem::global_id) return Id{static_cast<int>(op.dim()), static_cast<int>(op.dim()), 0};
      return std::nullopt;
    }
    if (op.kind != OpKind::binary || op.binary_op() != ir::BinaryOp::add) return std::nullopt;
    for (int side = 0; side < 2; ++side) {
      const ir::Op* local = def(op.operands[side]);
      const ir::Op* product = def(op.operands[1 - side]);
      if (!local || !product || local->kind != OpKind::workitem || local->workitem() != WorkItem::local_id ||
          product->kind != OpKind::binary || product->binary_op() != ir::BinaryOp::mul)
        continue;
      const unsigned d = local->dim();
      for (int p = 0; p < 2; ++p) {
        const ir::Op* group = def(product->operands[p]);
        if (!group || group->kind != OpKind::workitem || group->workitem() != WorkItem::group_id) continue;
        const unsigned g = group->dim();
        if (g == d && workitem(product->operands[1 - p], d) == WorkItem::local_size)
          return Id{static_cast<int>(d), static_cast<int>(d), 0};
        const ir::Op* c = def(product->operands[1 - p]);
        if (c && c->kind == OpKind::constant && ir::is_integer(kernel_.value_type(product->operands[1 - p])) &&
            c->get<ir::ConstantAttrs>().integer > 0)
          return Id{static_cast<int>(g), static_cast<int>(d), c->get<ir::ConstantAttrs>().integer};
      }
    }
    return std::nullopt;
  }

  std::optional<std::string> uniform_uncached(ValueId v, unsigned depth) {
    const ir::Op* op = def(v);
    if (!op) return fmt::format("a{}", v);  // a scalar parameter
    const std::string type = ir::type_name(kernel_.value_type(v));
    if (op->kind == OpKind::constant) {
      const auto& c = op->get<ir::ConstantAttrs>();
      return fmt::format("c.{}({},{})", type, c.integer, c.floating);
    }
    if (op->kind == OpKind::shape) return fmt::format("s({},{})", op->memory(), op->dim());
    if (op->kind == OpKind::workitem) {
      const WorkItem w = op->workitem();
      if (w != WorkItem::local_size && w != WorkItem::num_groups && w != WorkItem::global_size &&
          w != WorkItem::wave_size)
        return std::nullopt;
      return fmt::format("w{}({})", static_cast<int>(w), op->dim());
    }
    // Pure computations of uniform values.
    const bool family = op->kind == OpKind::binary || op->kind == OpKind::unary || op->kind == OpKind::compare;
    if (family || op->kind == OpKind::select || op->kind == OpKind::cast || op->kind == OpKind::bitcast) {
      std::string key =
          fmt::format("k{}.{}.{}(", static_cast<int>(op->kind), family ? static_cast<int>(op->member()) : -1, type);
      for (ValueId operand : op->operands) {
        std::optional<std::string> inner = uniform(operand, depth + 1);
        if (!inner) return std::nullopt;
        key += *inner + ",";
      }
      return key + ")";
    }
    return std::nullopt;
  }

  const ir::Kernel& kernel_;
  std::unordered_map<ValueId, std::optional<std::string>> uniform_;
};

}  // namespace

std::vector<RaceFreeArray> race_free_arrays(const ir::Kernel& kernel) {
  std::vector<RaceFreeArray> arrays(kernel.params.size());
  // one_item: the first site's (lanes, per-position keys); a later site must match.
  struct Site {
    unsigned lanes = 0;
    std::vector<std::string> keys;
  };
  std::vector<std::optional<Site>> first(kernel.params.size());
  std::vector<bool> one_item(kernel.params.size(), true);
  IndexKeys keys(kernel);
  ir::walk(kernel.body, [&](const ir::Op& op) {
    if (op.kind != OpKind::load && op.kind != OpKind::store && op.kind != OpKind::atomic) return;
    const ir::Memory& m = kernel.memories.at(op.memory());
    if (m.space != ir::MemorySpace::global || m.param_index < 0) return;
    const auto p = static_cast<size_t>(m.param_index);
    RaceFreeArray& a = arrays.at(p);
    a.accessed = true;
    a.written =
        a.written || op.kind == OpKind::store || (op.kind == OpKind::atomic && op.atomic_op() != ir::AtomicOp::load);
    if (!one_item[p]) return;
    if (op.kind == OpKind::atomic || m.layout == ir::Layout::strided) {
      one_item[p] = false;
      return;
    }
    Site site{ir::access_lanes(kernel, op), {}};
    std::vector<int8_t> dims, locals;
    std::vector<int64_t> bounds;
    unsigned used = 0, used_locals = 0;
    // The position whose index varies slowest (C: the first; F: the last). The others must be
    // plain ids (the launch checks they stay within their extents): a component that may exceed
    // its extent could reach another row's elements.
    const unsigned slowest = m.layout == ir::Layout::F ? m.rank - 1 : 0;
    for (unsigned d = 0; d < m.rank && one_item[p]; ++d) {
      if (auto inj = keys.injective(op.operands[d])) {
        if ((used & (1u << inj->dim)) || (used_locals & (1u << inj->local)) || (d != slowest && !inj->plain))
          one_item[p] = false;
        used |= 1u << inj->dim;
        used_locals |= 1u << inj->local;
        dims.push_back(static_cast<int8_t>(inj->dim));
        locals.push_back(static_cast<int8_t>(inj->local));
        bounds.push_back(inj->bound);
        site.keys.push_back(std::move(inj->key));
      } else if (auto u = keys.uniform(op.operands[d])) {
        dims.push_back(-1);
        locals.push_back(-1);
        bounds.push_back(0);
        site.keys.push_back(std::move(*u));
      } else {
        one_item[p] = false;
      }
    }
    if (!one_item[p] || used == 0) {
      one_item[p] = false;
      return;
    }
    if (!first[p]) {
      first[p] = std::move(site);
      a.position_dims = std::move(dims);  // the keys name them and the bounds: later sites have the same
      a.position_locals = std::move(locals);
      a.position_bounds = std::move(bounds);
      a.slowest_position = slowest;
      a.lanes = first[p]->lanes;
    } else if (first[p]->lanes != site.lanes || first[p]->keys != site.keys) {
      one_item[p] = false;
    }
  });
  for (size_t p = 0; p < arrays.size(); ++p) {
    RaceFreeArray& a = arrays[p];
    if (!a.accessed) continue;
    if (!a.written)
      a.rule = RaceFreeArray::Rule::read_only;
    else if (one_item[p])
      a.rule = RaceFreeArray::Rule::one_item;
    if (a.rule != RaceFreeArray::Rule::one_item) {
      a.position_dims.clear();
      a.position_locals.clear();
      a.position_bounds.clear();
    }
  }
  return arrays;
}

std::vector<HostRaceArray> host_race_arrays(const ir::Kernel& kernel) {
  const std::vector<RaceFreeArray> facts = race_free_arrays(kernel);
  const KernelAbi abi = kernel_abi(kernel);
  std::vector<HostRaceArray> out;
  for (const ir::Memory& m : kernel.memories) {
    if (m.space != ir::MemorySpace::global || m.param_index < 0) continue;
    const RaceFreeArray& f = facts.at(static_cast<size_t>(m.param_index));
    if (!f.accessed) continue;
    HostRaceArray a;
    a.param = m.param_index;
    a.pointer_argument = static_cast<uint32_t>(abi.first_of(static_cast<uint32_t>(m.param_index)));
    a.rank = m.rank;
    a.element_bytes = std::max(1u, ir::bit_width(m.element) / 8);
    a.strided = m.layout == ir::Layout::strided;
    a.written = f.written;
    a.rule = f.rule == RaceFreeArray::Rule::read_only  ? HostRaceArray::Rule::read_only
             : f.rule == RaceFreeArray::Rule::one_item ? HostRaceArray::Rule::one_item
                                                       : HostRaceArray::Rule::checked;
    a.position_dims = f.position_dims;
    a.slowest_position = f.slowest_position;
    a.lanes = f.lanes;
    a.position_locals = f.position_locals;
    a.position_bounds = f.position_bounds;
    out.push_back(std::move(a));
  }
  return out;
}

namespace {

// Where each op sits: its region's ops, its index there and the op owning the region (null at
// the kernel's body).
struct Place {
  const std::vector<std::unique_ptr<ir::Op>>* list = nullptr;
  size_t index = 0;
  const ir::Op* owner = nullptr;
};

void index_places(const ir::Region& r, const ir::Op* owner, std::unordered_map<const ir::Op*, Place>& places) {
  for (size_t i = 0; i < r.ops.size(); ++i) {
    places[r.ops[i].get()] = Place{&r.ops, i, owner};
    for (const ir::Region& sub : r.ops[i]->regions) index_places(sub, r.ops[i].get(), places);
  }
}

// Whether the op, or one nested in it, writes the storage of shared array `memory` or leaves its
// region early. Every dynamic shared array starts at the same address: a write to any of them
// writes the others' storage.
bool writes_or_jumps(const ir::Kernel& kernel, const ir::Op& op, ir::MemoryId memory) {
  const bool dynamic = kernel.memories.at(memory).dynamic;
  bool found = false;
  auto visit = [&](const ir::Op& o) {
    if (o.kind == OpKind::break_ || o.kind == OpKind::continue_ || o.kind == OpKind::return_) found = true;
    if ((o.kind == OpKind::store || o.kind == OpKind::atomic) &&
        (o.memory() == memory || (dynamic && kernel.memories.at(o.memory()).dynamic)))
      found = true;
  };
  visit(op);
  for (const ir::Region& sub : op.regions) ir::walk(sub, visit);
  return found;
}

}  // namespace

std::unordered_set<const ir::Op*> reads_without_interval_writes(const ir::Kernel& kernel) {
  std::unordered_map<const ir::Op*, Place> places;
  index_places(kernel.body, nullptr, places);
  std::unordered_set<const ir::Op*> reads;
  ir::walk(kernel.body, [&](const ir::Op& read) {
    if (read.kind != OpKind::load || kernel.memories.at(read.memory()).space != ir::MemorySpace::shared) return;
    const ir::MemoryId memory = read.memory();
    // Scan outwards from the read: backwards and forwards in each enclosing region until a
    // barrier at that level (one every work-item passes); a loop around the read is taken whole
    // (its other iterations may share the interval). Any write of the array on the way: no.
    bool back_open = true, forward_open = true;
    const ir::Op* at = &read;
    while (back_open || forward_open) {
      const Place& p = places.at(at);
      const auto& list = *p.list;
      if (back_open)
        for (size_t j = p.index; j-- > 0;) {
          if (list[j]->kind == OpKind::barrier) {
            back_open = false;
            break;
          }
          if (writes_or_jumps(kernel, *list[j], memory)) return;
        }
      if (forward_open)
        for (size_t j = p.index + 1; j < list.size(); ++j) {
          if (list[j]->kind == OpKind::barrier) {
            forward_open = false;
            break;
          }
          if (writes_or_jumps(kernel, *list[j], memory)) return;
        }
      if (!p.owner) break;  // the kernel's start and end bound the interval
      // A loop taken round: an open direction reaches every part of it (other iterations, a
      // while's condition and step). An if: the open directions go on after it.
      if ((p.owner->kind == OpKind::for_ || p.owner->kind == OpKind::while_) && (back_open || forward_open) &&
          writes_or_jumps(kernel, *p.owner, memory))
        return;
      at = p.owner;
    }
    reads.insert(&read);
  });
  return reads;
}

}  // namespace rocjit::passes

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

using Places = std::unordered_map<const ir::Op*, Place>;

void index_places(const ir::Region& r, const ir::Op* owner, Places& places) {
  for (size_t i = 0; i < r.ops.size(); ++i) {
    places[r.ops[i].get()] = Place{&r.ops, i, owner};
    for (const ir::Region& sub : r.ops[i]->regions) index_places(sub, r.ops[i].get(), places);
  }
}

// The first barrier after `op`, in its region or, past the end of an if's branch, after the if
// (not out of a loop: a barrier there may come before some iteration's `op`); null if none.
const ir::Op* next_barrier(const Places& places, const ir::Op& op) {
  for (const ir::Op* at = &op;;) {
    const Place& p = places.at(at);
    for (size_t j = p.index + 1; j < p.list->size(); ++j)
      if ((*p.list)[j]->kind == OpKind::barrier) return (*p.list)[j].get();
    if (!p.owner || p.owner->kind != OpKind::if_) return nullptr;
    at = p.owner;
  }
}

bool is_access(const ir::Op& o) {
  return o.kind == OpKind::load || o.kind == OpKind::store || o.kind == OpKind::atomic;
}
bool writes(const ir::Op& o) {
  return o.kind == OpKind::store || (o.kind == OpKind::atomic && o.atomic_op() != ir::AtomicOp::load);
}

// The accesses of shared array `memory`'s storage (every dynamic shared array starts at the same
// address: for a dynamic one, any dynamic array's) that may run between the same two barriers of
// a group as `site` (site itself not included), or none when a Break, Continue or Return is on
// the way. Scanned outwards from the site: backwards and forwards in each enclosing region until
// a barrier at that level (one every work-item passes); an if's other branch whole (other
// work-items may take it); a For's previous iteration from the end of its body and its next one
// from the start, up to a barrier at the body's level; a While whole. Barriers nested deeper
// (under an if, in a loop the scan takes whole) do not divide.
class Intervals {
 public:
  Intervals(const ir::Kernel& k, const Places& places) : kernel_(k), places_(places) {}

  std::optional<std::vector<const ir::Op*>> around(const ir::Op& site) {
    const ir::MemoryId memory = site.memory();
    const bool dynamic = kernel_.memories.at(memory).dynamic;
    std::vector<const ir::Op*> found;
    bool ok = true;
    auto take = [&](const ir::Op& op) {
      auto visit = [&](const ir::Op& o) {
        if (o.kind == OpKind::break_ || o.kind == OpKind::continue_ || o.kind == OpKind::return_) ok = false;
        if (is_access(o) && &o != &site &&
            (o.memory() == memory || (dynamic && kernel_.memories.at(o.memory()).dynamic)))
          found.push_back(&o);
      };
      visit(op);
      for (const ir::Region& sub : op.regions) ir::walk(sub, visit);
    };
    // Scans list[from], list[from - 1], ... (or forwards) until a barrier; false when it met one.
    auto scan = [&](const std::vector<std::unique_ptr<ir::Op>>& list, size_t from, size_t to, bool backwards) {
      for (size_t n = 0; n < to; ++n) {
        const ir::Op& o = *list[backwards ? from - n : from + n];
        if (o.kind == OpKind::barrier) return false;
        take(o);
      }
      return true;
    };
    bool back_open = true, forward_open = true;
    const ir::Op* at = &site;
    while (ok && (back_open || forward_open)) {
      const Place& p = places_.at(at);
      const auto& list = *p.list;
      if (back_open && p.index > 0) back_open = scan(list, p.index - 1, p.index, true);
      if (forward_open && p.index + 1 < list.size())
        forward_open = scan(list, p.index + 1, list.size() - p.index - 1, false);
      if (!p.owner) break;  // the kernel's start and end bound the interval
      const ir::Op& owner = *p.owner;
      if (owner.kind == OpKind::if_) {
        for (const ir::Region& r : owner.regions)
          if (&r.ops != p.list)
            for (const auto& o : r.ops) take(*o);
      } else if (owner.kind == OpKind::for_) {
        // The previous iteration's end and the next one's start (the scans above reached this
        // list's ends in the open directions; the loop may also be entered or left there). A
        // scan that meets no barrier reaches the op holding the site in the other iteration:
        // all of it then (parts of it beyond a barrier nested there are in the interval too).
        bool whole = false;
        if (back_open) whole |= scan(list, list.size() - 1, list.size() - p.index - 1, true);
        if (forward_open) whole |= scan(list, 0, p.index, false);
        if (whole && at != &site) take(*at);
      } else if (back_open || forward_open) {
        take(owner);  // a While: its condition, body and step whole
      }
      at = p.owner;
    }
    if (!ok) return std::nullopt;
    return found;
  }

 private:
  const ir::Kernel& kernel_;
  const Places& places_;
};

// Which elements of its array an access touches, per work-item of a group of a known shape: the
// indices evaluated for every work-item from what is known without running the kernel (constants,
// local ids and sizes, the lane and wave size, For counters with known bounds), under the enclosing
// if conditions that are known. `unknown` when any index is not (or is outside the array).
class LocalElements {
 public:
  LocalElements(const ir::Kernel& k, const Places& places, std::array<int64_t, 3> block, unsigned wave)
      : kernel_(k), places_(places), block_(block), wave_(wave) {}

  struct Touches {
    bool unknown = false;
    bool exact = true;  // every enclosing if's condition known for every work-item
    std::vector<std::pair<int64_t, int32_t>> items;  // (element, work-item)
  };

  // `loops`: For counters with known bounds take each of their values; else every counter is
  // unknown (the elements one pass over the access's region touches, whatever iteration).
  const Touches& of(const ir::Op& access, bool loops = true) {
    auto [it, fresh] = (loops ? cache_ : single_cache_).try_emplace(&access);
    if (fresh) {
      enumerate_loops_ = loops;
      it->second = compute(access);
    }
    return it->second;
  }

 private:
  static constexpr uint64_t budget = 1u << 24;        // value evaluations per kernel
  static constexpr size_t max_touches = 1u << 20;     // per access
  static constexpr int64_t max_iterations = 4096;     // per For, per work-item

  struct Level {
    const ir::Op* owner;
    unsigned region;
  };

  Touches compute(const ir::Op& access) {
    Touches out;
    const ir::Memory& m = kernel_.memories.at(access.memory());
    if (m.dynamic || m.shape.size() != m.rank || m.layout == ir::Layout::strided) {
      out.unknown = true;
      return out;
    }
    std::vector<Level> path;
    for (const ir::Op* at = &access;;) {
      const Place& p = places_.at(at);
      if (!p.owner) break;
      unsigned r = 0;
      while (&p.owner->regions[r].ops != p.list) ++r;
      path.push_back({p.owner, r});
      at = p.owner;
    }
    std::reverse(path.begin(), path.end());
    const unsigned lanes = ir::access_lanes(kernel_, access);
    for (int64_t z = 0; z < block_[2] && !out.unknown; ++z)
      for (int64_t y = 0; y < block_[1] && !out.unknown; ++y)
        for (int64_t x = 0; x < block_[0] && !out.unknown; ++x) {
          id_ = {x, y, z};
          item_ = x + block_[0] * (y + block_[1] * z);
          bound_.clear();
          visit(path, 0, access, m, lanes, out);
        }
    if (out.unknown) out.items.clear();
    return out;
  }

  void visit(const std::vector<Level>& path, size_t level, const ir::Op& access, const ir::Memory& m, unsigned lanes,
             Touches& out) {
    if (out.unknown) return;
    if (level == path.size()) {
      int64_t element = 0;
      for (unsigned d = 0; d < m.rank; ++d) {
        const unsigned pos = m.layout == ir::Layout::F ? m.rank - 1 - d : d;
        const std::optional<int64_t> i = eval(access.operands[pos]);
        if (!i || *i < 0 || *i >= m.shape[pos]) {
          out.unknown = true;
          return;
        }
        element = element * m.shape[pos] + *i;
      }
      if ((element + 1) * lanes > m.element_count()) {  // a vector past the end
        out.unknown = true;
        return;
      }
      for (unsigned l = 0; l < lanes; ++l) out.items.emplace_back(element * lanes + l, static_cast<int32_t>(item_));
      if (out.items.size() > max_touches) out.unknown = true;
      return;
    }
    const ir::Op& owner = *path[level].owner;
    if (owner.kind == OpKind::if_) {
      const std::optional<int64_t> c = eval(owner.operands[0]);
      if (!c) out.exact = false;
      if (c && (*c != 0) != (path[level].region == 0)) return;  // this work-item takes the other branch
      visit(path, level + 1, access, m, lanes, out);
    } else if (owner.kind == OpKind::for_) {
      const std::optional<int64_t> from = eval(owner.operands[0]), to = eval(owner.operands[1]),
                                   step = eval(owner.operands[2]);
      if (!enumerate_loops_ || !from || !to || !step || *step <= 0 ||
          (*to > *from && (*to - *from) / *step >= max_iterations)) {
        visit(path, level + 1, access, m, lanes, out);  // its counter stays unknown
        return;
      }
      for (int64_t v = *from; v < *to && !out.unknown; v += *step) {
        bound_[owner.result] = v;
        visit(path, level + 1, access, m, lanes, out);
      }
      bound_.erase(owner.result);
    } else {
      visit(path, level + 1, access, m, lanes, out);  // a While: its values stay unknown
    }
  }

  // The value of an integer or i1 `v` for the current work-item, as the interpreter computes it
  // (two's complement, wrapping; i1 as 0 or 1), or none.
  std::optional<int64_t> eval(ValueId v, unsigned depth = 0) {
    if (++spent_ > budget || depth > 64) return std::nullopt;
    if (auto it = bound_.find(v); it != bound_.end()) return it->second;
    const ir::Op* op = kernel_.values.at(v).def;
    if (!op) return std::nullopt;  // a scalar parameter
    const ir::Type t = kernel_.value_type(v);
    if (t.lanes != 1 || !(t.is_integer() || t.is_bool())) return std::nullopt;
    auto wrap = [&](int64_t x) -> int64_t {
      const unsigned w = ir::bit_width(t);
      if (w >= 64) return x;
      const uint64_t low = static_cast<uint64_t>(x) & ((uint64_t{1} << w) - 1);
      if (t.is_signed_int() && (low >> (w - 1) & 1)) return static_cast<int64_t>(low | ~((uint64_t{1} << w) - 1));
      return static_cast<int64_t>(low);
    };
    auto operand = [&](unsigned i) { return eval(op->operands[i], depth + 1); };
    if (op->kind == OpKind::constant) return wrap(op->get<ir::ConstantAttrs>().integer);
    if (op->kind == OpKind::uniform) return operand(0);
    if (op->kind == OpKind::workitem) {
        const unsigned d = op->dim();
        switch (op->workitem()) {
          case WorkItem::local_id: return d < 3 ? std::optional<int64_t>(id_[d]) : std::nullopt;
          case WorkItem::local_size: return d < 3 ? std::optional<int64_t>(block_[d]) : std::nullopt;
          case WorkItem::lane_id: return item_ % wave_;
          case WorkItem::wave_size: return wave_;
          case WorkItem::group_id: case WorkItem::num_groups: case WorkItem::global_id: case WorkItem::global_size:
            return std::nullopt;
        }
      return std::nullopt;
    }
    if (op->kind == OpKind::cast) {
        const ir::Type from = kernel_.value_type(op->operands[0]);
        if (!(from.is_integer() || from.is_bool()) || !t.is_integer()) return std::nullopt;  // to i1: not needed
        const std::optional<int64_t> x = operand(0);
        return x ? std::optional<int64_t>(wrap(*x)) : std::nullopt;
    }
    if (op->kind == OpKind::select) {
        const std::optional<int64_t> c = operand(0);
        if (!c) return std::nullopt;
        return operand(*c ? 1 : 2);
    }
    if (op->kind == OpKind::compare) {
        const ir::Type ot = kernel_.value_type(op->operands[0]);
        if (!(ot.is_integer() || ot.is_bool()) || ot.lanes != 1) return std::nullopt;
        const std::optional<int64_t> a = operand(0), b = operand(1);
        if (!a || !b) return std::nullopt;
        // Values are kept sign-extended for signed types and zero-extended otherwise, so int64_t
        // order is the type's order for both (u64 values up to 2^63 only: larger ones are none).
        if (!ot.is_signed_int() && (*a < 0 || *b < 0)) return std::nullopt;
        switch (op->pred()) {
          case ir::ComparePred::eq: return *a == *b;
          case ir::ComparePred::ne: return *a != *b;
          case ir::ComparePred::lt: return *a < *b;
          case ir::ComparePred::le: return *a <= *b;
          case ir::ComparePred::gt: return *a > *b;
          case ir::ComparePred::ge: return *a >= *b;
        }
        return std::nullopt;
    }
    if (op->kind == OpKind::unary) {
        const std::optional<int64_t> a = operand(0);
        if (!a) return std::nullopt;
        switch (op->unary_op()) {
          case ir::UnaryOp::neg: return t.is_bool() ? std::nullopt : std::optional<int64_t>(wrap(int64_t(0 - uint64_t(*a))));
          case ir::UnaryOp::not_: return t.is_bool() ? int64_t(*a == 0) : wrap(~*a);
          case ir::UnaryOp::abs: return std::nullopt;
        }
        return std::nullopt;
    }
    if (op->kind == OpKind::binary) {
        const std::optional<int64_t> a = operand(0), b = operand(1);
        if (!a || !b) return std::nullopt;
        if (!t.is_signed_int() && (*a < 0 || *b < 0)) return std::nullopt;  // u64 beyond 2^63
        const uint64_t ua = static_cast<uint64_t>(*a), ub = static_cast<uint64_t>(*b);
        switch (op->binary_op()) {
          case ir::BinaryOp::add: return wrap(static_cast<int64_t>(ua + ub));
          case ir::BinaryOp::sub: return wrap(static_cast<int64_t>(ua - ub));
          case ir::BinaryOp::mul: return wrap(static_cast<int64_t>(ua * ub));
          case ir::BinaryOp::div: case ir::BinaryOp::rem:
            if (*b <= 0 || *a < 0) return std::nullopt;  // zero and signs: left to the kernel
            return op->binary_op() == ir::BinaryOp::div ? *a / *b : *a % *b;
          case ir::BinaryOp::min: return std::min(*a, *b);
          case ir::BinaryOp::max: return std::max(*a, *b);
          case ir::BinaryOp::and_: return wrap(*a & *b);
          case ir::BinaryOp::or_: return wrap(*a | *b);
          case ir::BinaryOp::xor_: return wrap(*a ^ *b);
          case ir::BinaryOp::shl: case ir::BinaryOp::shr:
            if (*b < 0 || *b >= ir::bit_width(t) || *a < 0) return std::nullopt;
            return op->binary_op() == ir::BinaryOp::shl ? wrap(static_cast<int64_t>(ua << *b)) : *a >> *b;
        }
        return std::nullopt;
    }
    return std::nullopt;  // loads, variables, wave operations, ...
  }

  const ir::Kernel& kernel_;
  const Places& places_;
  std::array<int64_t, 3> block_;
  int64_t wave_;
  std::unordered_map<const ir::Op*, Touches> cache_, single_cache_;
  bool enumerate_loops_ = true;
  std::array<int64_t, 3> id_{};
  int64_t item_ = 0;
  std::unordered_map<ValueId, int64_t> bound_;
  uint64_t spent_ = 0;
};

// Whether two accesses of one element by different work-items, unordered, would be a race.
bool conflicting(const ir::Op& a, const ir::Op& b) {
  return (writes(a) || writes(b)) && !(a.kind == OpKind::atomic && b.kind == OpKind::atomic);
}

// What the three proofs share for one kernel: its op index, the intervals, and (for a work-group
// shape of at most 4,096 work-items) the per-work-item elements with their memo of each access.
struct Analysis {
  Analysis(const ir::Kernel& k, const std::optional<std::array<int64_t, 3>>& block, unsigned wave_size)
      : kernel(k), intervals(k, places) {
    index_places(k.body, nullptr, places);
    if (block && block->at(0) > 0 && block->at(1) > 0 && block->at(2) > 0 &&
        block->at(0) * block->at(1) * block->at(2) <= 4096)
      elements.emplace(k, places, *block, wave_size);
  }
  const ir::Kernel& kernel;
  Places places;
  Intervals intervals;
  std::optional<LocalElements> elements;
};

std::unordered_set<const ir::Op*> interval_free_of(Analysis& a) {
  const ir::Kernel& kernel = a.kernel;
  // Relaxed atomics qualify only in kernels without acquire or release: the checker's clocks then
  // never need what an atomic's hook records.
  bool synchronises = false;
  ir::walk(kernel.body, [&](const ir::Op& o) {
    if ((o.kind == OpKind::atomic || o.kind == OpKind::fence) && o.order() != ir::MemoryOrder::relaxed)
      synchronises = true;
  });
  std::unordered_set<const ir::Op*> out;
  ir::walk(kernel.body, [&](const ir::Op& site) {
    if (!is_access(site)) return;
    const ir::Memory& m = kernel.memories.at(site.memory());
    if (m.space != ir::MemorySpace::shared) return;
    if (site.kind == OpKind::atomic && (synchronises || site.order() != ir::MemoryOrder::relaxed)) return;
    const auto around = a.intervals.around(site);
    if (!around) return;
    std::vector<const ir::Op*> others;
    if (conflicting(site, site)) others.push_back(&site);  // the site itself, by other work-items
    for (const ir::Op* o : *around)
      if (conflicting(site, *o)) others.push_back(o);
    if (!others.empty()) {
      if (!a.elements) return;
      const LocalElements::Touches& mine = a.elements->of(site);
      if (mine.unknown) return;
      // Per element: the one work-item the other access touches it from, or -1 for several.
      std::vector<int32_t> owner;
      for (const ir::Op* o : others) {
        const LocalElements::Touches& theirs = a.elements->of(*o);
        if (theirs.unknown) return;
        owner.assign(static_cast<size_t>(m.element_count()), -2);
        for (auto [e, item] : theirs.items) {
          int32_t& w = owner[static_cast<size_t>(e)];
          w = w == -2 || w == item ? item : -1;
        }
        for (auto [e, item] : mine.items) {
          const int32_t w = owner[static_cast<size_t>(e)];
          if (w != -2 && w != item) return;
        }
      }
    }
    out.insert(&site);
  });
  return out;
}

std::unordered_map<const ir::Op*, std::vector<ir::MemoryId>> fills_of(Analysis& a) {
  const ir::Kernel& kernel = a.kernel;
  std::unordered_map<const ir::Op*, std::vector<ir::MemoryId>> out;
  if (!a.elements) return out;
  bool jumps = false;
  ir::walk(kernel.body, [&](const ir::Op& o) {
    jumps = jumps || o.kind == OpKind::break_ || o.kind == OpKind::continue_ || o.kind == OpKind::return_;
  });
  if (jumps) return out;  // a work-item could leave before the store
  ir::walk(kernel.body, [&](const ir::Op& store) {
    if (store.kind != OpKind::store) return;
    const ir::Memory& m = kernel.memories.at(store.memory());
    if (m.space != ir::MemorySpace::shared || m.dynamic) return;
    const ir::Op* barrier = next_barrier(a.places, store);
    if (!barrier) return;
    // Every work-item's elements, the same in every iteration of the loops around (their
    // counters unknown), exactly (every if on the way known): together, all of the array.
    const LocalElements::Touches& t = a.elements->of(store, false);
    if (t.unknown || !t.exact) return;
    std::vector<bool> written(static_cast<size_t>(m.element_count()));
    for (auto [e, item] : t.items) written[static_cast<size_t>(e)] = true;
    if (std::find(written.begin(), written.end(), false) != written.end()) return;
    std::vector<ir::MemoryId>& arrays = out[barrier];
    if (std::find(arrays.begin(), arrays.end(), store.memory()) == arrays.end()) arrays.push_back(store.memory());
  });
  return out;
}

std::unordered_set<const ir::Op*> unstamped_of(Analysis& a, const std::unordered_set<const ir::Op*>& interval_free,
                                               const std::unordered_map<const ir::Op*, std::vector<ir::MemoryId>>& fills) {
  const ir::Kernel& kernel = a.kernel;
  std::unordered_set<const ir::Op*> out;
  if (fills.empty()) return out;
  std::unordered_set<ir::MemoryId> filled, all_free;
  for (const auto& [barrier, arrays] : fills) filled.insert(arrays.begin(), arrays.end());
  for (ir::MemoryId id : filled) all_free.insert(id);
  ir::walk(kernel.body, [&](const ir::Op& o) {
    if (is_access(o) && !interval_free.count(&o)) all_free.erase(o.memory());
  });
  if (all_free.empty()) return out;
  ir::walk(kernel.body, [&](const ir::Op& store) {
    if (store.kind != OpKind::store || !all_free.count(store.memory())) return;
    // Its next barrier must fill its array.
    const ir::Op* barrier = next_barrier(a.places, store);
    const auto it = barrier ? fills.find(barrier) : fills.end();
    if (it == fills.end() || std::find(it->second.begin(), it->second.end(), store.memory()) == it->second.end())
      return;
    const auto around = a.intervals.around(store);
    if (around && std::all_of(around->begin(), around->end(), [](const ir::Op* o) { return o->kind == OpKind::store; }))
      out.insert(&store);
  });
  return out;
}

}  // namespace

std::unordered_set<const ir::Op*> interval_race_free(const ir::Kernel& kernel,
                                                     const std::optional<std::array<int64_t, 3>>& block,
                                                     unsigned wave_size) {
  Analysis a(kernel, block, wave_size);
  return interval_free_of(a);
}

std::unordered_map<const ir::Op*, std::vector<ir::MemoryId>> shared_fills(const ir::Kernel& kernel,
                                                                          const std::array<int64_t, 3>& block,
                                                                          unsigned wave_size) {
  Analysis a(kernel, block, wave_size);
  return fills_of(a);
}

std::unordered_set<const ir::Op*> unchecked_stores(
    const ir::Kernel& kernel, const std::unordered_set<const ir::Op*>& interval_free,
    const std::unordered_map<const ir::Op*, std::vector<ir::MemoryId>>& fills) {
  Analysis a(kernel, std::nullopt, 0);
  return unstamped_of(a, interval_free, fills);
}

RaceProofs race_proofs(const ir::Kernel& kernel, const std::optional<std::array<int64_t, 3>>& block,
                       unsigned wave_size) {
  Analysis a(kernel, block, wave_size);
  RaceProofs out;
  out.interval_free = interval_free_of(a);
  out.fills = fills_of(a);
  out.unstamped = unstamped_of(a, out.interval_free, out.fills);
  return out;
}

}  // namespace rocjit::passes

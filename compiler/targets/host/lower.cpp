// Host lowering with barrier fission (PoCL's work-item loops on rocjit's structured IR).
//
// The body is split into barrier-free regions ("segments"); each becomes a loop nest over the
// group's work-items (x fastest). Ops that contain a barrier, or a Break leaving them, stay at
// group level: their conditions and bounds are work-group uniform (the verifier's rule), so
// work-item 0's value stands for the group. Values used outside the segment that defined them,
// and variables and local arrays touched by several segments, live in per-work-item storage.
//
// Wave operations need only wave-uniform control. A group-level If/For/While whose control may
// differ between work-items (passes::analyze_uniformity; it then holds no barrier, only wave
// operations) runs wave by wave: a loop over the group's waves, inside which the op is lowered
// like group-level code whose segments loop over the wave's work-items only and whose
// conditions are the wave's first work-item's. A Return() in such an op marks its work-items
// returned, one flag each, and later segments skip them.
#include "targets/host/lower.h"

#include <fmt/format.h>

#include "rocjit/compiler/error.hpp"

#include <algorithm>
#include <bit>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "rocjit/compiler/host.hpp"
#include "rocjit/compiler/kernel_abi.hpp"
#include "rocjit/compiler/mma.hpp"
#include "rocjit/compiler/semantics.hpp"
#include "passes/race_free.h"
#include "passes/uniformity.h"
#include "targets/host/alias_scopes.h"
#include "targets/host/group_guards.h"
#include "targets/host/launch_context.h"
#include "targets/lowering.h"

namespace rocjit::targets::host {
namespace {

using ir::OpKind;
constexpr int group_segment = -1;

bool is_loop(const ir::Op& op) { return op.kind == OpKind::for_ || op.kind == OpKind::while_; }

// Synchronisation points (barrier, wavebarrier: the op registry's sync scope) end a segment.
bool contains_barrier(const ir::Op& op) {
  if (ir::is_sync_point(op)) return true;
  bool found = false;
  for (const auto& r : op.regions) ir::walk(r, [&](const ir::Op& o) { found |= ir::is_sync_point(o); });
  return found;
}

// True when a Break or Continue inside `op` leaves `op` itself (targets a loop outside it).
bool jump_escapes(const ir::Op& op, int depth = 0) {
  if (op.kind == OpKind::break_ || op.kind == OpKind::continue_) return depth == 0;
  int inner = depth + (is_loop(op) ? 1 : 0);
  for (const auto& r : op.regions)
    for (const auto& sub : r.ops)
      if (jump_escapes(*sub, inner)) return true;
  return false;
}

bool group_level(const ir::Op& op) { return contains_barrier(op) || jump_escapes(op); }

bool has_return(const ir::Region& body) {
  bool found = false;
  ir::walk(body, [&](const ir::Op& o) { found |= o.kind == OpKind::return_; });
  return found;
}

class HostLowering : public KernelLowering {
 public:
  HostLowering(const ir::Kernel& k, llvm::Module& m, bool bounds_check, const std::array<int32_t, 3>& block,
               const Settings& settings)
      : KernelLowering(k, m, settings),
        bounds_check_(bounds_check),
        divergent_control_(passes::analyze_uniformity(k).divergent_control),
        fixed_block_(block) {}

  HostModule run(const std::string& name) {
    plan();
    HostModule out;
    out.function_name = name;
    out.argument_names = argument_names();
    out.region_count = static_cast<unsigned>(segment_in_loop_.size());
    out.storage_bytes_per_work_item = storage_per_item_;
    out.shared_bytes = shared_total_;

    auto* ptr = builder_.getPtrTy();
    auto* i64 = builder_.getInt64Ty();
    auto* fty = llvm::FunctionType::get(builder_.getVoidTy(), {ptr, ptr, i64, i64}, false);
    auto* f = llvm::Function::Create(fty, llvm::GlobalValue::ExternalLinkage, name, module_);
    f->addFnAttr(llvm::Attribute::NoUnwind);
    f->addFnAttr("no-trapping-math", "true");
    llvm::Argument* args = f->getArg(0);
    llvm::Argument* context = f->getArg(1);
    auto* entry = llvm::BasicBlock::Create(context_, "entry", f);
    builder_.SetInsertPoint(entry);
    begin_line_table(f);

    auto field = [&](llvm::Type* t, unsigned offset, const char* n) -> llvm::Value* {
      auto* load = builder_.CreateLoad(t, builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), context, offset), n);
      load->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(context_, {}));
      return load;
    };
    for (unsigned d = 0; d < 3; ++d)
      block_[d] = fixed_block_[0] > 0 ? static_cast<llvm::Value*>(builder_.getInt32(fixed_block_[d]))
                                      : field(builder_.getInt32Ty(), 4 * d, "block");
    for (unsigned d = 0; d < 3; ++d) grid_[d] = field(builder_.getInt32Ty(), 12 + 4 * d, "grid");
    shared_ = field(ptr, offsetof(LaunchContext, shared), "shared");
    storage_ = field(ptr, offsetof(LaunchContext, storage), "storage");
    report_ = field(ptr, offsetof(LaunchContext, report), "report");
    report_state_ = field(ptr, offsetof(LaunchContext, report_state), "report_state");
    scratch_ = field(ptr, offsetof(LaunchContext, scratch), "scratch");
    if (check_races) {
      race_access_ = field(ptr, offsetof(LaunchContext, race_access), "race_access");
      race_sync_ = field(ptr, offsetof(LaunchContext, race_sync), "race_sync");
      race_state_ = field(ptr, offsetof(LaunchContext, race_state), "race_state");
      race_fast_ = field(ptr, offsetof(LaunchContext, race_fast), "race_fast");
      // What the inline checks read that stays fixed for the launch.
      auto fast_field = [&](llvm::Type* t, unsigned offset, const char* n) -> llvm::Value* {
        auto* load = builder_.CreateLoad(t, builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), race_fast_, offset), n);
        load->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(context_, {}));
        return load;
      };
      race_shared_ = fast_field(ptr, offsetof(HostRaceFast, shared), "race.shared");
      race_shared_cells_ = fast_field(i64, offsetof(HostRaceFast, shared_cells), "race.shared_cells");
      race_shared_shadow_ = fast_field(ptr, offsetof(HostRaceFast, shared_shadow), "race.shared_shadow");
      race_top_ = fast_field(ptr, offsetof(HostRaceFast, global_top), "race.top");
      race_granule_shift_ = builder_.CreateZExt(
          fast_field(builder_.getInt32Ty(), offsetof(HostRaceFast, granule_shift), "race.granule_shift"), i64);
      race_unchecked_ = fast_field(i64, offsetof(HostRaceFast, unchecked), "race.unchecked");
      // The arrays a launch may leave unchecked (passes/race_free.h decides which, RaceLaunch when).
      out.race_arrays = passes::host_race_arrays(kernel_);
      for (const HostRaceArray& a : out.race_arrays)
        if (a.rule != HostRaceArray::Rule::checked && a.param < 64) race_may_skip_ |= uint64_t{1} << a.param;
      // Shared accesses nothing of their barrier interval conflicts with (passes/race_free.h),
      // for the work-group shape compiled for when there is one.
      std::optional<std::array<int64_t, 3>> shape;
      if (fixed_block_[0] > 0) shape = std::array<int64_t, 3>{fixed_block_[0], fixed_block_[1], fixed_block_[2]};
      passes::RaceProofs proofs = passes::race_proofs(kernel_, shape, host_wave_size);
      race_interval_free_ = std::move(proofs.interval_free);
      race_fills_ = std::move(proofs.fills);
      race_unstamped_ = std::move(proofs.unstamped);
      ir::walk(kernel_.body, [&](const ir::Op& o) {
        if ((o.kind == OpKind::atomic || o.kind == OpKind::fence) && o.order() != ir::MemoryOrder::relaxed)
          race_releases_ = true;
      });
      // Of their static shared arrays, the ones whose such accesses a launch stops checking once
      // the group has written every element (HostRaceShared): bit i of the group's
      // `initialized`, reloaded after each barrier (race_sync) into a variable LLVM keeps in a
      // register.
      std::vector<bool> interval_free(kernel_.memories.size());
      for (const ir::Op* site : race_interval_free_) interval_free[site->memory()] = true;
      for (ir::MemoryId id = 0; id < kernel_.memories.size() && out.race_shared.size() < 64; ++id) {
        const ir::Memory& m = kernel_.memories[id];
        if (!interval_free[id] || m.dynamic || m.space != ir::MemorySpace::shared) continue;
        race_shared_bit_[id] = static_cast<unsigned>(out.race_shared.size());
        out.race_shared.push_back({static_cast<uint32_t>(memory_offset_[id]),
                                   static_cast<uint32_t>(m.element_count() * ir::byte_size(m.element)),
                                   static_cast<uint32_t>(ir::byte_size(m.element))});
      }
      // A store goes without its stamp only when its array has a filled bit (past 64 arrays none:
      // their reads keep testing the stamps).
      std::erase_if(race_unstamped_, [&](const ir::Op* o) { return !race_shared_bit_.count(o->memory()); });
      // The fields that change only in the hooks (contexts, floors, filled arrays): variables
      // reloaded after each call (race_reload), which LLVM keeps in registers between the calls.
      for (auto& [var, offset, n] : std::initializer_list<std::tuple<llvm::Value**, size_t, const char*>>{
               {&race_context_, offsetof(HostRaceFast, context), "race.context"},
               {&race_first_, offsetof(HostRaceFast, group_first), "race.first"},
               {&race_barrier_floor_, offsetof(HostRaceFast, barrier_floor), "race.floor"},
               {&race_global_floor_, offsetof(HostRaceFast, global_floor), "race.global_floor"},
               {&race_initialized_, offsetof(HostRaceFast, initialized), "race.initialized"}}) {
        *var = builder_.CreateAlloca(i64, nullptr, n);  // in the entry block
        race_reloaded_.emplace_back(*var, offset);
      }
    }
    threads_ = builder_.CreateZExt(builder_.CreateNUWMul(builder_.CreateNUWMul(block_[0], block_[1]), block_[2]), i64);

    std::vector<llvm::Value*> values;
    auto types = argument_types(0);
    for (size_t j = 0; j < types.size(); ++j) {
      llvm::Value* slot = builder_.CreateLoad(ptr, builder_.CreateConstInBoundsGEP1_64(ptr, args, j));
      values.push_back(builder_.CreateLoad(types[j], slot, out.argument_names[j]));
    }
    bind_arguments(values);
    for (ir::MemoryId m = 0; m < kernel_.memories.size(); ++m)
      if (kernel_.memories[m].space == ir::MemorySpace::global) alias_scopes_.record(array_base(m), AliasScopes::arrays);
    create_slots();

    // for (g = begin; g < end; ++g): one work-group per iteration.
    llvm::Value* begin = f->getArg(2);
    llvm::Value* end = f->getArg(3);
    auto* header = llvm::BasicBlock::Create(context_, "group.header", f);
    auto* body = llvm::BasicBlock::Create(context_, "group.body", f);
    group_next_ = llvm::BasicBlock::Create(context_, "group.next", f);
    auto* exit = llvm::BasicBlock::Create(context_, "group.exit", f);
    // Set when a work-item of the group executes Return(): the segments after the one it
    // returned in are skipped (the uniformity rule guarantees none follows a divergent Return).
    if (has_return(kernel_.body)) returned_ = entry_alloca(builder_.getInt1Ty(), nullptr, "returned", 0);
    builder_.CreateBr(header);
    builder_.SetInsertPoint(header);
    llvm::PHINode* g = builder_.CreatePHI(i64, 2, "group");
    group_linear_ = g;
    g->addIncoming(begin, entry);
    builder_.CreateCondBr(builder_.CreateICmpSLT(g, end), body, exit);
    builder_.SetInsertPoint(body);
    if (returned_) builder_.CreateStore(builder_.getFalse(), returned_);
    if (wave_returns_)
      builder_.CreateMemSet(storage_address(item_returned_offset_, 1), builder_.getInt8(0), threads_, llvm::MaybeAlign(8));
    llvm::Value* gx64 = builder_.CreateZExt(grid_[0], i64);
    llvm::Value* gy64 = builder_.CreateZExt(grid_[1], i64);
    group_[0] = builder_.CreateTrunc(builder_.CreateURem(g, gx64), builder_.getInt32Ty(), "group.x");
    llvm::Value* rest = builder_.CreateUDiv(g, gx64);
    group_[1] = builder_.CreateTrunc(builder_.CreateURem(rest, gy64), builder_.getInt32Ty(), "group.y");
    group_[2] = builder_.CreateTrunc(builder_.CreateUDiv(rest, gy64), builder_.getInt32Ty(), "group.z");
    race_sync(HostSync::group_begin, nullptr, nullptr);  // the inline checks read the group's contexts
    region(kernel_.body);
    builder_.CreateBr(group_next_);
    builder_.SetInsertPoint(group_next_);
    llvm::Value* next = builder_.CreateNSWAdd(g, builder_.getInt64(1));
    g->addIncoming(next, group_next_);
    builder_.CreateBr(header);
    builder_.SetInsertPoint(exit);
    builder_.CreateRetVoid();
    end_line_table();
    alias_scopes_.annotate(*f, kernel_);
    out.checks = std::move(checks_);
    return out;
  }

 protected:
  // ---- guards that hold for a whole work-group ------------------------------------------------
  // Which guards a region has is GuardAnalysis's (group_guards.h); here, at group level, the
  // check whether they hold for every work-item, after which flush() runs the region's copy with
  // the guards taken as true, or the copy as written.

 public:
  bool version_guards = false;
  // Race checking: a region's copy without checks may interchange its loop (interchangeable_loop).
  bool interchange_unchecked = false;

 protected:
  using Affine = GuardAnalysis::Affine;
  using Guard = GuardAnalysis::Guard;
  Affine affine(ir::ValueId v) const { return guards_.affine(v); }

  // At group level: whether the guard holds for every work-item of the group.
  llvm::Value* holds_for_group(const Guard& guard) {
    llvm::Value* all = builder_.getTrue();
    for (const ir::Op* cmp : guard.terms) {
      const Affine a = affine(cmp->operands[0]), b = affine(cmp->operands[1]);
      if (!a.ok || !b.ok) {
        all = builder_.CreateAnd(all, holds_over_ranges(*cmp, GuardAnalysis::checked_pred(guard, *cmp)));
        continue;
      }
      int64_t difference[3];
      for (int d = 0; d < 3; ++d) difference[d] = a.coefficient[d] - b.coefficient[d];
      // a - b at its largest (lt, le) or smallest (gt, ge) over the group.
      const ir::ComparePred pred = GuardAnalysis::checked_pred(guard, *cmp);
      const bool upper = pred == ir::ComparePred::lt || pred == ir::ComparePred::le;
      std::array<bool, 3> high;
      for (int d = 0; d < 3; ++d) high[d] = upper ? difference[d] > 0 : difference[d] < 0;
      llvm::Value* gap = builder_.CreateSub(at_corner(cmp->operands[0], high), at_corner(cmp->operands[1], high));
      llvm::Value* zero = builder_.getInt64(0);
      llvm::Value* holds = nullptr;
      switch (pred) {
        case ir::ComparePred::lt: holds = builder_.CreateICmpSLT(gap, zero); break;
        case ir::ComparePred::le: holds = builder_.CreateICmpSLE(gap, zero); break;
        case ir::ComparePred::gt: holds = builder_.CreateICmpSGT(gap, zero); break;
        case ir::ComparePred::ge: holds = builder_.CreateICmpSGE(gap, zero); break;
        case ir::ComparePred::eq: case ir::ComparePred::ne:
          throw rocjit::Error(fmt::format("internal error: guard planned over cmp.{}", ir::compare_pred_name(pred)));
      }
      all = builder_.CreateAnd(all, holds);
      all = builder_.CreateAnd(all, in_i32_range(cmp->operands[0]));
      all = builder_.CreateAnd(all, in_i32_range(cmp->operands[1]));
    }
    return all;
  }

  // At group level, in i64: the value of affine `v` at the corner of the group's box of local
  // ids that has local id d at its last value where high[d], else 0.
  llvm::Value* at_corner(ir::ValueId v, const std::array<bool, 3>& high) {
    auto* i64 = builder_.getInt64Ty();
    const ir::Op* def = kernel_.values[v].def;
    auto last = [&](unsigned d) {
      return high[d] ? builder_.CreateSub(builder_.CreateZExt(block_[d], i64), builder_.getInt64(1))
                     : static_cast<llvm::Value*>(builder_.getInt64(0));
    };
    // (Values of the region itself are not lowered yet here: constants and shapes are made anew.)
    if (def->kind == OpKind::constant)  // an i32 (affine() takes no other type)
      return builder_.getInt64(static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(def->int_value()))));
    if (def->kind == OpKind::shape) return builder_.CreateSExt(shape_of(kernel_.memories[def->memory()], def->dim()), i64);
    if (def_segment_[v] == group_segment) return builder_.CreateSExt(values_.at(v), i64);
    if (def->kind == OpKind::workitem) {
      const unsigned d = def->dim();
      switch (def->workitem()) {
        case ir::WorkItem::local_id: return last(d);
        case ir::WorkItem::global_id:
          return builder_.CreateAdd(builder_.CreateMul(builder_.CreateZExt(group_[d], i64), builder_.CreateZExt(block_[d], i64)),
                                    last(d));
        case ir::WorkItem::group_id: case ir::WorkItem::local_size: case ir::WorkItem::num_groups:
        case ir::WorkItem::global_size: case ir::WorkItem::lane_id: case ir::WorkItem::wave_size:
          return builder_.CreateSExt(workitem(def->workitem(), d), i64);  // uniform (affine() refuses lane_id)
      }
    }
    if (def->kind == OpKind::unary) return builder_.CreateNeg(at_corner(def->operands[0], high));
    llvm::Value* a = at_corner(def->operands[0], high);
    llvm::Value* b = at_corner(def->operands[1], high);
    switch (def->binary_op()) {
      case ir::BinaryOp::add: return builder_.CreateAdd(a, b);
      case ir::BinaryOp::sub: return builder_.CreateSub(a, b);
      case ir::BinaryOp::min: return builder_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, a, b);
      case ir::BinaryOp::max: return builder_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, a, b);
      case ir::BinaryOp::mul: return builder_.CreateMul(a, b);
      case ir::BinaryOp::div: case ir::BinaryOp::rem: case ir::BinaryOp::and_: case ir::BinaryOp::or_:
      case ir::BinaryOp::xor_: case ir::BinaryOp::shl: case ir::BinaryOp::shr:
        break;  // affine() allows none of these
    }
    throw rocjit::Error(fmt::format("internal error: {} in an affine guard", ir::binary_op_name(def->binary_op())));
  }

  // At group level: whether `v` and every affine operation below it stay within i32 over the
  // whole group (then the work-items' i32 arithmetic computes the exact values).
  llvm::Value* in_i32_range(ir::ValueId v) {
    const ir::Op* def = kernel_.values[v].def;
    const bool leaf = def_segment_[v] == group_segment || def->kind == OpKind::constant ||
                      def->kind == OpKind::shape || def->kind == OpKind::workitem;
    if (leaf) return builder_.getTrue();
    const Affine f = affine(v);
    std::array<bool, 3> high, low;
    for (int d = 0; d < 3; ++d) {
      high[d] = f.coefficient[d] > 0;
      low[d] = f.coefficient[d] < 0;
    }
    llvm::Value* top = at_corner(v, high);
    llvm::Value* bottom = at_corner(v, low);
    llvm::Value* ok = builder_.CreateAnd(builder_.CreateICmpSLE(top, builder_.getInt64(INT32_MAX)),
                                         builder_.CreateICmpSGE(bottom, builder_.getInt64(INT32_MIN)));
    for (ir::ValueId operand : def->operands) ok = builder_.CreateAnd(ok, in_i32_range(operand));
    return ok;
  }

  // At group level, in i64: bounds on rangeable `v` over the group's work-items, and whether
  // they are valid: every step of the work-items' i32 arithmetic stays in range (so it computes
  // the exact values), and each quotient or remainder has a non-negative dividend (where
  // rocjit's truncating division is monotone). An affine value's bounds are exact (its corners);
  // the rest combine their operands' bounds (interval arithmetic: sound, looser where an id
  // appears in both operands).
  struct Range {
    llvm::Value* lo;
    llvm::Value* hi;
    llvm::Value* ok;
  };
  Range range(ir::ValueId v) {
    const Affine f = affine(v);
    if (f.ok) {
      std::array<bool, 3> high, low;
      for (int d = 0; d < 3; ++d) {
        high[d] = f.coefficient[d] > 0;
        low[d] = f.coefficient[d] < 0;
      }
      return {at_corner(v, low), at_corner(v, high), in_i32_range(v)};
    }
    const ir::Op* def = kernel_.values[v].def;
    auto smin = [&](llvm::Value* x, llvm::Value* y) { return builder_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, x, y); };
    auto smax = [&](llvm::Value* x, llvm::Value* y) { return builder_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, x, y); };
    auto checked = [&](Range r, llvm::Value* ok) {
      r.ok = builder_.CreateAnd(builder_.CreateAnd(r.ok, ok),
                                builder_.CreateAnd(builder_.CreateICmpSGE(r.lo, builder_.getInt64(INT32_MIN)),
                                                   builder_.CreateICmpSLE(r.hi, builder_.getInt64(INT32_MAX))));
      return r;
    };
    if (def->kind == OpKind::unary) {  // neg
      const Range a = range(def->operands[0]);
      return checked({builder_.CreateNeg(a.hi), builder_.CreateNeg(a.lo), a.ok}, builder_.getTrue());
    }
    int64_t c = 0;
    const ir::BinaryOp op = def->binary_op();
    if (op == ir::BinaryOp::mul) {
      const bool left = guards_.constant_operand(def->operands[0], c);
      if (!left) guards_.constant_operand(def->operands[1], c);
      const Range a = range(def->operands[left ? 1 : 0]);
      llvm::Value* k = builder_.getInt64(static_cast<uint64_t>(c));
      llvm::Value* p = builder_.CreateMul(a.lo, k);
      llvm::Value* q = builder_.CreateMul(a.hi, k);
      return checked({c >= 0 ? p : q, c >= 0 ? q : p, a.ok}, builder_.getTrue());
    }
    if (op == ir::BinaryOp::div || op == ir::BinaryOp::rem) {
      guards_.constant_operand(def->operands[1], c);
      const Range a = range(def->operands[0]);
      llvm::Value* k = builder_.getInt64(static_cast<uint64_t>(c));
      llvm::Value* non_negative = builder_.CreateICmpSGE(a.lo, builder_.getInt64(0));
      llvm::Value* q_lo = builder_.CreateSDiv(a.lo, k);
      llvm::Value* q_hi = builder_.CreateSDiv(a.hi, k);
      if (op == ir::BinaryOp::div) return checked({q_lo, q_hi, a.ok}, non_negative);
      // One quotient for the whole range: the remainder grows with the dividend; else 0 .. c-1.
      llvm::Value* one_quotient = builder_.CreateICmpEQ(q_lo, q_hi);
      return checked({builder_.CreateSelect(one_quotient, builder_.CreateSRem(a.lo, k), builder_.getInt64(0)),
                      builder_.CreateSelect(one_quotient, builder_.CreateSRem(a.hi, k), builder_.getInt64(static_cast<uint64_t>(c - 1))),
                      a.ok},
                     non_negative);
    }
    const Range a = range(def->operands[0]), b = range(def->operands[1]);
    llvm::Value* ok = builder_.CreateAnd(a.ok, b.ok);
    switch (op) {
      case ir::BinaryOp::add: return checked({builder_.CreateAdd(a.lo, b.lo), builder_.CreateAdd(a.hi, b.hi), ok}, builder_.getTrue());
      case ir::BinaryOp::sub: return checked({builder_.CreateSub(a.lo, b.hi), builder_.CreateSub(a.hi, b.lo), ok}, builder_.getTrue());
      case ir::BinaryOp::min: return checked({smin(a.lo, b.lo), smin(a.hi, b.hi), ok}, builder_.getTrue());
      case ir::BinaryOp::max: return checked({smax(a.lo, b.lo), smax(a.hi, b.hi), ok}, builder_.getTrue());
      case ir::BinaryOp::mul: case ir::BinaryOp::div: case ir::BinaryOp::rem: case ir::BinaryOp::and_:
      case ir::BinaryOp::or_: case ir::BinaryOp::xor_: case ir::BinaryOp::shl: case ir::BinaryOp::shr:
        break;  // handled above or refused by rangeable()
    }
    throw rocjit::Error(fmt::format("internal error: {} in a guard range", ir::binary_op_name(op)));
  }

  // At group level: whether comparison `cmp` holds for every work-item, from its operands' ranges.
  llvm::Value* holds_over_ranges(const ir::Op& cmp, ir::ComparePred pred) {
    const Range a = range(cmp.operands[0]), b = range(cmp.operands[1]);
    llvm::Value* holds = nullptr;
    switch (pred) {
      case ir::ComparePred::lt: holds = builder_.CreateICmpSLT(a.hi, b.lo); break;
      case ir::ComparePred::le: holds = builder_.CreateICmpSLE(a.hi, b.lo); break;
      case ir::ComparePred::gt: holds = builder_.CreateICmpSGT(a.lo, b.hi); break;
      case ir::ComparePred::ge: holds = builder_.CreateICmpSGE(a.lo, b.hi); break;
      case ir::ComparePred::eq: case ir::ComparePred::ne:
        throw rocjit::Error(fmt::format("internal error: guard range over cmp.{}", ir::compare_pred_name(pred)));
    }
    return builder_.CreateAnd(holds, builder_.CreateAnd(a.ok, b.ok));
  }

  // LLVM 22's X86 lowering of llvm.minimumnum/maximumnum returns the NaN when the other operand
  // is known not to be NaN (e.g. a converted integer), so the host uses minnum/maxnum (NaN
  // ignored, correct) and orders the zeros itself: when the operands compare equal, OR-ing their
  // bits gives -0 for min(+0, -0) and AND-ing gives +0 for max, and equal non-zero values are
  // unchanged. Cheap and vectorisable (a compare, a bitwise op, a select).
  llvm::Value* float_min_max(bool max, llvm::Value* a, llvm::Value* b) override {
    if (!workaround(Workaround::host_min_max)) return KernelLowering::float_min_max(max, a, b);
    llvm::Value* r = builder_.CreateBinaryIntrinsic(max ? llvm::Intrinsic::maxnum : llvm::Intrinsic::minnum, a, b);
    llvm::Type* bits = builder_.getIntNTy(a->getType()->getScalarSizeInBits());
    if (auto* v = llvm::dyn_cast<llvm::VectorType>(a->getType())) bits = llvm::VectorType::get(bits, v->getElementCount());
    llvm::Value* ia = builder_.CreateBitCast(a, bits);
    llvm::Value* ib = builder_.CreateBitCast(b, bits);
    llvm::Value* zeros = builder_.CreateBitCast(max ? builder_.CreateAnd(ia, ib) : builder_.CreateOr(ia, ib), a->getType());
    return builder_.CreateSelect(builder_.CreateFCmpOEQ(a, b), zeros, r);
  }

 private:
  // ---- planning -------------------------------------------------------------------------
  int new_segment(bool in_loop) {
    segment_in_loop_.push_back(in_loop);
    return static_cast<int>(segment_in_loop_.size() - 1);
  }

  void assign(const ir::Op& op, int segment) {
    segment_of_[&op] = segment;
    for (const auto& r : op.regions)
      for (const auto& sub : r.ops) assign(*sub, segment);
  }

  // Under bounds checking, a uniform(x) that the whole group reaches together (at group level,
  // before any Return) is checked: it ends the segment like a barrier, and one call compares
  // every work-item's operand (rocjit_host_uniform). Elsewhere the promise cannot be checked.
  // uniform() promises are checked when bounds checking and when race checking: a broken one is
  // how work-items of a group could reach different barriers at run time (the uniformity rule
  // rejects every other way when the kernel is traced).
  bool checked_uniform(const ir::Op& op) const {
    return (bounds_check_ || check_races) && op.kind == OpKind::uniform && !return_seen_;
  }

  void plan_region(const ir::Region& r, bool in_loop) {
    int current = group_segment;
    for (const auto& p : r.ops) {
      const ir::Op& op = *p;
      if (checked_uniform(op)) {
        current = group_segment;
        segment_of_[&op] = group_segment;
        checked_uniform_.insert(&op);
        continue;
      }
      // The test of a while condition that holds a wave operation (planned like a body, below):
      // its operand is spilled and read at the group (or wave) level, where the loop decides.
      if (op.kind == OpKind::condition) {
        current = group_segment;
        segment_of_[&op] = group_segment;
        continue;
      }
      if (!group_level(op)) {
        if (current == group_segment) current = new_segment(in_loop);
        assign(op, current);
        return_seen_ |= op.kind == OpKind::return_;
        for (const auto& sub : op.regions)
          ir::walk(sub, [&](const ir::Op& o) { return_seen_ |= o.kind == OpKind::return_; });
        continue;
      }
      current = group_segment;
      segment_of_[&op] = group_segment;
      const bool starts_wave_level = !planning_wave_ && divergent_control_.count(&op);
      if (starts_wave_level) {
        wave_level_.insert(&op);
        planning_wave_ = true;
        for (const auto& sub : op.regions)
          ir::walk(sub, [&](const ir::Op& o) { wave_returns_ |= o.kind == OpKind::return_; });
      }
      if (op.kind == OpKind::if_) {
        plan_region(op.regions[0], in_loop);
        plan_region(op.regions[1], in_loop);
      } else if (op.kind == OpKind::for_) {
        plan_region(op.regions[0], true);
      } else if (op.kind == OpKind::while_) {
        bool collective_condition = false;
        for (const auto& c : op.regions[0].ops) collective_condition |= contains_barrier(*c);
        if (collective_condition) {
          // A wave operation decides the loop: each work-item computes its operands in a
          // work-item loop, the operation runs for the wave, and the (wave-uniform) result decides.
          plan_region(op.regions[0], true);
        } else {
          int cond = new_segment(true);
          work_item_zero_.insert(cond);
          for (const auto& c : op.regions[0].ops) assign(*c, cond);
        }
        plan_region(op.regions[1], true);
        plan_region(op.regions[2], true);
      }
      if (starts_wave_level) planning_wave_ = false;
    }
  }

  void plan() {
    plan_region(kernel_.body, false);
    def_segment_.assign(kernel_.values.size(), group_segment);
    spilled_.assign(kernel_.values.size(), false);
    ir::walk(kernel_.body, [&](const ir::Op& op) {
      if (!op.result) return;
      // A wave op runs at group level but gives every work-item its own result, which lives in
      // per-work-item storage (a segment of its own that no other op belongs to).
      const bool collective = ir::computes_collectively(op) || checked_uniform_.count(&op);
      def_segment_[op.result] = collective ? new_segment(false) : segment_of_.at(&op);
      if (collective) spilled_[op.result] = true;
    });
    std::vector<std::set<int>> slot_segments(kernel_.slots.size()), memory_segments(kernel_.memories.size());
    ir::walk(kernel_.body, [&](const ir::Op& op) {
      int seg = segment_of_.at(&op);
      for (ir::ValueId v : op.operands) {
        if (def_segment_[v] != group_segment && def_segment_[v] != seg && !rematerializable(v)) spilled_[v] = true;
        // A wave op reads every work-item's operand from storage (constants are passed once).
        if ((ir::computes_collectively(op) || checked_uniform_.count(&op)) && def_segment_[v] != group_segment &&
            !is_constant(v))
          spilled_[v] = true;
      }
      const ir::OpReference ref = ir::op_info(op.kind).reference;
      if (ref == ir::OpReference::slot) slot_segments[op.slot()].insert(seg);
      if (ref == ir::OpReference::indexed) memory_segments[op.memory()].insert(seg);
    });
    auto needs_storage = [&](const std::set<int>& segs) {
      if (segs.size() > 1) return true;
      return segs.size() == 1 && *segs.begin() >= 0 && segment_in_loop_[*segs.begin()];
    };
    if (wave_returns_) {
      item_returned_offset_ = storage_per_item_;
      storage_per_item_ += 8;
    }
    value_offset_.assign(kernel_.values.size(), 0);
    for (ir::ValueId v = 1; v < kernel_.values.size(); ++v)
      if (spilled_[v]) {
        value_offset_[v] = storage_per_item_;
        // 8-aligned item offsets; each item holds item_bytes per work-item (vectors: up to 32)
        storage_per_item_ += (item_bytes(kernel_.value_type(v)) + 7) / 8 * 8;
      }
    slot_offset_.assign(kernel_.slots.size(), -1);
    for (uint32_t s = 0; s < kernel_.slots.size(); ++s)
      if (needs_storage(slot_segments[s])) {
        slot_offset_[s] = static_cast<int64_t>(storage_per_item_);
        storage_per_item_ += (item_bytes(kernel_.slots[s].type) + 7) / 8 * 8;
      }
    memory_offset_.assign(kernel_.memories.size(), -1);
    for (ir::MemoryId m = 0; m < kernel_.memories.size(); ++m) {
      const ir::Memory& mem = kernel_.memories[m];
      if (mem.space == ir::MemorySpace::shared && !mem.dynamic) {
        memory_offset_[m] = static_cast<int64_t>(shared_total_);
        shared_total_ += (mem.element_count() * ir::byte_size(mem.element) + 63) / 64 * 64;
      } else if (mem.space == ir::MemorySpace::local && needs_storage(memory_segments[m])) {
        memory_offset_[m] = static_cast<int64_t>(storage_per_item_);
        storage_per_item_ += (mem.element_count() * ir::byte_size(mem.element) + 7) / 8 * 8;
      }
    }
  }

  // Work-item queries, constants, shapes, and small integer expressions of those and of
  // group-level values are recomputed where they are used instead of being stored per
  // work-item: cheaper, and it keeps the work-item loops vectorisable (x = group_id * 16 +
  // local_id recomputed after a barrier is still affine in the loop's counter, so an access
  // indexed by it is consecutive; loaded back from storage it was a scatter).
  bool rematerializable(ir::ValueId v) const { return remat_cost(v) <= max_remat_ops; }

  // The ops recomputing `v` takes (0 for the leaves above), or more than max_remat_ops.
  static constexpr int max_remat_ops = 8;
  int remat_cost(ir::ValueId v) const {
    if (remat_cost_.empty()) remat_cost_.assign(kernel_.values.size(), -1);
    int& cost = remat_cost_[v];
    if (cost >= 0) return cost;
    const ir::Op* def = kernel_.values[v].def;
    cost = max_remat_ops + 1;
    if (!def) return cost;
    if (def->kind == OpKind::workitem || def->kind == OpKind::constant || def->kind == OpKind::shape) return cost = 0;
    const bool pure = def->kind == OpKind::binary || def->kind == OpKind::unary || def->kind == OpKind::compare ||
                      def->kind == OpKind::select || def->kind == OpKind::cast;
    auto integral = [](ir::Type t) { return !t.is_vector() && !ir::is_float(t); };
    if (!pure || !integral(def->type)) return cost;
    int total = 1;
    for (ir::ValueId operand : def->operands) {
      if (!integral(kernel_.value_type(operand))) return cost;
      if (def_segment_[operand] == group_segment) continue;  // computed once per group, seen everywhere
      total += remat_cost(operand);
      if (total > max_remat_ops) return cost;
    }
    return cost = total;
  }

  bool is_constant(ir::ValueId v) const {
    const ir::Op* def = kernel_.values[v].def;
    return def && def->kind == OpKind::constant;
  }

  static uint64_t item_bytes(ir::Type t) { return std::max(4u, ir::byte_size(t)); }
  // A spilled value's alignment: its lanes' (items of an f32x3 are 12 bytes apart).
  static llvm::Align spill_align(ir::Type t) { return llvm::Align(ir::byte_size(t.element_of())); }

  // ---- per-work-item storage ------------------------------------------------------------
  // storage + offset * threads + work_item * item_bytes: each item is contiguous over work-items.
  llvm::Value* storage_address(uint64_t offset, uint64_t item_bytes) {
    llvm::Value* wi = segment_ == group_segment || work_item_zero_.count(segment_) ? group_item() : work_item_;
    llvm::Value* at = builder_.CreateNUWAdd(builder_.CreateNUWMul(builder_.getInt64(offset), threads_),
                                            builder_.CreateNUWMul(wi, builder_.getInt64(item_bytes)));
    llvm::Value* address = builder_.CreateInBoundsGEP(builder_.getInt8Ty(), storage_, at);
    alias_scopes_.record(address, AliasScopes::storage(offset));
    return address;
  }

  // The work-item whose values group-level code uses: 0, or in a wave-level op the wave's first.
  llvm::Value* group_item() { return in_wave_ ? wave_first_ : builder_.getInt64(0); }

  llvm::Value* value(ir::ValueId id) override {
    if (!forced_.empty())
      if (auto f = forced_.find(id); f != forced_.end()) return builder_.getInt1(f->second);
    if (spilled_[id] && def_segment_[id] != segment_) {
      const ir::Type t = kernel_.value_type(id);
      return builder_.CreateAlignedLoad(llvm_type(t), storage_address(value_offset_[id], item_bytes(t)), spill_align(t));
    }
    if (def_segment_[id] != group_segment && def_segment_[id] != segment_ && rematerializable(id)) {
      const ir::Op& def = *kernel_.values[id].def;
      if (def.kind == OpKind::workitem) return workitem(def.workitem(), def.dim());
      if (def.kind == OpKind::shape) return shape_of(kernel_.memories[def.memory()], def.dim());
      if (def.kind == OpKind::constant) return values_.at(id);  // LLVM constants: valid everywhere
      // An expression: lowered again here (operands through value(), so recomputed in turn),
      // leaving the value of its own segment in place.
      llvm::Value* own = values_[id];
      const bool outer = recomputing_;
      recomputing_ = true;
      operation(def);
      recomputing_ = outer;
      llvm::Value* here = values_[id];
      values_[id] = own;
      return here;
    }
    return values_.at(id);
  }

  bool available(ir::ValueId id) const override {
    return def_segment_[id] == segment_ || def_segment_[id] == group_segment || spilled_[id] || rematerializable(id);
  }

  void define(const ir::Op& op, llvm::Value* v) override {
    values_[op.result] = v;
    if (spilled_[op.result] && !recomputing_)
      builder_.CreateAlignedStore(v, storage_address(value_offset_[op.result], item_bytes(op.type)), spill_align(op.type));
  }

  llvm::Value* slot_pointer(uint32_t slot) override {
    if (slot_offset_[slot] < 0) return KernelLowering::slot_pointer(slot);
    // item_bytes apart, like spilled values: an i32 Var's items are contiguous, so a work-item
    // loop reads and writes them as whole vectors (8 bytes apart, they were strided accesses
    // the vectoriser gave up on or split).
    return storage_address(static_cast<uint64_t>(slot_offset_[slot]), item_bytes(kernel_.slots[slot].type));
  }

  llvm::Value* array_base(ir::MemoryId id) override {
    const ir::Memory& m = kernel_.memories[id];
    if (m.space == ir::MemorySpace::local && memory_offset_[id] >= 0)
      return storage_address(static_cast<uint64_t>(memory_offset_[id]),
                             (m.element_count() * ir::byte_size(m.element) + 7) / 8 * 8);
    return KernelLowering::array_base(id);
  }

  llvm::Value* memory_base(const ir::Memory& m) override {
    auto id = static_cast<ir::MemoryId>(&m - kernel_.memories.data());
    if (m.space == ir::MemorySpace::shared) {
      llvm::IRBuilder<> b(&function_->getEntryBlock(), function_->getEntryBlock().getTerminator()
                                                           ? function_->getEntryBlock().getTerminator()->getIterator()
                                                           : function_->getEntryBlock().end());
      // Dynamic shared memory follows the static arrays (the runner allocates both).
      const uint64_t offset = m.dynamic ? shared_total_ : static_cast<uint64_t>(memory_offset_[id]);
      llvm::Value* base = b.CreateInBoundsGEP(b.getInt8Ty(), shared_, b.getInt64(offset), m.name);
      alias_scopes_.record(base, m.dynamic ? AliasScopes::dynamic_shared : AliasScopes::shared(id));
      return base;
    }
    auto* type = llvm::ArrayType::get(llvm_type(m.element), static_cast<uint64_t>(m.element_count()));
    return entry_alloca(type, nullptr, m.name, 0);
  }

  // ---- structure: group level vs work-item loops -------------------------------------------
  void region(const ir::Region& r) override {
    if (segment_ != group_segment) return KernelLowering::region(r);
    std::vector<const ir::Op*> run;
    for (const auto& p : r.ops) {
      if (segment_of_.at(p.get()) == group_segment) {
        flush(run);
        if (!in_wave_ && wave_level_.count(p.get())) wave_by_wave(*p);
        else operation(*p);
      } else {
        run.push_back(p.get());
      }
    }
    flush(run);
  }

  // Emits `body` inside for (i = 0; i < count; ++i), i as i32; `body` gets i and the block that
  // starts the next iteration (where a work-item's Return() jumps).
  template <class F>
  void counted_loop(llvm::Value* count, const char* name, F&& body, bool vectorize = true) {
    llvm::BasicBlock* pre = builder_.GetInsertBlock();
    auto* header = llvm::BasicBlock::Create(context_, std::string(name) + ".header", function_);
    auto* loop = llvm::BasicBlock::Create(context_, std::string(name) + ".body", function_);
    auto* latch = llvm::BasicBlock::Create(context_, std::string(name) + ".next", function_);
    auto* exit = llvm::BasicBlock::Create(context_, std::string(name) + ".exit", function_);
    builder_.CreateBr(header);
    builder_.SetInsertPoint(header);
    llvm::PHINode* i = builder_.CreatePHI(builder_.getInt32Ty(), 2, name);
    i->addIncoming(builder_.getInt32(0), pre);
    builder_.CreateCondBr(builder_.CreateICmpSLT(i, count), loop, exit);
    builder_.SetInsertPoint(loop);
    body(i, latch);
    builder_.CreateBr(latch);
    builder_.SetInsertPoint(latch);
    i->addIncoming(builder_.CreateNSWAdd(i, builder_.getInt32(1)), latch);
    builder_.CreateBr(header)->setMetadata(llvm::LLVMContext::MD_loop, work_item_loop_metadata(vectorize));
    builder_.SetInsertPoint(exit);
  }

  // Loop metadata for the work-item and wave loops: no runtime unrolling. The vectoriser already
  // widens these loops (and interleaves them when it pays), so runtime unrolling only copied the
  // vector body again with a remainder loop: without it a host compile executes 20-31% fewer
  // instructions (callgrind, matmul, reduce, transpose, reverse) at the same bench-cpu speed.
  // Not vectorised (`vectorize` false, or scalar_loops_):
  //  - the guarded copy of a region with a group-wide guard (flush): it runs only for the groups
  //    at the edges of the bounds, and left scalar it costs a fraction of the compile time;
  //  - the y and z loops when x has more than one work-item (outer_loop_vectorizable).
  llvm::MDNode* work_item_loop_metadata(bool vectorize = true) {
    llvm::SmallVector<llvm::Metadata*, 3> operands{
        nullptr, llvm::MDNode::get(context_, {llvm::MDString::get(context_, "llvm.loop.unroll.runtime.disable")})};
    if (scalar_loops_ || !vectorize)
      operands.push_back(llvm::MDNode::get(
          context_, {llvm::MDString::get(context_, "llvm.loop.vectorize.enable"),
                     llvm::ConstantAsMetadata::get(builder_.getFalse())}));
    llvm::MDNode* id = llvm::MDNode::getDistinct(context_, operands);
    id->replaceOperandWith(0, id);
    return id;
  }

  // How many waves a row of work-items along x holds, when a region's work-item loop should run
  // wave by wave (an outer loop over those waves, an inner one over their lanes): the region asks
  // for lane_id(), and the group's x size is a fixed multiple of the wave size, so that a
  // work-item's lane is its x id modulo the wave size whatever its y and z. 0: one x loop.
  uint64_t waves_along_x(const std::vector<const ir::Op*>& run) const {
    auto* bx = llvm::dyn_cast<llvm::ConstantInt>(block_[0]);
    if (!bx || bx->getZExtValue() == 0 || bx->getZExtValue() % host_wave_size != 0) return 0;
    bool lanes = false;
    auto note = [&](const ir::Op& o) { lanes |= o.kind == OpKind::workitem && o.workitem() == ir::WorkItem::lane_id; };
    for (const ir::Op* op : run) {
      note(*op);
      for (const auto& r : op->regions) ir::walk(r, note);
    }
    return lanes ? bx->getZExtValue() / host_wave_size : 0;
  }

  // Whether the vectoriser may widen the work-item loop over dimension `d` (1: y, 2: z). Only
  // the x loop has consecutive work-items, so only where the dimensions below d hold one
  // work-item is d's loop unit-stride. Otherwise, once LLVM has unrolled a short x loop of a
  // fixed shape, the y loop is innermost and the vectoriser widened it across rows with gathers
  // and scatters where the SLP vectoriser packs the unrolled x iterations into contiguous
  // vectors (matmul's tile loads, bench-cpu 1.1 -> 5.3 ms with gathers allowed).
  bool outer_loop_vectorizable(unsigned d) const {
    for (unsigned below = 0; below < d; ++below) {
      auto* c = llvm::dyn_cast<llvm::ConstantInt>(block_[below]);
      if (!c || !c->isOne()) return false;
    }
    return true;
  }

  // A group-level op in wave-uniform control: for each wave of the group, the op lowered at
  // "group level" for that wave (group_item() = its first work-item).
  void wave_by_wave(const ir::Op& op) {
    const uint64_t width = host_wave_size;
    auto* i64 = builder_.getInt64Ty();
    llvm::Value* waves = builder_.CreateUDiv(builder_.CreateNUWAdd(threads_, builder_.getInt64(width - 1)),
                                             builder_.getInt64(width));
    counted_loop(builder_.CreateTrunc(waves, builder_.getInt32Ty()), "wave", [&](llvm::Value* w, llvm::BasicBlock*) {
      in_wave_ = true;
      wave_first_ = builder_.CreateNUWMul(builder_.CreateZExt(w, i64), builder_.getInt64(width), "wave.first");
      wave_count_ = builder_.CreateBinaryIntrinsic(
          llvm::Intrinsic::umin, builder_.CreateNUWSub(threads_, wave_first_), builder_.getInt64(width), nullptr,
          "wave.items");
      set_work_item(wave_first_);
      operation(op);
      in_wave_ = false;
    });
  }

  // work_item_ and local_[] for linear local id `linear` (x fastest).
  void set_work_item(llvm::Value* linear) {
    work_item_ = linear;
    llvm::Value* l32 = builder_.CreateTrunc(linear, builder_.getInt32Ty());
    local_[0] = builder_.CreateURem(l32, block_[0]);
    llvm::Value* rest = builder_.CreateUDiv(l32, block_[0]);
    local_[1] = builder_.CreateURem(rest, block_[1]);
    local_[2] = builder_.CreateUDiv(rest, block_[1]);
  }

  // In a kernel whose wave-level ops may Return, a work-item that returned skips the segment.
  void skip_returned_item() {
    if (!wave_returns_) return;
    llvm::Value* flag = builder_.CreateLoad(builder_.getInt8Ty(), storage_address(item_returned_offset_, 1));
    auto* live = llvm::BasicBlock::Create(context_, "item.live", function_);
    builder_.CreateCondBr(builder_.CreateICmpNE(flag, builder_.getInt8(0)), item_next_, live);
    builder_.SetInsertPoint(live);
  }

  // At group level: `then` when `condition` holds, else `otherwise`, in blocks named by `names`
  // (then, else, join); code after it goes on from the join.
  template <class Then, class Otherwise>
  void two_ways(llvm::Value* condition, const std::array<const char*, 3>& names, Then&& then, Otherwise&& otherwise) {
    auto* yes = llvm::BasicBlock::Create(context_, names[0], function_);
    auto* no = llvm::BasicBlock::Create(context_, names[1], function_);
    auto* join = llvm::BasicBlock::Create(context_, names[2], function_);
    builder_.CreateCondBr(condition, yes, no);
    builder_.SetInsertPoint(yes);
    then();
    builder_.CreateBr(join);
    builder_.SetInsertPoint(no);
    otherwise();
    builder_.CreateBr(join);
    builder_.SetInsertPoint(join);
  }

  void flush(std::vector<const ir::Op*>& run) {
    if (run.empty()) return;
    int seg = segment_of_.at(run.front());
    segment_ = seg;
    if (work_item_zero_.count(seg)) {
      if (in_wave_) {
        set_work_item(wave_first_);
      } else {
        for (unsigned d = 0; d < 3; ++d) local_[d] = builder_.getInt32(0);
        work_item_ = builder_.getInt64(0);
      }
      for (const ir::Op* op : run) operation(*op);
    } else if (in_wave_) {
      counted_loop(builder_.CreateTrunc(wave_count_, builder_.getInt32Ty()), "wi.lane",
                   [&](llvm::Value* lane, llvm::BasicBlock* next) {
                     item_next_ = next;
                     set_work_item(builder_.CreateNUWAdd(wave_first_, builder_.CreateZExt(lane, builder_.getInt64Ty())));
                     skip_returned_item();
                     for (const ir::Op* op : run) operation(*op);
                   });
      set_work_item(wave_first_);
    } else {
      auto work_item_loops = [&] {
        counted_loop(block_[2], "wi.z", [&](llvm::Value* z, llvm::BasicBlock*) {
          counted_loop(block_[1], "wi.y", [&](llvm::Value* y, llvm::BasicBlock*) {
            auto item = [&](llvm::Value* x, llvm::BasicBlock* next) {
              item_next_ = next;
              local_[0] = x;
              local_[1] = y;
              local_[2] = z;
              llvm::Value* zy = builder_.CreateNUWAdd(builder_.CreateNUWMul(z, block_[1]), y);
              llvm::Value* linear = builder_.CreateNUWAdd(builder_.CreateNUWMul(zy, block_[0]), x);
              work_item_ = builder_.CreateZExt(linear, builder_.getInt64Ty());
              skip_returned_item();
              for (const ir::Op* op : run) operation(*op);
            };
            const uint64_t waves_in_x = waves_along_x(run);
            if (waves_in_x == 0) {
              counted_loop(block_[0], "wi.x", item);
            } else {
              // A loop over the waves along x around one over their lanes: lane_id() is the inner
              // counter, so `If(lane_id() < k)` and `a(lane_id())` are affine in it and vectorise
              // as contiguous (masked) accesses, where `linear % 64` made them gathers or scalar code.
              const uint64_t width = host_wave_size;
              counted_loop(builder_.getInt32(static_cast<uint32_t>(waves_in_x)), "wi.wave", [&](llvm::Value* w, llvm::BasicBlock*) {
                counted_loop(builder_.getInt32(static_cast<uint32_t>(width)), "wi.x", [&](llvm::Value* l, llvm::BasicBlock* next) {
                  lane_ = l;
                  item(builder_.CreateNUWAdd(builder_.CreateNUWMul(w, builder_.getInt32(static_cast<uint32_t>(width))), l), next);
                });
              }, false);
              lane_ = nullptr;
            }
          }, outer_loop_vectorizable(1));
        }, outer_loop_vectorizable(2));
      };
      std::vector<Guard> guards = version_guards ? guards_.group_wide_guards(run) : std::vector<Guard>{};
      // Where the loop's bounds allow (interchange_holds), its iterations run in lock step over
      // the group's work-items (interchanged_loops), else the work-item loops as written.
      auto lock_step = [&](const ir::Op& loop) {
        two_ways(interchange_holds(loop), {"interchange.holds", "interchange.not", "interchange.join"},
                 [&] { interchanged_loops(run, loop); }, work_item_loops);
      };
      if (const ir::Op* loop = interchangeable_loop(run)) {
        lock_step(*loop);
      } else if (const auto needed = race_skippable(run)) {
        // Race checking, and every access of the region is one a launch or the group's filled
        // shared arrays may leave unchecked: when they all do (tested once at group level), the
        // region without the checks (which LLVM vectorises as it does the unchecked kernel).
        auto holds = [&](llvm::Value* bits, uint64_t mask) {
          return builder_.CreateICmpEQ(builder_.CreateAnd(bits, builder_.getInt64(mask)), builder_.getInt64(mask));
        };
        llvm::Value* all = holds(race_unchecked_, needed->first);
        if (needed->second)  // race_initialized_ exists: the kernel has a shared table
          all = builder_.CreateAnd(all, holds(builder_.CreateLoad(builder_.getInt64Ty(), race_initialized_),
                                              needed->second));
        two_ways(all, {"race.skipped", "race.checked_region", "race.join"}, [&] {
          race_skip_ = true;
          if (const ir::Op* loop = interchangeable_loop(run))  // as the unchecked kernel runs it
            lock_step(*loop);
          else
            work_item_loops();
          race_skip_ = false;
        }, work_item_loops);
      } else if (guards.empty()) {
        work_item_loops();
      } else {
        // The guards' check for the whole group (at group level), then the region twice: with
        // the guards taken as true (exit guards as false), and as written.
        llvm::Value* all_hold = builder_.getTrue();
        for (const Guard& g : guards) all_hold = builder_.CreateAnd(all_hold, holds_for_group(g));
        two_ways(all_hold, {"guards.hold", "guards.checked", "guards.join"}, [&] {
          for (const Guard& g : guards) forced_[g.condition] = !g.exit;
          work_item_loops();
          forced_.clear();
        }, [&] {
          scalar_loops_ = true;
          work_item_loops();
          scalar_loops_ = false;
        });
      }
      if (returned_) {
        // Work-items that returned skip the rest of the kernel: with a uniform Return that is the
        // whole group; after a divergent one no segment follows (the uniformity rule).
        auto* go_on = llvm::BasicBlock::Create(context_, "segment.after", function_);
        builder_.CreateCondBr(builder_.CreateLoad(builder_.getInt1Ty(), returned_), group_next_, go_on);
        builder_.SetInsertPoint(go_on);
      }
    }
    segment_ = group_segment;
    run.clear();
  }

  // ---- loop interchange: grid-stride loops in lock step -----------------------------------
  // A region that is one For loop whose counter starts at an affine function of the local x id
  // with coefficient 1 (global_id(0), local_id(0), plus group-level terms) and steps by a
  // group-uniform amount up to a group-uniform end, e.g. For(global_id(0), n, global_size(0)),
  // runs work-item by work-item as written: each work-item walks the whole range with its
  // stride (histogram: 64 KiB apart) before the next starts. Interchanged, iteration k of every
  // work-item runs before iteration k + 1 of any: the loop over k outside, the work-items inside,
  // so consecutive work-items touch consecutive elements. Work-items of a group between barriers
  // are unordered, so this is one of the executions the kernel already allows; each work-item's
  // own iterations keep their order. Kept to regions whose work-items share nothing the
  // interleaving could mix up: no variables (slots), private arrays, loops with Break/Continue,
  // Return, prints, asserts, fences or other loops than For; one-dimensional groups of a fixed
  // shape; not under bounds or race checking (their reports name the first access in program
  // order), except in a race-checked kernel's copy of a region that runs without checks
  // (race.skipped). The ops before the loop must be pure and used by no later region.
  const ir::Op* interchangeable_loop(const std::vector<const ir::Op*>& run) const {
    const bool allowed = check_races ? race_skip_ && interchange_unchecked : version_guards;
    if (bounds_check_ || !allowed || wave_returns_ || in_wave_) return nullptr;
    if (fixed_block_[0] <= 0 || fixed_block_[1] != 1 || fixed_block_[2] != 1) return nullptr;
    const ir::Op* loop = run.back();
    if (loop->kind != OpKind::for_ || loop->type != ir::Type::i32) return nullptr;
    // Values only, from the op registry: no effect, no variable (slot), no nested region.
    auto pure = [](const ir::Op& o) {
      const ir::OpInfo& info = ir::op_info(o.kind);
      return info.effect == ir::OpEffect::none && info.reference != ir::OpReference::slot && info.regions == 0;
    };
    for (size_t j = 0; j + 1 < run.size(); ++j)
      if (!pure(*run[j]) || (run[j]->result && spilled_[run[j]->result])) return nullptr;
    bool ok = true;
    ir::walk(loop->regions[0], [&](const ir::Op& o) {
      if (pure(o) || o.kind == OpKind::if_ || o.kind == OpKind::for_) return;
      if (o.kind == OpKind::load || o.kind == OpKind::store || o.kind == OpKind::atomic) {
        ok &= kernel_.memories[o.memory()].space != ir::MemorySpace::local;
        return;
      }
      ok = false;
    });
    if (!ok) return nullptr;
    const Affine begin = affine(loop->operands[0]), end = affine(loop->operands[1]), step = affine(loop->operands[2]);
    auto uniform = [](const Affine& a) { return a.ok && !a.coefficient[0] && !a.coefficient[1] && !a.coefficient[2]; };
    if (!begin.ok || begin.coefficient[0] != 1 || begin.coefficient[1] || begin.coefficient[2]) return nullptr;
    return uniform(end) && uniform(step) ? loop : nullptr;
  }

  // At group level: the step is positive and the bounds' i32 arithmetic is exact over the group
  // (at_corner's i64 values are then the work-items' values).
  llvm::Value* interchange_holds(const ir::Op& loop) {
    const std::array<bool, 3> low{false, false, false};
    llvm::Value* positive = builder_.CreateICmpSGT(at_corner(loop.operands[2], low), builder_.getInt64(0));
    llvm::Value* ok = builder_.CreateAnd(positive, in_i32_range(loop.operands[0]));
    ok = builder_.CreateAnd(ok, in_i32_range(loop.operands[1]));
    return builder_.CreateAnd(ok, in_i32_range(loop.operands[2]));
  }

  // for (base = begin(x = 0); base < end; base += step) for each work-item x: i = base + x, and
  // if i < end the loop's body with counter i (after the region's pure ops for x). Work-item x
  // runs i = begin(x) + k * step for k = 0, 1, ... while i < end, as the loop says; in i64, where
  // nothing wraps (end <= INT32_MAX and a positive step: the loop as written ends where i + step
  // would overflow, which is past end).
  void interchanged_loops(const std::vector<const ir::Op*>& run, const ir::Op& loop) {
    auto* i64 = builder_.getInt64Ty();
    const std::array<bool, 3> low{false, false, false};
    llvm::Value* first = at_corner(loop.operands[0], low);
    llvm::Value* end = at_corner(loop.operands[1], low);
    llvm::Value* step = at_corner(loop.operands[2], low);
    llvm::BasicBlock* pre = builder_.GetInsertBlock();
    auto* header = llvm::BasicBlock::Create(context_, "lockstep.header", function_);
    auto* body = llvm::BasicBlock::Create(context_, "lockstep.body", function_);
    auto* exit = llvm::BasicBlock::Create(context_, "lockstep.exit", function_);
    builder_.CreateBr(header);
    builder_.SetInsertPoint(header);
    llvm::PHINode* base = builder_.CreatePHI(i64, 2, "lockstep.base");
    base->addIncoming(first, pre);
    builder_.CreateCondBr(builder_.CreateICmpSLT(base, end), body, exit);
    builder_.SetInsertPoint(body);
    counted_loop(block_[0], "wi.x", [&](llvm::Value* x, llvm::BasicBlock* next) {
      item_next_ = next;
      local_[0] = x;
      local_[1] = builder_.getInt32(0);
      local_[2] = builder_.getInt32(0);
      work_item_ = builder_.CreateZExt(x, i64);
      for (size_t j = 0; j + 1 < run.size(); ++j) operation(*run[j]);
      llvm::Value* i = builder_.CreateNSWAdd(base, work_item_);
      auto* then = llvm::BasicBlock::Create(context_, "lockstep.item", function_);
      builder_.CreateCondBr(builder_.CreateICmpSLT(i, end), then, next);
      builder_.SetInsertPoint(then);
      define(loop, builder_.CreateTrunc(i, builder_.getInt32Ty()));
      region(loop.regions[0]);
    });
    base->addIncoming(builder_.CreateNSWAdd(base, step), builder_.GetInsertBlock());
    builder_.CreateBr(header);
    builder_.SetInsertPoint(exit);
  }

  void return_(const ir::Op&) override {
    // In a wave-level op only this work-item (its whole wave, by the rule) is done; elsewhere a
    // Return is either the whole group's or followed by no other segment.
    if (in_wave_) builder_.CreateStore(builder_.getInt8(1), storage_address(item_returned_offset_, 1));
    else builder_.CreateStore(builder_.getTrue(), returned_);
    builder_.CreateBr(item_next_);
    continue_in_new_block();
  }

  // ---- target hooks -----------------------------------------------------------------------
  llvm::Value* workitem(ir::WorkItem w, unsigned dim) override {
    switch (w) {
      case ir::WorkItem::local_id: return local_[dim];
      case ir::WorkItem::group_id: return group_[dim];
      case ir::WorkItem::local_size: return block_[dim];
      case ir::WorkItem::num_groups: return grid_[dim];
      case ir::WorkItem::global_id:
        return builder_.CreateNSWAdd(builder_.CreateNSWMul(group_[dim], block_[dim]), local_[dim]);
      case ir::WorkItem::global_size: return builder_.CreateNSWMul(grid_[dim], block_[dim]);
      case ir::WorkItem::lane_id:
        if (lane_) return lane_;
        return builder_.CreateTrunc(builder_.CreateURem(work_item_, builder_.getInt64(host_wave_size)),
                                    builder_.getInt32Ty());
      case ir::WorkItem::wave_size: return builder_.getInt32(host_wave_size);
    }
    return nullptr;
  }

  // A wave op, inline: for each wave of the group's (or, in a wave-level op, this wave's)
  // work-items, the lanes' operands are copied into an array, combined there by the rule of
  // rocjit/compiler/semantics.hpp (wave_rule, shuffle_source, the trees of reduce_tree and
  // scan_tree; lanes combine through wave_combine, as on AMDGPU) and the results written to the
  // op's per-work-item storage. Operands come from per-work-item storage (stride = its item size)
  // or, when uniform, from one copy (stride 0).
  void wave(const ir::Op& op) override {
    using W = ir::WaveOp;
    namespace sem = ir::semantics;
    auto* i32 = builder_.getInt32Ty();
    auto* i64 = builder_.getInt64Ty();
    const W w = op.wave_op();
    const sem::WaveRule rule = sem::wave_rule(w);
    const ir::Type at = kernel_.value_type(op.operands[0]);
    llvm::Type* lt = llvm_type(at);
    auto [a, a_stride] = collective_operand(op.operands[0]);
    llvm::Value* b = nullptr, * b_stride = nullptr;
    if (op.operands.size() > 1) std::tie(b, b_stride) = collective_operand(op.operands[1]);
    llvm::Value* out = storage_address(value_offset_[op.result], item_bytes(op.type));
    llvm::Value* out_stride = builder_.getInt64(item_bytes(op.type));
    llvm::Value* items = builder_.CreateTrunc(collective_items(), i32);
    auto* lanes_ty = llvm::ArrayType::get(lt, host_wave_size);
    llvm::Value* x = entry_alloca(lanes_ty, nullptr, "waveop.lanes", 0);
    auto lane_ptr = [&](llvm::Value* array, llvm::Value* l) {
      return builder_.CreateInBoundsGEP(lanes_ty, array, {builder_.getInt32(0), l});
    };
    auto item_ptr = [&](llvm::Value* base, llvm::Value* stride, llvm::Value* item) {
      return builder_.CreateInBoundsGEP(builder_.getInt8Ty(), base, builder_.CreateNUWMul(builder_.CreateZExt(item, i64), stride));
    };
    auto store_result = [&](llvm::Value* item, llvm::Value* v) { builder_.CreateStore(v, item_ptr(out, out_stride, item)); };
    const unsigned width = host_wave_size;
    const bool full_path = full_wave_lowerable(op, a_stride, b_stride);
    // for (w0 = 0; w0 < items; w0 += width), active = min(width, items - w0)
    lane_loop(builder_.getInt32(0), items, builder_.getInt32(width), "waveop", [&](llvm::Value* w0) {
      llvm::Value* active = builder_.CreateBinaryIntrinsic(llvm::Intrinsic::umin, builder_.CreateSub(items, w0),
                                                           builder_.getInt32(width));
      // A full wave runs as straight-line vector code (full_wave); a partial one, the loops below.
      llvm::BasicBlock* join = nullptr;
      if (full_path) {
        auto* full = llvm::BasicBlock::Create(context_, "waveop.full", function_);
        auto* partial = llvm::BasicBlock::Create(context_, "waveop.partial", function_);
        join = llvm::BasicBlock::Create(context_, "waveop.join", function_);
        builder_.CreateCondBr(builder_.CreateICmpEQ(active, builder_.getInt32(width)), full, partial);
        builder_.SetInsertPoint(full);
        full_wave(op, a, a_stride, b, b_stride, out, w0, x);
        builder_.CreateBr(join);
        builder_.SetInsertPoint(partial);
      }
      lane_loop(builder_.getInt32(0), active, builder_.getInt32(1), "waveop.in", [&](llvm::Value* l) {
        builder_.CreateStore(builder_.CreateLoad(lt, item_ptr(a, a_stride, builder_.CreateAdd(w0, l))), lane_ptr(x, l));
      });
      auto lane_value = [&](llvm::Value* l) { return builder_.CreateLoad(lt, lane_ptr(x, l)); };
      switch (rule.form) {
        case sem::WaveForm::move: case sem::WaveForm::read_first:
          lane_loop(builder_.getInt32(0), active, builder_.getInt32(1), "waveop.out", [&](llvm::Value* l) {
            llvm::Value* operand = w == W::read_first
                                       ? static_cast<llvm::Value*>(builder_.getInt32(0))
                                       : builder_.CreateLoad(i32, item_ptr(b, b_stride, builder_.CreateAdd(w0, l)));
            llvm::Value* src = w == W::shuffle_xor    ? builder_.CreateXor(l, operand)
                               : w == W::shuffle_up   ? builder_.CreateSub(l, operand)
                               : w == W::shuffle_down ? builder_.CreateAdd(l, operand)
                                                      : operand;
            // An unsigned compare: a negative source is out of range too.
            llvm::Value* from = builder_.CreateSelect(builder_.CreateICmpULT(src, active), src, l);
            store_result(builder_.CreateAdd(w0, l), lane_value(from));
          });
          break;
        case sem::WaveForm::vote: {
          llvm::Value* bits = entry_alloca(i64, nullptr, "waveop.bits", 0);
          builder_.CreateStore(builder_.getInt64(0), bits);
          lane_loop(builder_.getInt32(0), active, builder_.getInt32(1), "waveop.vote", [&](llvm::Value* l) {
            llvm::Value* bit = builder_.CreateShl(builder_.CreateZExt(lane_value(l), i64), builder_.CreateZExt(l, i64));
            builder_.CreateStore(builder_.CreateOr(builder_.CreateLoad(i64, bits), bit), bits);
          });
          llvm::Value* mask = builder_.CreateLoad(i64, bits);
          // All active lanes: ~0 >> (64 - active).
          llvm::Value* all = builder_.CreateLShr(builder_.getInt64(~uint64_t{0}),
                                                 builder_.CreateZExt(builder_.CreateSub(builder_.getInt32(64), active), i64));
          llvm::Value* r = w == W::ballot ? mask
                           : w == W::any  ? builder_.CreateICmpNE(mask, builder_.getInt64(0))
                           : w == W::all  ? builder_.CreateICmpEQ(mask, all)
                                          : builder_.CreateTrunc(builder_.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, mask), i32);
          lane_loop(builder_.getInt32(0), active, builder_.getInt32(1), "waveop.out",
                    [&](llvm::Value* l) { store_result(builder_.CreateAdd(w0, l), r); });
          break;
        }
        case sem::WaveForm::reduce: {
          // reduce_tree: at distance k, lanes l = 0, 2k, 4k, ... with l + k < active.
          for (unsigned k = 1; k < width; k <<= 1) {
            llvm::Value* end = builder_.CreateSub(active, builder_.getInt32(k));
            lane_loop(builder_.getInt32(0), end, builder_.getInt32(2 * k), "waveop.tree", [&](llvm::Value* l) {
              llvm::Value* y = lane_value(builder_.CreateAdd(l, builder_.getInt32(k)));
              builder_.CreateStore(wave_combine(rule.combine, at, lane_value(l), y), lane_ptr(x, l));
            });
          }
          llvm::Value* r = lane_value(builder_.getInt32(0));
          lane_loop(builder_.getInt32(0), active, builder_.getInt32(1), "waveop.out",
                    [&](llvm::Value* l) { store_result(builder_.CreateAdd(w0, l), r); });
          break;
        }
        case sem::WaveForm::scan: {
          // scan_tree: at distance k, lanes l = active - 1 down to k. For integers every order of
          // the (wrapping, associative) additions gives the same sums: one running pass instead.
          if (!ir::is_float(at)) {
            lane_loop(builder_.getInt32(1), active, builder_.getInt32(1), "waveop.scan", [&](llvm::Value* l) {
              llvm::Value* before = lane_value(builder_.CreateSub(l, builder_.getInt32(1)));
              builder_.CreateStore(wave_combine(rule.combine, at, before, lane_value(l)), lane_ptr(x, l));
            });
          }
          for (unsigned k = 1; k < width && ir::is_float(at); k <<= 1) {
            llvm::Value* count = builder_.CreateSub(active, builder_.getInt32(k));
            lane_loop(builder_.getInt32(0), count, builder_.getInt32(1), "waveop.scan", [&](llvm::Value* i) {
              llvm::Value* l = builder_.CreateSub(builder_.CreateSub(active, builder_.getInt32(1)), i);
              llvm::Value* y = lane_value(builder_.CreateSub(l, builder_.getInt32(k)));
              builder_.CreateStore(wave_combine(rule.combine, at, y, lane_value(l)), lane_ptr(x, l));
            });
          }
          lane_loop(builder_.getInt32(0), active, builder_.getInt32(1), "waveop.out", [&](llvm::Value* l) {
            llvm::Value* r = lane_value(l);
            if (rule.exclusive) {
              llvm::Value* first = builder_.CreateICmpEQ(l, builder_.getInt32(0));
              llvm::Value* before = lane_value(builder_.CreateSelect(first, l, builder_.CreateSub(l, builder_.getInt32(1))));
              r = builder_.CreateSelect(first, llvm::Constant::getNullValue(lt), before);
            }
            store_result(builder_.CreateAdd(w0, l), r);
          });
          break;
        }
      }
      if (join) {
        builder_.CreateBr(join);
        builder_.SetInsertPoint(join);
      }
    });
  }

  // Whether wave() may lower a full wave of `op` as straight-line code on one LLVM vector of
  // host_wave_size lanes (full_wave): its operand and result are scalars of 32 or 64 bits (or a
  // vote's bool) whose per-work-item storage is contiguous, or a uniform operand (stride 0); a
  // move's lane operand is a constant (a constant shuffle), uniform for shuffle/broadcast (one
  // lane's value), or per lane (a gather from the lanes array `lanes`).
  bool full_wave_lowerable(const ir::Op& op, llvm::Value* a_stride, llvm::Value* b_stride) const {
    namespace sem = ir::semantics;
    const ir::WaveOp w = op.wave_op();
    const sem::WaveForm form = sem::wave_rule(w).form;
    const ir::Type at = kernel_.value_type(op.operands[0]);
    auto plain = [](ir::Type t) {
      return !t.is_vector() && (ir::byte_size(t) == 4 || ir::byte_size(t) == 8) && item_bytes(t) == ir::byte_size(t);
    };
    auto is_zero = [](llvm::Value* v) {
      auto* c = llvm::dyn_cast<llvm::ConstantInt>(v);
      return c && c->isZero();
    };
    if (at.is_vector() || op.type.is_vector()) return false;
    if (form == sem::WaveForm::vote) {
      if (at != ir::Type::i1 || (item_bytes(at) != 4 && !is_zero(a_stride))) return false;
      return op.type == ir::Type::i1 ? item_bytes(op.type) == 4 : plain(op.type);
    }
    if (!plain(at) || !plain(op.type) || op.type != at) return false;
    if (form != sem::WaveForm::move || w == ir::WaveOp::read_first || is_constant(op.operands[1])) return true;
    // Any other lane operand: uniform for shuffle/broadcast, else per lane (an i32 in 4-byte items).
    if ((w == ir::WaveOp::shuffle || w == ir::WaveOp::broadcast) && is_zero(b_stride)) return true;
    return item_bytes(kernel_.value_type(op.operands[1])) == 4;
  }

  // A full wave of wave op `op` (full_wave_lowerable) for the lanes w0 .. w0 + host_wave_size - 1:
  // the operand as one vector, the rule of rocjit/compiler/semantics.hpp on it, the result stored
  // as one vector. The same combinations in the same order as wave()'s loops with active =
  // width: the reduction tree combines lane l with lane l + k at step k (the lanes that are not
  // multiples of 2k compute partials nobody reads), the scan's step k combines (lane l - k, lane
  // l) where l >= k and keeps the rest, so float results are bit-identical; integer reductions
  // (any order gives the same value) use LLVM's reduction intrinsics.
  void full_wave(const ir::Op& op, llvm::Value* a, llvm::Value* a_stride, llvm::Value* b, llvm::Value* b_stride,
                 llvm::Value* out, llvm::Value* w0, llvm::Value* lanes) {
    using W = ir::WaveOp;
    namespace sem = ir::semantics;
    const unsigned width = host_wave_size;
    auto* i32 = builder_.getInt32Ty();
    auto* i64 = builder_.getInt64Ty();
    const W w = op.wave_op();
    const sem::WaveRule rule = sem::wave_rule(w);
    const ir::Type at = kernel_.value_type(op.operands[0]);
    llvm::Type* lt = llvm_type(at);
    auto is_zero = [](llvm::Value* v) {
      auto* c = llvm::dyn_cast<llvm::ConstantInt>(v);
      return c && c->isZero();
    };
    // The lanes' values of operand `v` (element type et) from (base, stride).
    auto load_lanes = [&](llvm::Value* base, llvm::Value* stride, ir::ValueId v, llvm::Type* et) -> llvm::Value* {
      if (is_zero(stride)) return builder_.CreateVectorSplat(width, builder_.CreateLoad(et, base));
      const ir::Type t = kernel_.value_type(v);
      const uint64_t item = item_bytes(t);
      llvm::Value* p = builder_.CreateInBoundsGEP(builder_.getInt8Ty(), base,
                                                  builder_.CreateNUWMul(builder_.CreateZExt(w0, i64), builder_.getInt64(item)));
      if (t == ir::Type::i1) {
        // A bool is stored as an i1 at the start of each 4-byte item: bit 0 of each i32 (the
        // other bits are not the bool's). A test of bit 0 rather than a truncation of every 4th
        // byte, which x86 lowered lane by lane (the ballots of bench-cpu's radix-pass got slower).
        auto* words = llvm::FixedVectorType::get(i32, width);
        llvm::Value* all = builder_.CreateAlignedLoad(words, p, llvm::Align(4));
        return builder_.CreateICmpNE(builder_.CreateAnd(all, builder_.CreateVectorSplat(width, builder_.getInt32(1))),
                                     llvm::Constant::getNullValue(words));
      }
      return builder_.CreateAlignedLoad(llvm::FixedVectorType::get(et, width), p, llvm::Align(ir::byte_size(t)));
    };
    auto store_lanes = [&](llvm::Value* r) {
      const uint64_t item = item_bytes(op.type);
      llvm::Value* p = builder_.CreateInBoundsGEP(builder_.getInt8Ty(), out,
                                                  builder_.CreateNUWMul(builder_.CreateZExt(w0, i64), builder_.getInt64(item)));
      // A bool result: a 4-byte item whose first byte is the bool (0 or 1).
      if (op.type == ir::Type::i1) r = builder_.CreateZExt(r, llvm::FixedVectorType::get(i32, width));
      builder_.CreateAlignedStore(r, p, llvm::Align(op.type == ir::Type::i1 ? 4 : ir::byte_size(op.type)));
    };
    llvm::Value* x = load_lanes(a, a_stride, op.operands[0], lt);
    switch (rule.form) {
      case sem::WaveForm::read_first:
        store_lanes(builder_.CreateVectorSplat(width, builder_.CreateExtractElement(x, uint64_t{0})));
        return;
      case sem::WaveForm::move: {
        if (is_constant(op.operands[1])) {
          // shuffle_source per lane, at compile time; a source outside the wave reads the lane's own.
          const auto c = static_cast<int64_t>(static_cast<int32_t>(kernel_.values[op.operands[1]].def->int_value()));
          llvm::SmallVector<int, 64> mask;
          for (unsigned l = 0; l < width; ++l) {
            const int64_t src = sem::shuffle_source(w, l, c);
            mask.push_back(src >= 0 && src < int64_t{width} ? static_cast<int>(src) : static_cast<int>(l));
          }
          store_lanes(builder_.CreateShuffleVector(x, mask));
          return;
        }
        // One lane's value everywhere, if lane `src` exists; else every lane keeps its own.
        auto from_one_lane = [&](llvm::Value* src) {
          llvm::Value* inside = builder_.CreateICmpULT(src, builder_.getInt32(width));
          llvm::Value* picked = builder_.CreateExtractElement(x, builder_.CreateSelect(inside, src, builder_.getInt32(0)));
          store_lanes(builder_.CreateSelect(inside, builder_.CreateVectorSplat(width, picked), x));
        };
        if (!is_zero(b_stride) || (w != W::shuffle && w != W::broadcast)) {
          // Per-lane sources (or a uniform offset of shuffle_xor/up/down): shuffle_source on the vectors, then a gather from the lanes array.
          llvm::Value* operand = load_lanes(b, b_stride, op.operands[1], i32);
          llvm::BasicBlock* join = nullptr;
          if (w == W::shuffle || w == W::broadcast) {
            // A per-lane source that is the same in every lane of this wave (scan's
            // broadcast(offsets, t / wave_size())) is one lane's value, tested at run time: four
            // vector compares instead of a 64-lane gather.
            llvm::Value* first = builder_.CreateExtractElement(operand, uint64_t{0});
            llvm::Value* same = builder_.CreateAndReduce(builder_.CreateICmpEQ(operand, builder_.CreateVectorSplat(width, first)));
            auto* one = llvm::BasicBlock::Create(context_, "waveop.one_source", function_);
            auto* many = llvm::BasicBlock::Create(context_, "waveop.gather", function_);
            join = llvm::BasicBlock::Create(context_, "waveop.moved", function_);
            builder_.CreateCondBr(same, one, many);
            builder_.SetInsertPoint(one);
            from_one_lane(first);
            builder_.CreateBr(join);
            builder_.SetInsertPoint(many);
          }
          llvm::SmallVector<llvm::Constant*, 64> ids;
          for (unsigned l = 0; l < width; ++l) ids.push_back(builder_.getInt32(l));
          llvm::Value* lane = llvm::ConstantVector::get(ids);
          llvm::Value* src = w == W::shuffle_xor    ? builder_.CreateXor(lane, operand)
                             : w == W::shuffle_up   ? builder_.CreateSub(lane, operand)
                             : w == W::shuffle_down ? builder_.CreateAdd(lane, operand)
                                                    : operand;
          // An unsigned compare: a negative source is outside too, and reads the lane's own value.
          src = builder_.CreateSelect(builder_.CreateICmpULT(src, builder_.CreateVectorSplat(width, builder_.getInt32(width))),
                                      src, lane);
          builder_.CreateAlignedStore(x, lanes, llvm::Align(ir::byte_size(at)));
          llvm::Value* from = builder_.CreateInBoundsGEP(lt, lanes, builder_.CreateZExt(src, llvm::FixedVectorType::get(i64, width)));
          store_lanes(builder_.CreateMaskedGather(x->getType(), from, llvm::Align(ir::byte_size(at))));
          if (join) {
            builder_.CreateBr(join);
            builder_.SetInsertPoint(join);
          }
          return;
        }
        // shuffle or broadcast from a uniform lane.
        from_one_lane(builder_.CreateLoad(i32, b));
        return;
      }
      case sem::WaveForm::vote: {
        llvm::Value* mask = builder_.CreateBitCast(x, builder_.getIntNTy(width));
        if (width < 64) mask = builder_.CreateZExt(mask, i64);
        const uint64_t all = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
        llvm::Value* r = w == W::ballot ? mask
                         : w == W::any  ? builder_.CreateICmpNE(mask, builder_.getInt64(0))
                         : w == W::all  ? builder_.CreateICmpEQ(mask, builder_.getInt64(all))
                                        : builder_.CreateTrunc(builder_.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, mask), i32);
        store_lanes(builder_.CreateVectorSplat(width, r));
        return;
      }
      case sem::WaveForm::reduce: {
        llvm::Value* r = nullptr;
        if (!ir::is_float(at)) {
          const bool s = ir::is_signed(at);
          switch (rule.combine) {
            case ir::BinaryOp::add: r = builder_.CreateAddReduce(x); break;
            case ir::BinaryOp::and_: r = builder_.CreateAndReduce(x); break;
            case ir::BinaryOp::or_: r = builder_.CreateOrReduce(x); break;
            case ir::BinaryOp::xor_: r = builder_.CreateXorReduce(x); break;
            case ir::BinaryOp::min: r = builder_.CreateIntMinReduce(x, s); break;
            case ir::BinaryOp::max: r = builder_.CreateIntMaxReduce(x, s); break;
            case ir::BinaryOp::sub: case ir::BinaryOp::mul: case ir::BinaryOp::div: case ir::BinaryOp::rem:
            case ir::BinaryOp::shl: case ir::BinaryOp::shr:
              throw rocjit::Error(fmt::format("internal error: wave reduction by {}", ir::binary_op_name(rule.combine)));
          }
        } else {
          // reduce_tree: step k, lane l = combine(lane l, lane l + k); lane 0 holds the result.
          for (unsigned k = 1; k < width; k <<= 1) {
            llvm::SmallVector<int, 64> up;
            for (unsigned l = 0; l < width; ++l) up.push_back(static_cast<int>(l + k < width ? l + k : l));
            x = wave_combine(rule.combine, at, x, builder_.CreateShuffleVector(x, up));
          }
          r = builder_.CreateExtractElement(x, uint64_t{0});
        }
        store_lanes(builder_.CreateVectorSplat(width, r));
        return;
      }
      case sem::WaveForm::scan: {
        // scan_tree (Hillis-Steele): step k, lane l >= k = combine(lane l - k, lane l). Integer
        // additions shift in zeros (x + 0 = x); floats keep lanes below k as they are (-0 + 0
        // would be +0).
        llvm::Value* zero = llvm::Constant::getNullValue(x->getType());
        for (unsigned k = 1; k < width; k <<= 1) {
          llvm::SmallVector<int, 64> down;
          llvm::SmallVector<llvm::Constant*, 64> moved;
          for (unsigned l = 0; l < width; ++l) {
            down.push_back(static_cast<int>(l >= k ? l - k : width + l));
            moved.push_back(builder_.getInt1(l >= k));
          }
          llvm::Value* combined = wave_combine(rule.combine, at, builder_.CreateShuffleVector(x, zero, down), x);
          x = ir::is_float(at) ? builder_.CreateSelect(llvm::ConstantVector::get(moved), combined, x) : combined;
        }
        if (rule.exclusive) {
          llvm::SmallVector<int, 64> shift{static_cast<int>(width)};
          for (unsigned l = 0; l + 1 < width; ++l) shift.push_back(static_cast<int>(l));
          x = builder_.CreateShuffleVector(x, zero, shift);
        }
        store_lanes(x);
        return;
      }
    }
  }

  // for (i = begin; i < end; i += step) body(i), with i32 values; `end` may be below `begin`
  // (signed compare: no iteration).
  template <class F>
  void lane_loop(llvm::Value* begin, llvm::Value* end, llvm::Value* step, const char* name, F&& body) {
    llvm::BasicBlock* pre = builder_.GetInsertBlock();
    auto* header = llvm::BasicBlock::Create(context_, std::string(name) + ".header", function_);
    auto* loop = llvm::BasicBlock::Create(context_, std::string(name) + ".body", function_);
    auto* exit = llvm::BasicBlock::Create(context_, std::string(name) + ".exit", function_);
    builder_.CreateBr(header);
    builder_.SetInsertPoint(header);
    llvm::PHINode* i = builder_.CreatePHI(builder_.getInt32Ty(), 2, name);
    i->addIncoming(begin, pre);
    builder_.CreateCondBr(builder_.CreateICmpSLT(i, end), loop, exit);
    builder_.SetInsertPoint(loop);
    body(static_cast<llvm::Value*>(i));
    i->addIncoming(builder_.CreateNSWAdd(i, step), builder_.GetInsertBlock());
    builder_.CreateBr(header)->setMetadata(llvm::LLVMContext::MD_loop,
                                           work_item_loop_metadata(std::string_view(name).starts_with("waveop.in") ||
                                                                   std::string_view(name).starts_with("waveop.out")));
    builder_.SetInsertPoint(exit);
  }

  // mma, inline: for each wave of the group (or the wave, in wave-level control) and each of its
  // lanes, every element of C is a chain of fused multiply-adds over k, or under a model with
  // groups (Settings::mma_model) a chain of group sums each rounded once (ir::mma::interpret's
  // definition), A's and B's elements read from the per-work-item storage of the lanes that hold
  // them (the layout's terms, rocjit/compiler/mma.hpp), as AMDGPU processors without matrix cores
  // compute it. The interpreter runs ir::mma::interpret itself: two independent executors.
  void mma(const ir::Op& op) override {
    auto* i32 = builder_.getInt32Ty();
    auto* i64 = builder_.getInt64Ty();
    const auto& attrs = op.get<ir::MmaAttrs>();
    const ir::mma::Shape shape{attrs.m, attrs.n, attrs.k};
    const ir::mma::Counts n = ir::mma::counts(shape);
    const ir::Type in = kernel_.value_type(op.operands[1]).element_of();
    const ir::Type acc = op.type.element_of();
    llvm::Type* in_type = llvm_type(in);
    llvm::Type* acc_type = llvm_type(acc);
    auto [c, c_stride] = collective_operand(op.operands[0]);
    auto [a, a_stride] = collective_operand(op.operands[1]);
    auto [b, b_stride] = collective_operand(op.operands[2]);
    llvm::Value* out = storage_address(value_offset_[op.result], item_bytes(op.type));
    llvm::Value* out_stride = builder_.getInt64(item_bytes(op.type));
    // Element `e` of the fragment value of work-item `item` in storage (base, stride).
    auto element_ptr = [&](llvm::Value* base, llvm::Value* stride, llvm::Value* item, llvm::Type* t, unsigned e) {
      llvm::Value* at = builder_.CreateInBoundsGEP(builder_.getInt8Ty(), base,
                                                   builder_.CreateNUWMul(builder_.CreateZExt(item, i64), stride));
      return builder_.CreateInBoundsGEP(t, at, builder_.getInt32(e));
    };
    // A value of A or B as the accumulator's type (exact); xf32 cut to xf32 (cut_to_xf32), which
    // the fma chain then multiplies exactly.
    auto widen = [&](llvm::Value* x) -> llvm::Value* {
      if (acc == ir::Type::i32) return builder_.CreateSExt(x, i32);
      if (in == ir::Type::f16 || in == ir::Type::bf16) return widen_narrow_float(x);
      if (attrs.precision == ir::mma::Precision::xf32) return cut_to_xf32(x);
      return x;
    };
    namespace layout = ir::mma;
    // The numerics model (Settings::mma_model): f16/bf16 under cdna2/cdna3 round groups of
    // products once; everything else is the fma chain below.
    const layout::Model model = layout::model_named(settings_.mma_model).value_or(layout::Model::cdna3);
    const layout::Numerics numbers = layout::numerics(model, in);
    const bool grouped = acc == ir::Type::f32 && numbers.group > 1;
    const std::vector<unsigned> order = layout::step_order(model, in, shape);
    auto* f64 = builder_.getDoubleTy();
    llvm::Value* terms = nullptr;
    llvm::FunctionCallee sum_f32;
    if (grouped) {
      llvm::Function* fn = builder_.GetInsertBlock()->getParent();
      llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
      terms = entry.CreateAlloca(llvm::ArrayType::get(f64, 1 + numbers.group), nullptr, "mma.terms");
      sum_f32 = module_.getOrInsertFunction(
          "rocjit_host_mma_sum_f32",
          llvm::FunctionType::get(builder_.getFloatTy(), {builder_.getPtrTy(), i32, i32}, false));
    }
    // A subnormal float (|x| < smallest normal) as a zero of its sign.
    auto flush = [&](llvm::Value* x, double smallest) -> llvm::Value* {
      llvm::Value* tiny = builder_.CreateFCmpOLT(builder_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x),
                                                 llvm::ConstantFP::get(x->getType(), smallest));
      llvm::Value* zero = builder_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign,
                                                         llvm::ConstantFP::get(x->getType(), 0.0), x);
      return builder_.CreateSelect(tiny, zero, x);
    };
    llvm::Value* items = builder_.CreateTrunc(collective_items(), i32);
    lane_loop(builder_.getInt32(0), items, builder_.getInt32(layout::wave_lanes), "mma", [&](llvm::Value* w0) {
      lane_loop(builder_.getInt32(0), builder_.getInt32(layout::wave_lanes), builder_.getInt32(1), "mma.lane",
                [&](llvm::Value* l) {
        llvm::Value* me = builder_.CreateAdd(w0, l);
        llvm::Value* col = builder_.CreateURem(l, builder_.getInt32(shape.n));
        llvm::Value* group_rows = builder_.CreateMul(builder_.CreateUDiv(l, builder_.getInt32(shape.n)),
                                                     builder_.getInt32(layout::c_row(shape, shape.n, 0)));
        std::vector<llvm::Value*> sums(n.c);
        for (unsigned e = 0; e < n.c; ++e) {
          llvm::Value* row = builder_.CreateAdd(group_rows, builder_.getInt32(layout::c_row(shape, 0, e)));
          llvm::Value* sum = builder_.CreateLoad(acc_type, element_ptr(c, c_stride, me, acc_type, e));
          auto load_a = [&](unsigned kk) {
            llvm::Value* a_src = builder_.CreateAdd(w0, builder_.CreateAdd(row, builder_.getInt32(layout::a_lane(shape, 0, kk))));
            return widen(builder_.CreateLoad(in_type, element_ptr(a, a_stride, a_src, in_type, layout::a_element(shape, 0, kk))));
          };
          auto load_b = [&](unsigned kk) {
            llvm::Value* b_src = builder_.CreateAdd(w0, builder_.CreateAdd(col, builder_.getInt32(layout::b_lane(shape, kk, 0))));
            return widen(builder_.CreateLoad(in_type, element_ptr(b, b_stride, b_src, in_type, layout::b_element(shape, kk, 0))));
          };
          if (grouped) {
            // The model's steps: each group of products (exact in double) and the running sum
            // rounded once by rocjit_host_mma_sum_f32 (ir::mma::round_sum_f32), in step order.
            if (numbers.flush) sum = flush(sum, 0x1p-126);
            const double smallest = in == ir::Type::f16 ? 0x1p-14 : 0x1p-126;
            for (size_t g = 0; g < order.size(); g += numbers.group) {
              builder_.CreateStore(builder_.CreateFPExt(sum, f64), terms);
              for (unsigned i = 0; i < numbers.group; ++i) {
                llvm::Value* x = load_a(order[g + i]);
                llvm::Value* y = load_b(order[g + i]);
                if (numbers.flush) {
                  x = flush(x, smallest);
                  y = flush(y, smallest);
                }
                builder_.CreateStore(builder_.CreateFMul(builder_.CreateFPExt(x, f64), builder_.CreateFPExt(y, f64)),
                                     builder_.CreateConstInBoundsGEP1_32(f64, terms, 1 + i));
              }
              sum = builder_.CreateCall(sum_f32, {terms, builder_.getInt32(1 + numbers.group),
                                                  builder_.getInt32(numbers.flush ? 1 : 0)});
            }
            sums[e] = sum;
            continue;
          }
          for (unsigned kk = 0; kk < shape.k; ++kk) {
            llvm::Value* x = load_a(kk);
            llvm::Value* y = load_b(kk);
            sum = acc == ir::Type::i32 ? builder_.CreateAdd(sum, builder_.CreateMul(x, y))
                                       : builder_.CreateIntrinsic(llvm::Intrinsic::fma, {acc_type}, {x, y, sum});
          }
          sums[e] = sum;
        }
        // Stored after every element is computed: the result may share no storage with C, A or B,
        // but this keeps the loads of a lane ahead of its stores regardless.
        for (unsigned e = 0; e < n.c; ++e) builder_.CreateStore(sums[e], element_ptr(out, out_stride, me, acc_type, e));
      });
    });
  }

  // LLVM 22's loop vectorizer miscompiles loads indexed by `id % C` or `id & (C - 1)` in the
  // work-item loops: it takes the address for consecutive and loads s(4) for t = 4 where
  // s(t % 4) means s(0) (tests/smith/known-external.md). XOR-ing the result with a zero the
  // optimiser cannot see (rocjit_host_zero, loaded once per call) makes it opaque to scalar
  // evolution, so such an index is computed per work-item. A freeze would not do: InstCombine
  // drops it. Cost: one xor.
  llvm::Value* integer_wrap_guard(llvm::Value* v) override {
    if (!workaround(Workaround::host_rem_index)) return v;
    if (!host_zero_) {
      llvm::BasicBlock& entry = function_->getEntryBlock();
      llvm::IRBuilder<> b(&entry, entry.getTerminator() ? entry.getTerminator()->getIterator() : entry.end());
      auto* zero = module_.getOrInsertGlobal("rocjit_host_zero", b.getInt64Ty());
      host_zero_ = b.CreateLoad(b.getInt64Ty(), zero, "opaque.zero");
    }
    return builder_.CreateXor(v, builder_.CreateTrunc(host_zero_, v->getType()));
  }

  // How many work-items a collective call covers, from group_item(): the group's or the wave's.
  llvm::Value* collective_items() { return in_wave_ ? wave_count_ : threads_; }

  // Where a collective call (wave op, checked uniform) reads an operand for every work-item: its
  // per-work-item storage (work-item 0's address, stride = item size) or, for a value the group
  // computed once, one copy (stride 0).
  std::pair<llvm::Value*, llvm::Value*> collective_operand(ir::ValueId v) {
    const ir::Type t = kernel_.value_type(v);
    if (spilled_[v] && def_segment_[v] != group_segment)
      return {storage_address(value_offset_[v], item_bytes(t)), builder_.getInt64(item_bytes(t))};
    llvm::AllocaInst* one = entry_alloca(t.is_vector() ? llvm_type(t) : builder_.getInt64Ty(), nullptr,
                                         "collective.uniform", 0);
    builder_.CreateStore(value(v), one);
    return {one, builder_.getInt64(0)};
  }

  // uniform(x): the value; checked for the whole group where plan_region made it a collective.
  llvm::Value* uniform(const ir::Op& op) override {
    if (!checked_uniform_.count(&op)) return KernelLowering::uniform(op);
    auto* ptr = builder_.getPtrTy();
    auto* i32 = builder_.getInt32Ty();
    auto* i64 = builder_.getInt64Ty();
    BoundsCheck check;
    check.access = "uniform";
    check.type = op.type;
    check.loc = op.loc;
    const auto id = static_cast<int32_t>(checks_.size());
    checks_.push_back(std::move(check));
    auto [in, in_stride] = collective_operand(op.operands[0]);
    llvm::Value* out = storage_address(value_offset_[op.result], item_bytes(op.type));
    auto* fty = llvm::FunctionType::get(builder_.getVoidTy(), {i32, ptr, i64, ptr, i64, i32, ptr, ptr, i32}, false);
    builder_.CreateCall(module_.getOrInsertFunction("rocjit_host_uniform", fty),
                        {builder_.getInt32(std::bit_cast<uint32_t>(op.type)), in, in_stride, out,
                         builder_.getInt64(item_bytes(op.type)), builder_.CreateTrunc(collective_items(), i32), report_,
                         report_state_, builder_.getInt32(id)});
    // The result lives in storage (the op's own segment); work-items read it from there.
    return builder_.CreateLoad(llvm_type(op.type), out);
  }

  // Barriers are the boundaries between work-item loops; nothing to emit, but the race checker
  // is told (once per group, or once per wave for a wavebarrier in wave-level control).
  void barrier(const ir::Op& op) override {
    if (auto it = race_fills_.find(&op); it != race_fills_.end()) {
      // Static shared arrays every work-item has now written all of (passes::shared_fills): filled
      // before the checker's call, which then need not scan their cells.
      uint64_t bits = 0;
      for (ir::MemoryId id : it->second)
        if (auto bit = race_shared_bit_.find(id); bit != race_shared_bit_.end()) bits |= uint64_t{1} << bit->second;
      if (bits != 0) {
        llvm::Value* field = builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), race_fast_,
                                                                 offsetof(HostRaceFast, initialized));
        llvm::Value* now = builder_.CreateLoad(builder_.getInt64Ty(), field);
        builder_.CreateStore(builder_.CreateOr(now, builder_.getInt64(bits)), field);
      }
    }
    race_sync(op.fences() & ir::fence_global ? HostSync::barrier_global : HostSync::barrier, nullptr, nullptr);
  }
  void wavebarrier(const ir::Op&) override { race_sync(HostSync::wavebarrier, nullptr, nullptr); }

  // `item`: the work-item's linear local id (fences, atomics), or null (barriers, between
  // work-item loops); `address`: an atomic's element, or null.
  void race_sync(HostSync kind, llvm::Value* item, llvm::Value* address) {
    if (!check_races) return;
    auto* type = llvm::FunctionType::get(builder_.getVoidTy(), {builder_.getPtrTy(), builder_.getInt32Ty(),
                                                                builder_.getInt64Ty(), builder_.getInt32Ty(),
                                                                builder_.getPtrTy()}, false);
    builder_.CreateCall(type, race_sync_, {race_state_, builder_.getInt32(static_cast<int32_t>(kind)), group_linear_,
                                           item ? item : builder_.getInt32(-1),
                                           address ? address : llvm::ConstantPointerNull::get(builder_.getPtrTy())});
    // What RaceLaunch::sync changes: at a group's start and barriers the floors and filled
    // arrays too, at wavebarriers and fences the context; after an atomic read nothing.
    if (kind == HostSync::group_begin || kind == HostSync::barrier || kind == HostSync::barrier_global)
      race_reload(false);
    else if (kind != HostSync::acquired && kind != HostSync::read_relaxed)
      race_reload(true);
  }

  // After a hook: the HostRaceFast fields it may have changed (only the context, or all), into
  // their variables.
  void race_reload(bool context_only) {
    for (auto [var, offset] : race_reloaded_)
      if (!context_only || offset == offsetof(HostRaceFast, context))
        builder_.CreateStore(
            builder_.CreateLoad(builder_.getInt64Ty(),
                                builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), race_fast_, offset)),
            var);
  }

  // After an atomic read of shared or global memory: what it read is only then known (a release
  // seen by this read may have happened after the hook before the access).
  void atomic_done(const ir::Op& op, const ir::Memory& m, llvm::Value* address) override {
    if (!check_races || (m.space != ir::MemorySpace::shared && m.space != ir::MemorySpace::global) ||
        op.atomic_op() == ir::AtomicOp::store)
      return;
    // A relaxed read matters only to a later acquire fence, which needs a release to acquire.
    if (!ir::acquires(op.order()) && !race_releases_) return;
    race_sync(ir::acquires(op.order()) ? HostSync::acquired : HostSync::read_relaxed,
              builder_.CreateTrunc(work_item_, builder_.getInt32Ty()), address);
  }

  // A fence that orders memory between work-items (not relaxed): the race checker models its
  // acquire and release (runtime/cpu/race_checker.cpp).
  void fence(const ir::Op& op) override {
    using O = ir::MemoryOrder;
    if (op.order() != O::relaxed)
      race_sync(op.order() == O::acquire ? HostSync::fence_acquire
                : op.order() == O::release ? HostSync::fence_release
                                           : HostSync::fence_acq_rel,
                builder_.CreateTrunc(work_item_, builder_.getInt32Ty()), nullptr);
    KernelLowering::fence(op);
  }

  // Race checking: the bit an access may go unchecked on. Of HostRaceFast::unchecked, an array
  // parameter's whose rule a launch may confirm (HostRaceArray); of HostRaceFast::initialized, a
  // static shared array's in the table (HostRaceShared), for a read no write of the array shares
  // the interval with. None for accesses always checked.
  struct RaceSkipBit {
    bool filled = false;  // of `initialized` (else of `unchecked`)
    unsigned bit = 0;
  };
  std::optional<RaceSkipBit> race_skip_bit(const ir::Op& op, const ir::Memory& m) const {
    if (m.space == ir::MemorySpace::global && m.param_index >= 0 && m.param_index < 64 &&
        (race_may_skip_ >> m.param_index & 1))
      return RaceSkipBit{false, static_cast<unsigned>(m.param_index)};
    if (m.space == ir::MemorySpace::shared && race_interval_free_.count(&op))
      if (auto it = race_shared_bit_.find(op.memory()); it != race_shared_bit_.end()) return RaceSkipBit{true, it->second};
    return std::nullopt;
  }

  // Race checking: whether every access of a region's ops may go unchecked at some launches or
  // groups, and the bits that then hold (of HostRaceFast::unchecked: array parameters whose
  // launch-time proof holds; of HostRaceFast::initialized: shared arrays the group has filled, read
  // where no write of them shares the interval). Not with atomics, fences, barriers or other ops
  // that touch memory (their hooks must run), nor for a region without any checked access.
  std::optional<std::pair<uint64_t, uint64_t>> race_skippable(const std::vector<const ir::Op*>& run) const {
    if (!check_races) return std::nullopt;
    uint64_t params = 0, shared = 0;
    bool ok = true;
    auto visit = [&](const ir::Op& o) {
      const ir::OpInfo& info = ir::op_info(o.kind);
      if (info.effect == ir::OpEffect::synchronizes) ok = false;
      if (info.reference != ir::OpReference::indexed) return;  // not `shape`: it reads no element
      const ir::Memory& m = kernel_.memories[o.memory()];
      if ((m.space != ir::MemorySpace::shared && m.space != ir::MemorySpace::global) || race_unstamped_.count(&o)) return;
      const auto skip = race_skip_bit(o, m);
      // Atomics only as race-free shared accesses (relaxed, in a kernel without acquire or
      // release: their hooks record nothing the checker needs).
      if (!skip || (o.kind != OpKind::load && o.kind != OpKind::store && !(o.kind == OpKind::atomic && skip->filled)))
        ok = false;
      else
        (skip->filled ? shared : params) |= uint64_t{1} << skip->bit;
    };
    for (const ir::Op* op : run) {
      visit(*op);
      for (const ir::Region& sub : op->regions) ir::walk(sub, visit);
    }
    if (!ok || (params == 0 && shared == 0)) return std::nullopt;
    return std::pair{params, shared};
  }

  // The race checker's hook before an access of shared or global memory at `address` (site `id`):
  // a scalar load or store of a kernel without bounds checks is checked inline (race_inline),
  // which calls race_access only for a possible conflict; other accesses call it always.
  void race_access(const ir::Op& op, const ir::Memory& m, int32_t id, llvm::Value* address) {
    auto* i64 = builder_.getInt64Ty();
    llvm::BasicBlock* done = nullptr;
    // An array the launch may leave unchecked (HostRaceFast::unchecked; loaded once per call), or
    // a read of a shared array once the group has written all of it (initialized, as of the last
    // barrier): both loop-invariant tests.
    if (const auto skip = race_skip_bit(op, m)) {
      done = llvm::BasicBlock::Create(context_, "race.done", function_);
      auto* checked = llvm::BasicBlock::Create(context_, skip->filled ? "race.unfilled" : "race.checked", function_);
      llvm::Value* bits = skip->filled ? builder_.CreateLoad(i64, race_initialized_) : race_unchecked_;
      llvm::Value* bit = builder_.CreateAnd(bits, builder_.getInt64(uint64_t{1} << skip->bit));
      builder_.CreateCondBr(builder_.CreateICmpNE(bit, builder_.getInt64(0)), done, checked);
      builder_.SetInsertPoint(checked);
    }
    llvm::Value* stored = builder_.getInt64(0);
    if (op.kind == OpKind::store) {
      llvm::Value* v = value(op.operands[m.rank]);
      if (!v->getType()->isVectorTy()) {
        if (!v->getType()->isIntegerTy())
          v = builder_.CreateBitCast(v, builder_.getIntNTy(static_cast<unsigned>(v->getType()->getPrimitiveSizeInBits())));
        stored = builder_.CreateZExtOrTrunc(v, i64);
      }
    }
    const bool inline_check = !bounds_check_ && (op.kind == OpKind::load || op.kind == OpKind::store) &&
                              ir::access_lanes(kernel_, op) == 1;
    if (!done) done = llvm::BasicBlock::Create(context_, "race.done", function_);
    if (inline_check) {
      auto* slow = llvm::BasicBlock::Create(context_, "race.slow", function_);
      // A shared access nothing of its interval conflicts with: a read is checked for an
      // unwritten element and not recorded, a write only stamped.
      const bool interval_free = m.space == ir::MemorySpace::shared && race_interval_free_.count(&op);
      race_inline(m.space == ir::MemorySpace::global, op.kind == OpKind::store, id, address, slow, done, interval_free);
      builder_.SetInsertPoint(slow);
    }
    auto* type = llvm::FunctionType::get(builder_.getVoidTy(), {builder_.getPtrTy(), builder_.getInt32Ty(),
                                                                builder_.getPtrTy(), i64, builder_.getInt32Ty(), i64},
                                         false);
    builder_.CreateCall(type, race_access_, {race_state_, builder_.getInt32(id), address, group_linear_,
                                             builder_.CreateTrunc(work_item_, builder_.getInt32Ty()), stored});
    // An atomic release starts a new context (RaceLaunch::access); other accesses change nothing
    // the variables hold.
    if (op.kind == OpKind::atomic && op.atomic_op() != ir::AtomicOp::load && ir::releases(op.order()))
      race_reload(true);
    builder_.CreateBr(done);
    builder_.SetInsertPoint(done);
  }

  // The inline race check of a scalar non-atomic access (the rules are race_checker.cpp's): the
  // cell's stamps that the access is compared with (a read: the last write; a write: the last
  // write, read and read by another work-item) must each be empty, of this work-item, or of this
  // group before its last barrier (shared memory) or last barrier with a global fence (global
  // memory; there also of this group at all: its contexts are group_first to context). Then no
  // rule reports and the cell is updated here; otherwise, or when the cell has no page yet or its
  // lock is taken, `slow` (the call). Global cells are updated under their page's lock word. A
  // shared access of passes::interval_race_free (`interval_free`) can conflict with nothing the
  // stamps hold: a write only stamps its cell, a read tests only that the group wrote the element
  // and leaves the cell as it is.
  void race_inline(bool global, bool write, int32_t id, llvm::Value* address, llvm::BasicBlock* slow,
                   llvm::BasicBlock* done, bool interval_free) {
    auto* i8 = builder_.getInt8Ty();
    auto* i32 = builder_.getInt32Ty();
    auto* i64 = builder_.getInt64Ty();
    auto* ptr = builder_.getPtrTy();
    auto block = [&](const char* n) { return llvm::BasicBlock::Create(context_, n, function_); };
    auto at = [&](llvm::Value* base, uint64_t offset) { return builder_.CreateConstInBoundsGEP1_64(i8, base, offset); };
    llvm::Value* item = builder_.CreateTrunc(work_item_, i32);
    llvm::Value* context = builder_.CreateLoad(i64, race_context_, "race.context");
    llvm::Value* first = builder_.CreateLoad(i64, race_first_, "race.first");
    llvm::Value* floor = builder_.CreateLoad(i64, global ? race_global_floor_ : race_barrier_floor_, "race.floor");
    llvm::Value* cell = nullptr, * lock = nullptr;
    if (!global) {
      llvm::Value* offset = builder_.CreateSub(builder_.CreatePtrToInt(address, i64), builder_.CreatePtrToInt(race_shared_, i64));
      auto* found = block("race.cell");
      builder_.CreateCondBr(builder_.CreateICmpULT(offset, race_shared_cells_), found, slow);
      builder_.SetInsertPoint(found);
      cell = builder_.CreateInBoundsGEP(i8, race_shared_shadow_,
                                        builder_.CreateNUWMul(offset, builder_.getInt64(sizeof(HostRaceCell))));
    } else {
      llvm::Value* index = builder_.CreateLShr(builder_.CreatePtrToInt(address, i64), race_granule_shift_);
      llvm::Value* number = builder_.CreateLShr(index, builder_.getInt64(std::countr_zero(host_race_page_cells)));
      llvm::Value* high = builder_.CreateLShr(number, builder_.getInt64(host_race_leaf_bits));
      auto* near = block("race.top");
      builder_.CreateCondBr(builder_.CreateICmpULT(high, builder_.getInt64(host_race_top_entries)), near, slow);
      builder_.SetInsertPoint(near);
      auto* leaf = builder_.CreateAlignedLoad(ptr, builder_.CreateInBoundsGEP(ptr, race_top_, high), llvm::Align(8), "race.leaf");
      leaf->setAtomic(llvm::AtomicOrdering::Acquire);
      auto* has_leaf = block("race.leaf");
      builder_.CreateCondBr(builder_.CreateIsNull(leaf), slow, has_leaf);
      builder_.SetInsertPoint(has_leaf);
      llvm::Value* low = builder_.CreateAnd(number, builder_.getInt64((uint64_t{1} << host_race_leaf_bits) - 1));
      auto* page = builder_.CreateAlignedLoad(ptr, builder_.CreateInBoundsGEP(ptr, leaf, low), llvm::Align(8), "race.page");
      page->setAtomic(llvm::AtomicOrdering::Acquire);
      auto* has_page = block("race.page");
      builder_.CreateCondBr(builder_.CreateIsNull(page), slow, has_page);
      builder_.SetInsertPoint(has_page);
      llvm::Value* in_page = builder_.CreateAnd(index, builder_.getInt64(host_race_page_cells - 1));
      lock = builder_.CreateInBoundsGEP(i32, page, builder_.CreateLShr(in_page, builder_.getInt64(std::countr_zero(host_race_lock_cells))));
      llvm::Value* held = builder_.CreateAtomicRMW(llvm::AtomicRMWInst::Xchg, lock, builder_.getInt32(1), llvm::Align(4),
                                                   llvm::AtomicOrdering::Acquire);
      auto* locked = block("race.locked");
      builder_.CreateCondBr(builder_.CreateICmpEQ(held, builder_.getInt32(0)), locked, slow);
      builder_.SetInsertPoint(locked);
      cell = builder_.CreateInBoundsGEP(i8, at(page, host_race_page_header),
                                        builder_.CreateNUWMul(in_page, builder_.getInt64(sizeof(HostRaceCell))));
    }
    // Per stamp at `offset` in the cell: (its context, its work-item).
    auto stamp = [&](uint64_t offset) {
      return std::make_pair(builder_.CreateLoad(i64, at(cell, offset)),
                            builder_.CreateLoad(i32, at(cell, offset + offsetof(HostRaceStamp, item))));
    };
    // Of this group (shared: contexts of earlier groups count as empty).
    auto this_group = [&](llvm::Value* c) {
      return global ? builder_.CreateAnd(builder_.CreateICmpUGE(c, first), builder_.CreateICmpULE(c, context))
                    : builder_.CreateICmpUGE(c, first);
    };
    auto ordered = [&](std::pair<llvm::Value*, llvm::Value*> s) {  // of this group, and ordered or this work-item's
      return builder_.CreateAnd(this_group(s.first), builder_.CreateOr(builder_.CreateICmpULT(s.first, floor),
                                                                       builder_.CreateICmpEQ(s.second, item)));
    };
    // Global: of an earlier launch (pooled shadow pages keep their stamps) or never written.
    llvm::Value* launch_first =
        global ? builder_.CreateAnd(first, builder_.getInt64(~((uint64_t{1} << host_race_launch_shift) - 1))) : nullptr;
    auto empty = [&](llvm::Value* c) {
      return global ? builder_.CreateICmpULT(c, launch_first) : builder_.CreateNot(this_group(c));
    };
    const uint64_t write_at = offsetof(HostRaceCell, write), read_at = offsetof(HostRaceCell, read),
                   other_at = offsetof(HostRaceCell, other_read);
    llvm::Value* ok;
    if (interval_free && write) {
      // passes::interval_race_free: nothing of the interval conflicts with this write, and what
      // is before it is ordered (earlier barrier intervals of the group, earlier groups): its stamp
      // is all the checker needs (the group's filled arrays, later reads' uninitialised test).
      builder_.CreateStore(context, at(cell, write_at));
      builder_.CreateStore(item, at(cell, write_at + offsetof(HostRaceStamp, item)));
      builder_.CreateStore(builder_.getInt32(id), at(cell, write_at + offsetof(HostRaceStamp, site)));
      builder_.CreateBr(done);
      return;
    }
    const auto written = stamp(write_at);
    if (interval_free) {  // a read: only an element the group has not written is a finding
      ok = this_group(written.first);
    } else if (!write) {  // a shared read of an element the group has not written is reported: slow
      ok = global ? builder_.CreateOr(empty(written.first), ordered(written)) : ordered(written);
    } else {
      ok = builder_.getTrue();
      for (uint64_t offset : {write_at, read_at, other_at}) {
        const auto s = offset == write_at ? written : stamp(offset);
        ok = builder_.CreateAnd(ok, builder_.CreateOr(empty(s.first), ordered(s)));
      }
    }
    auto* update = block("race.update");
    llvm::BasicBlock* refused = slow;
    if (lock) {  // release the lock before the call
      refused = block("race.unlock");
      builder_.CreateCondBr(ok, update, refused);
      builder_.SetInsertPoint(refused);
      builder_.CreateAlignedStore(builder_.getInt32(0), lock, llvm::Align(4))->setAtomic(llvm::AtomicOrdering::Release);
      builder_.CreateBr(slow);
    } else {
      builder_.CreateCondBr(ok, update, slow);
    }
    builder_.SetInsertPoint(update);
    auto put = [&](uint64_t offset) {
      builder_.CreateStore(context, at(cell, offset));
      builder_.CreateStore(item, at(cell, offset + offsetof(HostRaceStamp, item)));
      builder_.CreateStore(builder_.getInt32(id), at(cell, offset + offsetof(HostRaceStamp, site)));
    };
    if (!write && interval_free) {
      // passes::interval_race_free: no later write can race with this read.
    } else if (!write) {
      // The last read moves to other_read when another work-item (or group) made it.
      const auto read = stamp(read_at);
      llvm::Value* same = builder_.CreateAnd(this_group(read.first), builder_.CreateICmpEQ(read.second, item));
      llvm::Value* move = builder_.CreateAnd(builder_.CreateNot(empty(read.first)), builder_.CreateNot(same));
      auto* moving = block("race.other");
      auto* store = block("race.store");
      builder_.CreateCondBr(move, moving, store);
      builder_.SetInsertPoint(moving);
      builder_.CreateStore(read.first, at(cell, other_at));
      builder_.CreateStore(builder_.CreateLoad(i64, at(cell, read_at + 8)), at(cell, other_at + 8));
      builder_.CreateBr(store);
      builder_.SetInsertPoint(store);
      put(read_at);
    } else {
      put(write_at);
    }
    if (lock) builder_.CreateAlignedStore(builder_.getInt32(0), lock, llvm::Align(4))->setAtomic(llvm::AtomicOrdering::Release);
    builder_.CreateBr(done);
  }

  // One thread runs a whole work-group (its waves too): narrower scopes are that thread's.
  llvm::SyncScope::ID atomic_scope(ir::MemorySpace, ir::MemoryScope scope) override {
    return scope <= ir::MemoryScope::workgroup ? llvm::SyncScope::SingleThread : llvm::SyncScope::System;
  }
  // One worker thread runs all of a work-group's work-items, one after another between barriers:
  // shared (and local) memory is never touched by another thread meanwhile, so its atomics need
  // no lock prefix (histogram's shared-memory counting).
  bool plain_atomics(ir::MemorySpace space) override { return space != ir::MemorySpace::global; }

  llvm::Value* element_address(const ir::Op& op, const ir::Memory& m, llvm::Value* base, llvm::Value* linear) override {
    const bool race = check_races && !race_skip_ && !race_unstamped_.count(&op) &&
                      (m.space == ir::MemorySpace::shared || m.space == ir::MemorySpace::global);
    if (!bounds_check_) {
      llvm::Value* address = KernelLowering::element_address(op, m, base, linear);
      if (race) race_access(op, m, access_site(op, m), address);
      return address;
    }
    llvm::Value* address = checked_address(op, m, base, linear);
    if (race) race_access(op, m, static_cast<int32_t>(checks_.size() - 1), address);
    return address;
  }

  // The site table entry of an access (bounds and race reports name it); its index.
  int32_t access_site(const ir::Op& op, const ir::Memory& m) {
    BoundsCheck check;
    check.array = m.name;
    check.access = op.kind == OpKind::load ? "load" : op.kind == OpKind::store ? "store" : "atomic";
    check.reads = op.kind != OpKind::store;
    check.writes = op.kind == OpKind::store;
    if (op.kind == OpKind::atomic) {
      const ir::AtomicOp member = op.atomic_op();
      check.reads = member != ir::AtomicOp::store;
      check.writes = member != ir::AtomicOp::load;
      check.order = op.order();
    }
    check.type = m.element;
    check.rank = m.rank;
    check.lanes = ir::access_lanes(kernel_, op);
    check.static_shape = m.shape;
    check.param_index = m.param_index;
    check.loc = op.loc;
    checks_.push_back(std::move(check));
    return static_cast<int32_t>(checks_.size() - 1);
  }

  llvm::Value* checked_address(const ir::Op& op, const ir::Memory& m, llvm::Value* base, llvm::Value* linear) {
    auto* i64 = builder_.getInt64Ty();
    llvm::Value* ok = builder_.getTrue();
    std::vector<llvm::Value*> idx;
    // A vector access at (..., i) needs elements (..., N*i) ... (..., N*i+N-1) inside the extents.
    const unsigned lanes = ir::access_lanes(kernel_, op);
    for (unsigned d = 0; d < m.rank; ++d) {
      llvm::Value* v = value(op.operands[d]);
      v = ir::is_signed(kernel_.value_type(op.operands[d])) ? builder_.CreateSExtOrTrunc(v, i64)
                                                            : builder_.CreateZExtOrTrunc(v, i64);
      idx.push_back(v);
      const bool counts_vectors = lanes > 1 && d == m.rank - 1;
      llvm::Value* last = counts_vectors ? builder_.CreateAdd(builder_.CreateMul(v, builder_.getInt64(lanes)),
                                                              builder_.getInt64(lanes - 1))
                                         : v;
      llvm::Value* inside = builder_.CreateICmpULT(last, builder_.CreateZExt(shape_of(m, d), i64));
      if (counts_vectors) inside = builder_.CreateAnd(inside, builder_.CreateICmpSGE(v, builder_.getInt64(0)));
      ok = builder_.CreateAnd(ok, inside);
    }
    while (idx.size() < 3) idx.push_back(builder_.getInt64(0));
    // The site, and where its extents come from for the report.
    const int32_t id = access_site(op, m);
    BoundsCheck& check = checks_[static_cast<size_t>(id)];
    if (m.param_index >= 0)
      check.first_extent = static_cast<int>(kernel_abi(kernel_).first_of(static_cast<uint32_t>(m.param_index)) + 1);
    if (m.dynamic) {
      check.first_extent = static_cast<int>(kernel_abi(kernel_).arguments.size() - 1);
      check.dynamic_element_bytes = ir::byte_size(m.element);
    }
    auto* fail = llvm::BasicBlock::Create(context_, "bounds.fail", function_);
    auto* pass = llvm::BasicBlock::Create(context_, "bounds.ok", function_);
    auto* join = llvm::BasicBlock::Create(context_, "bounds.join", function_);
    builder_.CreateCondBr(ok, pass, fail);
    builder_.SetInsertPoint(fail);
    auto* report_type = llvm::FunctionType::get(builder_.getVoidTy(),
                                                {builder_.getPtrTy(), builder_.getInt32Ty(), i64, i64, i64}, false);
    builder_.CreateCall(report_type, report_, {report_state_, builder_.getInt32(id), idx[0], idx[1], idx[2]});
    builder_.CreateBr(join);
    builder_.SetInsertPoint(pass);
    llvm::Value* address = KernelLowering::element_address(op, m, base, linear);
    builder_.CreateBr(join);
    builder_.SetInsertPoint(join);
    llvm::PHINode* phi = builder_.CreatePHI(builder_.getPtrTy(), 2);
    phi->addIncoming(address, pass);
    phi->addIncoming(scratch_, fail);
    return phi;
  }

  bool bounds_check_;

 public:
  bool check_races = false;  // CompileOptions::check_races: hooks before accesses and at barriers

 private:
  llvm::Value* race_access_ = nullptr, * race_sync_ = nullptr, * race_state_ = nullptr, * race_fast_ = nullptr;
  llvm::Value* race_shared_ = nullptr, * race_shared_cells_ = nullptr, * race_shared_shadow_ = nullptr;
  llvm::Value* race_top_ = nullptr, * race_granule_shift_ = nullptr;  // HostRaceFast's fixed fields
  llvm::Value* race_unchecked_ = nullptr;
  uint64_t race_may_skip_ = 0;  // bit p: array parameter p has a rule (HostRaceArray)
  std::unordered_set<const ir::Op*> race_interval_free_;  // passes::interval_race_free
  std::unordered_map<const ir::Op*, std::vector<ir::MemoryId>> race_fills_;  // passes::shared_fills
  std::unordered_set<const ir::Op*> race_unstamped_;  // passes::unchecked_stores: no hook at all
  bool race_releases_ = false;  // some atomic or fence orders more than relaxed
  std::unordered_map<ir::MemoryId, unsigned> race_shared_bit_;  // of HostRaceFast::initialized
  // Variables holding HostRaceFast fields as of the last hook (race_reload).
  llvm::Value* race_initialized_ = nullptr;  // ... initialized
  llvm::Value *race_context_ = nullptr, *race_first_ = nullptr, *race_barrier_floor_ = nullptr,
              *race_global_floor_ = nullptr;
  std::vector<std::pair<llvm::Value*, size_t>> race_reloaded_;  // (variable, field offset)
  bool race_skip_ = false;  // lowering a region's copy whose accesses all go unchecked (race_skippable)
  llvm::Value* group_linear_ = nullptr;  // the group loop's counter (i64)
  std::unordered_map<const ir::Op*, int> segment_of_;
  std::vector<bool> segment_in_loop_;
  std::set<int> work_item_zero_;
  std::set<const ir::Op*> checked_uniform_;  // uniform ops checked as collectives
  bool return_seen_ = false;                 // planning has passed a Return
  std::unordered_set<const ir::Op*> divergent_control_;  // control that differs between work-items
  std::set<const ir::Op*> wave_level_;       // group-level ops run wave by wave
  bool planning_wave_ = false;               // planning inside a wave-level op
  bool wave_returns_ = false;                // a wave-level op holds a Return: per-item flags
  uint64_t item_returned_offset_ = 0;        // their storage item
  bool in_wave_ = false;                     // lowering inside a wave-level op
  llvm::Value* lane_ = nullptr;              // lane_id() in a wi.wave/wi.x loop pair (waves_along_x)
  llvm::Value* wave_first_ = nullptr, * wave_count_ = nullptr;  // its wave: first work-item, size
  std::vector<int> def_segment_;
  GuardAnalysis guards_{kernel_, def_segment_, group_segment};
  std::vector<bool> spilled_;
  std::vector<uint64_t> value_offset_;
  std::vector<int64_t> slot_offset_, memory_offset_;
  uint64_t storage_per_item_ = 0, shared_total_ = 0;
  std::vector<BoundsCheck> checks_;

  int segment_ = group_segment;
  std::array<int32_t, 3> fixed_block_;
  llvm::Value* block_[3] = {}, * grid_[3] = {}, * group_[3] = {}, * local_[3] = {};
  llvm::Value* shared_ = nullptr, * storage_ = nullptr, * threads_ = nullptr, * work_item_ = nullptr;
  llvm::Value* report_ = nullptr, * report_state_ = nullptr, * scratch_ = nullptr;
  llvm::BasicBlock* group_next_ = nullptr;  // starts the next work-group
  llvm::BasicBlock* item_next_ = nullptr;   // starts the next work-item of the current segment
  llvm::AllocaInst* returned_ = nullptr;    // some work-item of the group has returned
  llvm::Value* host_zero_ = nullptr;        // 0, loaded from rocjit_host_zero (integer_wrap_guard)
  std::unordered_map<ir::ValueId, bool> forced_;  // guards taken as true, exit guards as false (the region's group-wide copy)
  bool scalar_loops_ = false;                    // lowering a region's guarded copy: loops not vectorised
  mutable std::vector<int> remat_cost_;  // per value: remat_cost, -1 until asked
  bool recomputing_ = false;             // value() is lowering an expression again in a later segment
  AliasScopes alias_scopes_;  // what each recorded address points into
};

}  // namespace

HostModule lower(const ir::Kernel& kernel, llvm::LLVMContext& context, const std::string& function_name,
                 bool bounds_check, bool check_races, const std::array<int32_t, 3>& block, bool fast_math,
                 bool version_guards, const Settings& settings) {
  auto module = std::make_unique<llvm::Module>(kernel.name, context);
  HostLowering lowering(kernel, *module, bounds_check, block, settings);
  lowering.check_races = check_races;
  lowering.version_guards = version_guards && !bounds_check && !check_races;
  lowering.interchange_unchecked = version_guards && !bounds_check;
  if (fast_math || kernel.fast_math) lowering.enable_fast_math();
  HostModule out = lowering.run(function_name);
  out.module = std::move(module);
  return out;
}

}  // namespace rocjit::targets::host

// Shared IR -> LLVM IR lowering of rocjit ops; targets supply work-item queries, barriers,
// memory placement and math through the hooks below.
#pragma once

#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <functional>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "rocjit/compiler/ir.hpp"
#include "rocjit/settings.hpp"
#include "rocjit/workarounds.hpp"

namespace rocjit::targets {

// How each array parameter appears among the LLVM function's arguments.
struct ArrayArgs {
  llvm::Value* base = nullptr;
  std::vector<llvm::Value*> shape;    // i32 per dimension
  std::vector<llvm::Value*> strides;  // i64 per dimension (strided layout only)
};

class KernelLowering {
 public:
  // `settings`: the compile's; they must outlive the lowering (which workarounds apply).
  KernelLowering(const ir::Kernel& kernel, llvm::Module& module, const Settings& settings);
  virtual ~KernelLowering() = default;

  llvm::Type* llvm_type(ir::Type t) const;
  // Contraction and approximate functions on every float op emitted from here on.
  void enable_fast_math();
  bool fast_math() const { return fast_math_; }
  // Names of the LLVM arguments in order, e.g. {"x", "x.shape0", "n"}: the kernarg layout.
  std::vector<std::string> argument_names() const;
  // The LLVM parameter types in order.
  std::vector<llvm::Type*> argument_types(unsigned global_address_space) const;

 protected:
  // Whether this compile applies workaround `w` (rocjit/workarounds.def).
  bool workaround(Workaround w) const { return workaround_enabled(w, settings_); }
  // Emits the kernel body into the current insertion point; `args` are the LLVM arguments in
  // the order argument_names() gives.
  void lower_body(const std::vector<llvm::Value*>& args);

  virtual llvm::Value* workitem(ir::WorkItem w, unsigned dim) = 0;
  virtual void barrier(const ir::Op& op) = 0;
  virtual void wavebarrier(const ir::Op& op) = 0;
  // A wave operation (ir::WaveOp); the target defines its result.
  virtual void wave(const ir::Op& op) = 0;
  // A matrix multiply-accumulate over the wave (rocjit/compiler/mma.hpp); the target defines its
  // result.
  virtual void mma(const ir::Op& op) = 0;
  // Return(): ends the work-item (the base class returns from the kernel function).
  virtual void return_(const ir::Op& op);
  // Base pointer of a shared or local array (element type = the array's element type).
  virtual llvm::Value* memory_base(const ir::Memory& m) = 0;
  virtual llvm::Value* math(const ir::Op& op, const std::vector<llvm::Value*>& args);
  // A math function with no LLVM intrinsic, computed by the target's library (host: libm).
  virtual llvm::Value* library_call(const ir::Op& op, const std::vector<llvm::Value*>& args);
  // Float min/max with the IR's semantics (NaN ignored, -0 < +0); targets may lower it differently.
  virtual llvm::Value* float_min_max(bool max, llvm::Value* a, llvm::Value* b);
  bool known_positive(ir::ValueId v) const;
  // The LLVM sync scope of an atomic or fence of scope `scope` on memory in `space` (fences:
  // global). Shared memory is only seen by the work-group, so wider scopes narrow to it there.
  virtual llvm::SyncScope::ID atomic_scope(ir::MemorySpace space, ir::MemoryScope scope) = 0;
  // The result of an integer rem or and; the host hides it from LLVM's loop analyses (see there).
  virtual llvm::Value* integer_wrap_guard(llvm::Value* v) { return v; }
  // A half value just converted from another type, made opaque to InstCombine: LLVM 22 turns
  // fpext(sitofp/uitofp x to half) into a conversion to the wider type whenever x has at most 11
  // significant bits, forgetting that half overflows above 65504 (kernel 2028008126,
  // tests/smith/known-external.md). The host: llvm.arithmetic.fence (free on x86).
  virtual llvm::Value* half_conversion_guard(llvm::Value* h);
  // print and assert (dsl::print, dsl::device_assert): a record in the print buffer.
  void device_output(const ir::Op& op);
  // After a failed assert's record under AssertMode::trap: AMDGPU traps; the host carries on.
  virtual void assert_trap() {}
  // fence(scope, order).
  virtual void fence(const ir::Op& op);
  // uniform(x): the value itself (the host checks the promise when bounds checking).
  virtual llvm::Value* uniform(const ir::Op& op) { return value(op.operands[0]); }
  // Whether atomics on `space` may be plain load-modify-store sequences: where one thread runs
  // every work-item that can reach that memory (the host runs a work-group on one thread).
  virtual bool plain_atomics(ir::MemorySpace space) { return false; }
  // Called after the atomic `op` on `m` at `address` has been emitted (the host race checker's
  // acquire side: what the atomic read is known only once it has read).
  virtual void atomic_done(const ir::Op& op, const ir::Memory& m, llvm::Value* address) {}
  // Target metadata for an atomic read-modify-write on `m` (AMDGPU: the memory kinds it can touch).
  virtual void annotate_atomic(llvm::AtomicRMWInst& rmw, const ir::Memory& m) {}
  // Address of an element; targets may add checks (bounds checking).
  virtual llvm::Value* element_address(const ir::Op& op, const ir::Memory& m, llvm::Value* base,
                                       llvm::Value* linear_index);
  // Whether element offsets into `m` (C or F layout) may be computed in 32 bits: every in-bounds
  // offset is below 2^31 (KernelLowering::offsets_below_2_31). The base class (the host): no, its
  // 64-bit address arithmetic costs nothing extra. AMDGPU: global arrays of rank 2 and 3 where it
  // is provable.
  virtual bool narrow_offsets(const ir::Memory& m) { return false; }
  // Whether every in-bounds element offset into `m` is provably below 2^31: shared and local
  // arrays (at most ir::max_array_elements), a dynamic shared array (its bytes are below the LDS
  // size), a global array whose extents are all constant (static or specialised) with a product
  // below 2^31, or any global array of a kernel compiled with the ir::Kernel::small_arrays
  // promise. Never for strided views (signed strides, offsets of either sign).
  bool offsets_below_2_31(const ir::Memory& m) const;
  // The alignment a vector access of `lanes` elements of `m` may assume (the base class: the
  // element's, which every base address has; targets that align an array's base say more).
  virtual llvm::Align vector_alignment(const ir::Memory& m, unsigned lanes);
  // Hook for allocas: placed in the function's entry block.
  llvm::AllocaInst* entry_alloca(llvm::Type* type, llvm::Value* count, const llvm::Twine& name,
                                 unsigned address_space);

  llvm::Value* plain_atomic(const ir::Op& op, llvm::Value* ptr, llvm::Value* v, llvm::MaybeAlign align);
  static llvm::AtomicOrdering llvm_ordering(ir::MemoryOrder o);

  // The LLVM value of an IR value at the current insertion point.
  virtual llvm::Value* value(ir::ValueId id) { return values_.at(id); }
  // Whether value(id) may be called here although the current op does not name `id` as an
  // operand (index linearisation using the dividend of its indices). The CPU back end keeps
  // a value across barriers only for the ops that use it.
  virtual bool available(ir::ValueId) const { return true; }
  // Records the LLVM value an op produced.
  virtual void define(const ir::Op& op, llvm::Value* v) { values_[op.result] = v; }
  // Where a Var lives (the base class: one alloca per slot in the entry block).
  virtual llvm::Value* slot_pointer(uint32_t slot) { return slots_[slot]; }
  // Base pointer of any memory object for the op being lowered.
  virtual llvm::Value* array_base(ir::MemoryId id);
  virtual void region(const ir::Region& r);
  virtual void operation(const ir::Op& op);
  // Creates the slot allocas (lower_body does this; targets that lower differently call it).
  void create_slots();
  // Line tables (Settings::line_tables): a compile unit and a subprogram for the kernel function
  // `f`; each op's instructions then carry its file:line (operation() sets the location), so
  // the code object's .debug_line maps machine code to the user's source. end_line_table()
  // finalises the debug info once the function is complete. Both do nothing when it is off.
  void begin_line_table(llvm::Function* f);
  void end_line_table();
  // The debug location of `loc` in the kernel's subprogram (nullptr without line tables).
  llvm::DILocation* debug_location(const ir::SourceLoc& loc);

  // 16-bit floats (README, "Types and promotion"). f16 and bf16 values are LLVM half and bfloat;
  // whatever LLVM computes in them must be correctly rounded on every target, so bf16 arithmetic
  // and every conversion to f16 or bf16 that could round twice is spelled out here.
  // An f16/bf16 value as f32 (exact).
  llvm::Value* widen_narrow_float(llvm::Value* v);
  /// An f32 value cut to xf32 as ir::mma::to_xf32 defines it (the low 13 bits cleared, a NaN
  /// kept): what mma with xf32 inputs multiplies where no instruction does it.
  llvm::Value* cut_to_xf32(llvm::Value* v);
  // An f32 or f64 value rounded once, to nearest even, to f16 or bf16 (`to`).
  llvm::Value* narrow_float(llvm::Value* v, ir::Type to);
  // An f64 rounded to f32 by round-to-odd (truncate, then set the last bit when inexact): a later
  // rounding to fewer than 23 bits then rounds as if from the exact value.
  llvm::Value* round_to_odd_f32(llvm::Value* d);
  // fma of three bf16 values, rounded once: the f64 product is exact, the f64 sum is made
  // round-to-odd from its exact error (TwoSum), then narrowed.
  llvm::Value* bfloat_fma(llvm::Value* a, llvm::Value* b, llvm::Value* c);
  // An integer of type `from` converted to f16 or bf16, rounded once.
  llvm::Value* int_to_narrow_float(llvm::Value* a, ir::Type from, ir::Type to);
  // Throws: a bf16 binary op or a 16-bit math op other than fma, which passes::legalize_types
  // rewrites into f32 arithmetic before lowering.
  [[noreturn]] void not_legalized(const ir::Op& op);
  // A binary op on LLVM values of IR type `type`.
  llvm::Value* binary_of(ir::BinaryOp op, ir::Type type, llvm::Value* a, llvm::Value* b);
  // One step of a wave reduction or scan (ir::semantics::wave_rule's combine) on two lanes'
  // partials of type `type`: binary_of, with bf16 computed in f32 and rounded once (the 16-bit
  // rule). The CPU and AMDGPU lowerings both combine lanes through it.
  llvm::Value* wave_combine(ir::BinaryOp op, ir::Type type, llvm::Value* a, llvm::Value* b);

  llvm::Value* linear_index(const ir::Op& op, const ir::Memory& m);
  // Index linearisation: for indices `outer` and `inner` (dimension d of m) that are c / e and
  // c % e with e dimension d's extent, c (the pair addresses element c of the flattened
  // dimensions); otherwise 0.
  ir::ValueId split_index(ir::ValueId outer, ir::ValueId inner, const ir::Memory& m, unsigned d) const;
  llvm::Value* shape_of(const ir::Memory& m, unsigned dim);
  void bind_arguments(const std::vector<llvm::Value*>& args);
  // Continues emission in a fresh block after a terminator (code after Break is unreachable).
  void continue_in_new_block();
  std::vector<llvm::BasicBlock*> loop_exits_;
  std::vector<llvm::BasicBlock*> loop_continues_;  // where Continue goes: a for's latch, a while's step
  // Attaches the loop's unroll request (ir::Op::int_value) to its back edge.
  void unroll_metadata(llvm::Instruction* back_edge, const ir::Op& loop);
  std::vector<llvm::Value*> values_;
  llvm::Value* dynamic_shared_bytes_ = nullptr;  // i32 argument, when the kernel has dynamic shared memory
  llvm::Value* print_buffer_ = nullptr;  // the print buffer's address, when the kernel prints or asserts
  std::unordered_map<const ir::Op*, uint32_t> print_sites_;  // print_site_ids(kernel_), on first use

  const ir::Kernel& kernel_;
  llvm::Module& module_;
  llvm::LLVMContext& context_;
  llvm::IRBuilder<> builder_;
  const Settings& settings_;
  llvm::Function* function_ = nullptr;
  unsigned private_address_space_ = 0;

 private:
  llvm::Value* binary(const ir::Op& op);
  // Integer a / b or a % b with the defined results for b == 0 and INT_MIN / -1.
  llvm::Value* divide(bool remainder, bool is_signed, llvm::Value* a, llvm::Value* b);
  llvm::Value* compare(const ir::Op& op);
  llvm::Value* cast(const ir::Op& op);
  llvm::Value* atomic(const ir::Op& op);
  llvm::Value* atomic_at(const ir::Op& op, const ir::Memory& m, llvm::Value* ptr);

 protected:
  void lower_if(const ir::Op& op);
  void lower_for(const ir::Op& op);
  void lower_while(const ir::Op& op);

 private:

  std::unique_ptr<llvm::DIBuilder> di_;
  llvm::DISubprogram* di_subprogram_ = nullptr;
  std::map<std::string, llvm::DILexicalBlockFile*> di_files_;  // an op's file, inside the subprogram
  std::vector<llvm::AllocaInst*> slots_;
  std::unordered_map<ir::MemoryId, ArrayArgs> arrays_;
  std::unordered_map<ir::MemoryId, llvm::Value*> memory_bases_;
  bool fast_math_ = false;
};

}  // namespace rocjit::targets

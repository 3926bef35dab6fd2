// AMDGPU lowering: kernel ABI and attributes, work-item queries, LDS globals, barriers with
// workgroup fences, scoped atomics and math that the backend can expand.
#include "targets/amdgpu/lower.h"

#include <fmt/format.h>
#include <llvm/IR/ConstantRange.h>
#include <llvm/IR/IntrinsicsAMDGPU.h>

#include <algorithm>
#include <unordered_set>

#include "passes/uniformity.h"
#include "rocjit/compiler/error.hpp"
#include "rocjit/compiler/mma.hpp"
#include "rocjit/compiler/semantics.hpp"
#include "targets/amdgpu/target_machine.h"
#include "targets/lowering.h"

namespace rocjit::targets::amdgpu {
namespace {

constexpr unsigned global_as = 1, local_as = 3, private_as = 5;

class AmdgpuLowering : public KernelLowering {
 public:
  AmdgpuLowering(const ir::Kernel& k, llvm::Module& m, std::string processor, unsigned wave_size, bool check_uniform,
                 bool check_races, const Settings& settings)
      : KernelLowering(k, m, settings), processor_(std::move(processor)), wave_(wave_size),
        check_uniform_(check_uniform), check_races_(check_races) {
    private_address_space_ = private_as;
    if (check_uniform_) group_reached_ = passes::group_reached_uniform_ops(k);
  }

  LoweredModule run(llvm::Module* module, int code_object_version) {
    LoweredModule out;
    auto names = argument_names();
    auto* fty = llvm::FunctionType::get(builder_.getVoidTy(), argument_types(global_as), false);
    auto* f = llvm::Function::Create(fty, llvm::GlobalValue::ExternalLinkage, kernel_.name, module);
    f->setCallingConv(llvm::CallingConv::AMDGPU_KERNEL);
    f->addFnAttr("amdgpu-flat-work-group-size", fmt::format("1,{}", kernel_.max_block_size));
    f->addFnAttr("uniform-work-group-size", "true");
    f->addFnAttr(llvm::Attribute::NoUnwind);
    std::vector<llvm::Value*> args;
    for (size_t i = 0; i < f->arg_size(); ++i) {
      f->getArg(i)->setName(names[i]);
      f->addParamAttr(i, llvm::Attribute::NoUndef);
      args.push_back(f->getArg(i));
    }
    module->addModuleFlag(llvm::Module::Error, "amdhsa_code_object_version", code_object_version * 100);
    auto* entry = llvm::BasicBlock::Create(context_, "entry", f);
    builder_.SetInsertPoint(entry);
    begin_line_table(f);
    lower_body(args);
    builder_.CreateRetVoid();
    end_line_table();
    out.argument_names = std::move(names);
    out.needs_device_libs = !device_lib_users_.empty();
    out.device_lib_users = device_lib_users_;
    out.shared_arrays = shared_arrays_;
    return out;
  }

 protected:
  llvm::Value* dispatch_ptr() {
    if (!dispatch_ptr_) {
      llvm::IRBuilder<> b(&function_->getEntryBlock(), function_->getEntryBlock().getFirstInsertionPt());
      dispatch_ptr_ = b.CreateIntrinsic(llvm::Intrinsic::amdgcn_dispatch_ptr, llvm::ArrayRef<llvm::Type*>{}, llvm::ArrayRef<llvm::Value*>{});
    }
    return dispatch_ptr_;
  }

  // Reads a field of the HSA kernel dispatch packet (constant for the whole dispatch).
  llvm::Value* dispatch_field(llvm::Type* type, unsigned offset) {
    llvm::Value* p = builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), dispatch_ptr(), offset);
    auto* load = builder_.CreateAlignedLoad(type, p, llvm::Align(type->getPrimitiveSizeInBits() / 8));
    load->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(context_, {}));
    return load;
  }

  llvm::Value* workitem(ir::WorkItem w, unsigned dim) override {
    static constexpr llvm::Intrinsic::ID local_ids[] = {llvm::Intrinsic::amdgcn_workitem_id_x,
                                                        llvm::Intrinsic::amdgcn_workitem_id_y,
                                                        llvm::Intrinsic::amdgcn_workitem_id_z};
    static constexpr llvm::Intrinsic::ID group_ids[] = {llvm::Intrinsic::amdgcn_workgroup_id_x,
                                                        llvm::Intrinsic::amdgcn_workgroup_id_y,
                                                        llvm::Intrinsic::amdgcn_workgroup_id_z};
    auto local_size = [&] {
      // hsa_kernel_dispatch_packet_t: workgroup_size_{x,y,z} are u16 at offsets 4, 6, 8.
      return builder_.CreateZExt(dispatch_field(builder_.getInt16Ty(), 4 + 2 * dim), builder_.getInt32Ty());
    };
    // grid_size_{x,y,z}: u32 at offsets 12, 16, 20, in work-items.
    auto grid_size = [&] { return dispatch_field(builder_.getInt32Ty(), 12 + 4 * dim); };
    // A work-item id is below the kernel's max_block_size. Instruction selection knows that from
    // amdgpu-flat-work-group-size, but the IR passes do not; saying it here keeps them in step.
    // Besides better code, it keeps a miscompile out of reach: LLVM 22's SIFoldOperands turns
    // `or x, -1` into x, and a wave32 lane mask `c || local_id(0) == 0` met it when only
    // instruction selection saw that the id of a one-work-item group is 0 (kernel 2028009966,
    // tests/smith/known-external.md).
    auto local_id = [&] {
      llvm::CallInst* id =
          builder_.CreateIntrinsic(local_ids[dim], llvm::ArrayRef<llvm::Type*>{}, llvm::ArrayRef<llvm::Value*>{});
      if (!workaround(Workaround::workitem_id_range)) return id;
      const unsigned limit = std::clamp<unsigned>(kernel_.max_block_size, 1, 1024);
      id->addRetAttr(llvm::Attribute::get(context_, llvm::Attribute::Range,
                                          llvm::ConstantRange(llvm::APInt(32, 0), llvm::APInt(32, limit))));
      return id;
    };
    switch (w) {
      case ir::WorkItem::local_id: return local_id();
      case ir::WorkItem::group_id: return builder_.CreateIntrinsic(group_ids[dim], llvm::ArrayRef<llvm::Type*>{}, llvm::ArrayRef<llvm::Value*>{});
      case ir::WorkItem::local_size: return local_size();
      case ir::WorkItem::global_size: return grid_size();
      case ir::WorkItem::num_groups: return builder_.CreateUDiv(grid_size(), local_size());
      case ir::WorkItem::lane_id: return lane();
      case ir::WorkItem::wave_size: return builder_.getInt32(wave_);
      case ir::WorkItem::global_id: {
        llvm::Value* g = builder_.CreateIntrinsic(group_ids[dim], llvm::ArrayRef<llvm::Type*>{}, llvm::ArrayRef<llvm::Value*>{});
        llvm::Value* l = local_id();
        // Launch validation keeps every global id below 2^31, so the arithmetic cannot wrap.
        return builder_.CreateNSWAdd(builder_.CreateNSWMul(g, local_size()), l);
      }
    }
    return nullptr;
  }

  // AMDGPU's code generation has no llvm.arithmetic.fence ("Unsupported instruction"); a
  // canonicalize is as opaque to InstCombine, and free after a conversion, whose result the
  // backend knows is canonical.
  llvm::Value* half_conversion_guard(llvm::Value* h) override {
    return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::canonicalize, h);
  }

  // ---- wave operations ---------------------------------------------------------------------
  llvm::Value* intrinsic(llvm::Intrinsic::ID id, llvm::ArrayRef<llvm::Type*> types, llvm::ArrayRef<llvm::Value*> args) {
    return builder_.CreateIntrinsic(id, types, args);
  }

  // The lane: mbcnt counts the set bits of ~0 below this lane (lo: lanes 0-31, hi: 32-63).
  llvm::Value* lane() {
    llvm::Value* lo = intrinsic(llvm::Intrinsic::amdgcn_mbcnt_lo, {}, {builder_.getInt32(~0u), builder_.getInt32(0)});
    if (wave_ == 32) return lo;
    return intrinsic(llvm::Intrinsic::amdgcn_mbcnt_hi, {}, {builder_.getInt32(~0u), lo});
  }

  // One bit per lane where `pred` holds, as i64 (ballot of the active lanes).
  llvm::Value* ballot(llvm::Value* pred) {
    if (wave_ == 64) return intrinsic(llvm::Intrinsic::amdgcn_ballot, {builder_.getInt64Ty()}, {pred});
    return builder_.CreateZExt(intrinsic(llvm::Intrinsic::amdgcn_ballot, {builder_.getInt32Ty()}, {pred}),
                               builder_.getInt64Ty());
  }

  // `v` of lane `src` (which must exist): ds_bpermute on each 32-bit half.
  llvm::Value* read_lane(llvm::Value* v, llvm::Value* src) {
    llvm::Type* t = v->getType();
    const unsigned bits = t->getPrimitiveSizeInBits();
    llvm::Value* address = builder_.CreateShl(src, 2);
    auto permute = [&](llvm::Value* word) {
      return intrinsic(llvm::Intrinsic::amdgcn_ds_bpermute, {}, {address, word});
    };
    llvm::Value* word = builder_.CreateBitCast(v, builder_.getIntNTy(bits));
    if (bits == 32) return builder_.CreateBitCast(permute(word), t);
    if (bits < 32)  // 8- and 16-bit values travel in the low bits of a dword
      return builder_.CreateBitCast(builder_.CreateTrunc(permute(builder_.CreateZExt(word, builder_.getInt32Ty())),
                                                         builder_.getIntNTy(bits)),
                                    t);
    llvm::Value* lo = permute(builder_.CreateTrunc(word, builder_.getInt32Ty()));
    llvm::Value* hi = permute(builder_.CreateTrunc(builder_.CreateLShr(word, 32), builder_.getInt32Ty()));
    llvm::Value* joined = builder_.CreateOr(builder_.CreateZExt(lo, builder_.getInt64Ty()),
                                            builder_.CreateShl(builder_.CreateZExt(hi, builder_.getInt64Ty()), 32));
    return builder_.CreateBitCast(joined, t);
  }

  // `v` of the first active lane. LLVM 22's readfirstlane cannot legalise i8 (it aborts: "Do not
  // know how to promote this operator"), so 8-bit values and booleans go through an i32.
  llvm::Value* read_first_lane(llvm::Value* v) {
    if (v->getType()->isIntegerTy() && v->getType()->getIntegerBitWidth() < 16 &&
        workaround(Workaround::read_first_lane_i8)) {
      llvm::Value* wide = intrinsic(llvm::Intrinsic::amdgcn_readfirstlane, {builder_.getInt32Ty()},
                                    {builder_.CreateZExt(v, builder_.getInt32Ty())});
      return builder_.CreateTrunc(wide, v->getType());
    }
    return intrinsic(llvm::Intrinsic::amdgcn_readfirstlane, {v->getType()}, {v});
  }

  // Whether lane `src` (i32, any value) is an active lane of this wave. In wave32 the mask's
  // test is a 32-bit shift: a 64-bit one (v_lshrrev_b64) holds a pair of VGPRs per step of a
  // reduction (reduce on gfx1030: 8 VGPRs, clang 6).
  llvm::Value* lane_exists(llvm::Value* src, llvm::Value* active) {
    llvm::Value* in_range = builder_.CreateICmpULT(src, builder_.getInt32(wave_));
    llvm::Value* bit = nullptr;
    if (wave_ == 32) {
      llvm::Value* mask = builder_.CreateTrunc(active, builder_.getInt32Ty());
      bit = builder_.CreateLShr(mask, builder_.CreateAnd(src, builder_.getInt32(31)));
    } else {
      bit = builder_.CreateLShr(active, builder_.CreateZExt(builder_.CreateAnd(src, builder_.getInt32(63)), builder_.getInt64Ty()));
    }
    return builder_.CreateAnd(in_range, builder_.CreateTrunc(bit, builder_.getInt1Ty()));
  }

  // lane_exists(me + k, active) for this lane `me` and a constant k (0 < k < wave size), in terms
  // of `me` alone: me < wave - k, and bit `me` of the mask shifted right by k (a scalar shift).
  // The reduction's steps then keep no lane number per step alive beside their read address.
  llvm::Value* lane_exists_above(llvm::Value* me, unsigned k, llvm::Value* active) {
    llvm::Value* in_range = builder_.CreateICmpULT(me, builder_.getInt32(wave_ - k));
    llvm::Value* bit = nullptr;
    if (wave_ == 32) {
      llvm::Value* mask = builder_.CreateLShr(builder_.CreateTrunc(active, builder_.getInt32Ty()), k);
      bit = builder_.CreateLShr(mask, builder_.CreateAnd(me, builder_.getInt32(31)));
    } else {
      bit = builder_.CreateLShr(builder_.CreateLShr(active, k),
                                builder_.CreateZExt(builder_.CreateAnd(me, builder_.getInt32(63)), builder_.getInt64Ty()));
    }
    return builder_.CreateAnd(in_range, builder_.CreateTrunc(bit, builder_.getInt1Ty()));
  }

  // The rules of rocjit/compiler/semantics.hpp (wave_rule, shuffle_source, the trees of
  // reduce_tree and scan_tree), every lane at once, with cross-lane reads.
  void wave(const ir::Op& op) override {
    using W = ir::WaveOp;
    const W w = op.wave_op();
    const ir::semantics::WaveRule rule = ir::semantics::wave_rule(w);
    const ir::Type t = kernel_.value_type(op.operands[0]);
    llvm::Value* v = value(op.operands[0]);
    llvm::Value* me = lane();
    llvm::Value* active = ballot(builder_.getTrue());
    llvm::Value* r = nullptr;
    switch (w) {
      case W::shuffle: case W::shuffle_xor: case W::shuffle_up: case W::shuffle_down: case W::broadcast: {
        llvm::Value* x = value(op.operands[1]);
        llvm::Value* src = w == W::shuffle_xor    ? builder_.CreateXor(me, x)
                           : w == W::shuffle_up   ? builder_.CreateSub(me, x)
                           : w == W::shuffle_down ? builder_.CreateAdd(me, x)
                                                  : x;
        r = builder_.CreateSelect(lane_exists(src, active), read_lane(v, src), v);
        break;
      }
      case W::read_first: r = read_first_lane(v); break;
      case W::ballot: r = ballot(v); break;
      case W::any: r = builder_.CreateICmpNE(ballot(v), builder_.getInt64(0)); break;
      case W::all: r = builder_.CreateICmpEQ(ballot(v), active); break;
      case W::count:
        r = builder_.CreateTrunc(builder_.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, ballot(v)), builder_.getInt32Ty());
        break;
      case W::reduce_add: case W::reduce_min: case W::reduce_max: case W::reduce_and: case W::reduce_or:
      case W::reduce_xor: {
        // Step k: lane l combines with lane l + k where it exists (every lane reads the previous
        // step's partials); lane 0's tree goes to every lane.
        r = v;
        for (unsigned k = 1; k < wave_; k <<= 1) {
          llvm::Value* from = builder_.CreateAdd(me, builder_.getInt32(k));
          llvm::Value* y = read_lane(r, from);
          r = builder_.CreateSelect(lane_exists_above(me, k, active), wave_combine(rule.combine, t, r, y), r);
        }
        r = read_first_lane(r);
        break;
      }
      case W::inclusive_scan_add: case W::exclusive_scan_add: {
        // Step k: lane l >= k combines lane l - k's partial with its own.
        r = v;
        for (unsigned k = 1; k < wave_; k <<= 1) {
          llvm::Value* from = builder_.CreateSub(me, builder_.getInt32(k));
          llvm::Value* y = read_lane(r, from);
          r = builder_.CreateSelect(builder_.CreateICmpUGE(me, builder_.getInt32(k)), wave_combine(rule.combine, t, y, r), r);
        }
        if (rule.exclusive) {
          llvm::Value* from = builder_.CreateSub(me, builder_.getInt32(1));
          llvm::Value* zero = llvm::Constant::getNullValue(v->getType());
          r = builder_.CreateSelect(builder_.CreateICmpEQ(me, builder_.getInt32(0)), zero, read_lane(r, from));
        }
        break;
      }
    }
    define(op, r);
  }

  // mma: the processor's MFMA instruction where it has one for the shape and types (a fragment
  // is exactly its operand: rocjit/compiler/mma.hpp), or its WMMA instruction (wmma() below:
  // fragments moved to WMMA's layout and back), else ir::mma::interpret's steps with
  // cross-lane reads: each element of C is a chain of fmas over k, A's and B's elements read from
  // the lanes that hold them.
  void mma(const ir::Op& op) override {
    const auto& attrs = op.get<ir::MmaAttrs>();
    const ir::mma::Shape shape{attrs.m, attrs.n, attrs.k};
    const ir::Type in = kernel_.value_type(op.operands[1]).element_of();
    const ir::Type acc = op.type.element_of();
    if (wave_ != ir::mma::wave_lanes)
      throw CompileError(fmt::format("kernel '{}': the mma at {} needs 64-lane waves; {} runs this kernel in wave{} "
                                     "(compile with the feature +wavefrontsize64)",
                                     kernel_.name, op.loc.str(), processor_, wave_));
    llvm::Value* c = value(op.operands[0]);
    llvm::Value* a = value(op.operands[1]);
    llvm::Value* b = value(op.operands[2]);
    const ir::mma::Precision precision = attrs.precision;
    if (auto native = ir::mma::native(processor_, in, acc, shape, precision);
        native && native->layout != ir::mma::NativeLayout::mfma) {
      define(op, wmma(*native, a, b, c));
      return;
    }
    auto mfma = [&](const ir::mma::Native& native, llvm::Value* a, llvm::Value* b, llvm::Value* c) {
      const llvm::Intrinsic::ID id = llvm::Intrinsic::lookupIntrinsicID("llvm.amdgcn." + std::string(native.intrinsic));
      if (id == llvm::Intrinsic::not_intrinsic)
        throw CompileError(fmt::format("kernel '{}': internal error: LLVM has no intrinsic llvm.amdgcn.{}", kernel_.name,
                                       native.intrinsic));
      llvm::Function* f = llvm::Intrinsic::getOrInsertDeclaration(&module_, id);
      llvm::FunctionType* type = f->getFunctionType();
      // bf16 (.1k forms: i16 lanes) and i8 (packed into an i32 or i64) pass their bits.
      auto operand = [&](llvm::Value* v, unsigned i) { return builder_.CreateBitCast(v, type->getParamType(i)); };
      llvm::Value* r = builder_.CreateCall(f, {operand(a, 0), operand(b, 1), operand(c, 2), builder_.getInt32(0),
                                               builder_.getInt32(0), builder_.getInt32(0)});
      return builder_.CreateBitCast(r, llvm_type(op.type));
    };
    if (auto native = ir::mma::native(processor_, in, acc, shape, precision)) {
      define(op, mfma(*native, a, b, c));
      return;
    }
    // A 16-bit-float shape with 8 elements per lane (16x16x32, 32x32x16) on a processor whose
    // model rounds groups (gfx90a, gfx942) and has the MFMA of half the k: two of those, on
    // elements 0..3 and then 4..7 of every lane (each half is that MFMA's operand as it is), which
    // is the model's step order (ir::mma::step_order).
    const ir::mma::Shape half_shape{shape.m, shape.n, shape.k / 2};
    if (ir::mma::counts(shape).a == 8 && ir::mma::numerics(ir::mma::model_of(processor_), in).group > 1)
      if (auto native = ir::mma::native(processor_, in, acc, half_shape, precision);
          native && native->layout == ir::mma::NativeLayout::mfma) {
        auto part = [&](llvm::Value* v, int first) { return builder_.CreateShuffleVector(v, {first, first + 1, first + 2, first + 3}); };
        llvm::Value* r = mfma(*native, part(a, 0), part(b, 0), c);
        define(op, mfma(*native, part(a, 4), part(b, 4), r));
        return;
      }
    const ir::mma::Counts n = ir::mma::counts(shape);
    llvm::Value* me = lane();
    auto element = [&](llvm::Value* v, unsigned count, unsigned e) {
      return count > 1 ? builder_.CreateExtractElement(v, builder_.getInt32(e)) : v;
    };
    // A value of A or B as the accumulator's type (exact); xf32 cut to xf32 (cut_to_xf32), which
    // the fma chain then multiplies exactly.
    auto widen = [&](llvm::Value* x) -> llvm::Value* {
      if (acc == ir::Type::i32) return builder_.CreateSExt(x, builder_.getInt32Ty());
      if (in == ir::Type::f16 || in == ir::Type::bf16) return widen_narrow_float(x);
      if (precision == ir::mma::Precision::xf32) return cut_to_xf32(x);
      return x;
    };
    // The layout's terms (rocjit/compiler/mma.hpp): C's column is lane mod n and its row
    // c_row(0, e) plus one step c_row(n, 0) per group of n lanes; A(row, kk) is in lane
    // row + a_lane(0, kk), B(kk, col) in lane col + b_lane(kk, 0).
    namespace layout = ir::mma;
    llvm::Value* col = builder_.CreateURem(me, builder_.getInt32(shape.n));
    llvm::Value* group_rows = builder_.CreateMul(builder_.CreateUDiv(me, builder_.getInt32(shape.n)),
                                                 builder_.getInt32(layout::c_row(shape, shape.n, 0)));
    llvm::Value* r = c;
    for (unsigned e = 0; e < n.c; ++e) {
      llvm::Value* row = builder_.CreateAdd(group_rows, builder_.getInt32(layout::c_row(shape, 0, e)));
      llvm::Value* sum = element(c, n.c, e);
      for (unsigned kk = 0; kk < shape.k; ++kk) {
        llvm::Value* a_src = builder_.CreateAdd(row, builder_.getInt32(layout::a_lane(shape, 0, kk)));
        llvm::Value* b_src = builder_.CreateAdd(col, builder_.getInt32(layout::b_lane(shape, kk, 0)));
        llvm::Value* x = widen(read_lane(element(a, n.a, layout::a_element(shape, 0, kk)), a_src));
        llvm::Value* y = widen(read_lane(element(b, n.b, layout::b_element(shape, kk, 0)), b_src));
        sum = acc == ir::Type::i32 ? builder_.CreateAdd(sum, builder_.CreateMul(x, y))
                                   : builder_.CreateIntrinsic(llvm::Intrinsic::fma, {sum->getType()}, {x, y, sum});
      }
      r = n.c > 1 ? builder_.CreateInsertElement(r, sum, builder_.getInt32(e)) : sum;
    }
    define(op, r);
  }

  // 16x16x16 mma as one WMMA in wave64 (gfx11, gfx12). Canonical fragments (lane l, group
  // G = l / 16, column l % 16): A holds A[l % 16][4G + e], B holds B[4G + e][l % 16] and C holds
  // C[4G + e][l % 16], e = 0..3 (rocjit/compiler/mma.hpp). WMMA's layouts (the AMD matrix
  // instruction calculator's RDNA3 and RDNA4 tables; amdsim's matrix.cpp simulates gfx11's):
  //  - gfx11: lane l holds all of row l % 16 of A and column l % 16 of B, k in order: the
  //    canonical lanes l % 16 + 16g, g = 0..3, hold its four-element pieces. C/D register r of
  //    lane l is C[4r + G][l % 16] = canonical lane l % 16 + 16r, element G: a 4x4 transpose of
  //    (group, element) in each column, the same both ways.
  //  - gfx12: A and B are the canonical layout; C/D register r of lane l is row
  //    r + 8 (G mod 2) + 4 (G div 2): canonical group G with groups 1 and 2 swapped.
  llvm::Value* wmma(const ir::mma::Native& native, llvm::Value* a, llvm::Value* b, llvm::Value* c) {
    const bool gfx11 = native.layout == ir::mma::NativeLayout::wmma_gfx11;
    const bool integer = native.input == ir::Type::i8;
    llvm::Value* me = lane();
    llvm::Value* column = builder_.CreateAnd(me, builder_.getInt32(15));
    llvm::Value* group = builder_.CreateLShr(me, builder_.getInt32(4));
    auto from_group = [&](llvm::Value* g) { return builder_.CreateOr(column, builder_.CreateShl(g, 4)); };
    // A or B as WMMA's operand: 4 pieces of 4 (gfx11) or the lane's own 4 elements (gfx12), as
    // i16 (bf16: LLVM's WMMA intrinsics take bf16 as i16) or packed into i32 (i8).
    llvm::Type* i16 = builder_.getInt16Ty();
    auto operand = [&](llvm::Value* v) -> llvm::Value* {
      if (integer) v = builder_.CreateBitCast(v, builder_.getInt32Ty());  // <4 x i8> -> i32
      else if (native.input == ir::Type::bf16) v = builder_.CreateBitCast(v, llvm::FixedVectorType::get(i16, 4));
      if (!gfx11) return v;
      llvm::Type* elem = integer ? builder_.getInt32Ty() : llvm::cast<llvm::VectorType>(v->getType())->getElementType();
      const unsigned per = integer ? 1 : 4;
      llvm::Value* whole = llvm::PoisonValue::get(llvm::FixedVectorType::get(elem, 4 * per));
      for (unsigned g = 0; g < 4; ++g) {
        llvm::Value* piece = read_lane(v, from_group(builder_.getInt32(g)));
        for (unsigned e = 0; e < per; ++e)
          whole = builder_.CreateInsertElement(
              whole, per == 1 ? piece : builder_.CreateExtractElement(piece, builder_.getInt32(e)),
              builder_.getInt32(g * per + e));
      }
      return whole;
    };
    // C to WMMA's layout and D back. gfx11: step j, the lane reads group (G + j) mod 4, which
    // sends its element (its group - j) mod 4: that is element G of group (G + j) mod 4, and goes
    // to position (G + j) mod 4 (j = 0 is the lane's own element). gfx12: element e of lane l
    // comes from the lane of the same column in group G with 1 and 2 swapped.
    auto relayout = [&](llvm::Value* v) -> llvm::Value* {
      llvm::Value* r = llvm::PoisonValue::get(v->getType());
      if (!gfx11) {
        // G xor (((G >> 1) ^ G) & 1) * 3 swaps 1 and 2 and keeps 0 and 3.
        llvm::Value* odd = builder_.CreateAnd(builder_.CreateXor(group, builder_.CreateLShr(group, 1)), builder_.getInt32(1));
        llvm::Value* src = from_group(builder_.CreateXor(group, builder_.CreateMul(odd, builder_.getInt32(3))));
        for (unsigned e = 0; e < 4; ++e)
          r = builder_.CreateInsertElement(r, read_lane(builder_.CreateExtractElement(v, builder_.getInt32(e)), src),
                                           builder_.getInt32(e));
        return r;
      }
      for (unsigned j = 0; j < 4; ++j) {
        llvm::Value* there = builder_.CreateAnd(builder_.CreateAdd(group, builder_.getInt32(j)), builder_.getInt32(3));
        llvm::Value* sent = builder_.CreateExtractElement(
            v, builder_.CreateAnd(builder_.CreateSub(group, builder_.getInt32(j)), builder_.getInt32(3)));
        llvm::Value* got = j == 0 ? sent : read_lane(sent, from_group(there));
        r = builder_.CreateInsertElement(r, got, there);
      }
      return r;
    };
    llvm::Value* ax = operand(a);
    llvm::Value* bx = operand(b);
    llvm::Value* cx = relayout(c);
    const llvm::Intrinsic::ID id = llvm::Intrinsic::lookupIntrinsicID("llvm.amdgcn." + std::string(native.intrinsic));
    if (id == llvm::Intrinsic::not_intrinsic)
      throw CompileError(fmt::format("kernel '{}': internal error: LLVM has no intrinsic llvm.amdgcn.{}", kernel_.name,
                                     native.intrinsic));
    llvm::Function* f = llvm::Intrinsic::getOrInsertDeclaration(&module_, id, {cx->getType(), ax->getType()});
    llvm::Value* d = nullptr;
    if (integer)  // rocjit's i8 is signed: both sign bits set, no clamp (sums wrap)
      d = builder_.CreateCall(f, {builder_.getTrue(), ax, builder_.getTrue(), bx, cx, builder_.getFalse()});
    else
      d = builder_.CreateCall(f, {ax, bx, cx});
    return relayout(d);
  }

  // uniform(x) when checking (CompileOptions::bounds_check): the active lanes of each wave
  // compare their x with the first lane's; where the whole group reaches the op together
  // (passes::group_reached_uniform_ops) the first work-item's x also goes through LDS to every
  // wave, between two barriers. A broken promise traps (s_trap): the launch fails. The CPU device
  // names the op and the work-items; the GPU cannot.
  llvm::Value* uniform(const ir::Op& op) override {
    llvm::Value* x = value(op.operands[0]);
    if (!check_uniform_) return x;
    const unsigned width = std::max(32u, static_cast<unsigned>(x->getType()->getPrimitiveSizeInBits()));
    llvm::Type* bits_type = builder_.getIntNTy(width);
    llvm::Value* bits = x->getType()->isIntegerTy() ? builder_.CreateZExt(x, bits_type) : builder_.CreateBitCast(x, bits_type);
    auto differs = [&](llvm::Value* other) {
      return builder_.CreateICmpNE(ballot(builder_.CreateICmpNE(bits, other)), builder_.getInt64(0));
    };
    llvm::Value* broken = differs(intrinsic(llvm::Intrinsic::amdgcn_readfirstlane, {bits_type}, {bits}));
    if (group_reached_.count(&op)) {
      if (!uniform_slot_)
        uniform_slot_ = new llvm::GlobalVariable(module_, builder_.getInt64Ty(), false, llvm::GlobalValue::InternalLinkage,
                                                 llvm::UndefValue::get(builder_.getInt64Ty()), "rocjit.uniform.check",
                                                 nullptr, llvm::GlobalValue::NotThreadLocal, 3);
      llvm::Value* first_item = builder_.getTrue();
      for (unsigned d = 0; d < 3; ++d)
        first_item = builder_.CreateAnd(first_item, builder_.CreateICmpEQ(workitem(ir::WorkItem::local_id, d),
                                                                          builder_.getInt32(0)));
      auto* publish = llvm::BasicBlock::Create(context_, "uniform.publish", function_);
      auto* published = llvm::BasicBlock::Create(context_, "uniform.published", function_);
      builder_.CreateCondBr(first_item, publish, published);
      builder_.SetInsertPoint(publish);
      builder_.CreateStore(builder_.CreateZExtOrTrunc(bits, builder_.getInt64Ty()), uniform_slot_);
      builder_.CreateBr(published);
      builder_.SetInsertPoint(published);
      barrier(op);
      llvm::Value* group_first = builder_.CreateZExtOrTrunc(builder_.CreateLoad(builder_.getInt64Ty(), uniform_slot_), bits_type);
      broken = builder_.CreateOr(broken, differs(group_first));
      barrier(op);  // before a later check overwrites the slot
    }
    auto* trap = llvm::BasicBlock::Create(context_, "uniform.broken", function_);
    auto* kept = llvm::BasicBlock::Create(context_, "uniform.kept", function_);
    builder_.CreateCondBr(broken, trap, kept);
    builder_.SetInsertPoint(trap);
    builder_.CreateIntrinsic(llvm::Intrinsic::trap, llvm::ArrayRef<llvm::Type*>{}, llvm::ArrayRef<llvm::Value*>{});
    builder_.CreateUnreachable();
    builder_.SetInsertPoint(kept);
    return x;
  }

  void assert_trap() override {
    builder_.CreateIntrinsic(llvm::Intrinsic::trap, llvm::ArrayRef<llvm::Type*>{}, llvm::ArrayRef<llvm::Value*>{});
  }

  void barrier(const ir::Op& op) override {
    auto workgroup = context_.getOrInsertSyncScopeID("workgroup");
    builder_.CreateFence(llvm::AtomicOrdering::Release, workgroup);
    // A uniform() check's barriers (op is the uniform op) order LDS only.
    if (op.kind == ir::OpKind::barrier && (op.fences() & ir::fence_global)) race_marker(race_marker_global_barrier);
    builder_.CreateIntrinsic(llvm::Intrinsic::amdgcn_s_barrier, llvm::ArrayRef<llvm::Type*>{}, llvm::ArrayRef<llvm::Value*>{});
    race_marker(race_marker_barrier);
    builder_.CreateFence(llvm::AtomicOrdering::Acquire, workgroup);
  }

  // The fences make the wavefront's memory accesses before the barrier visible to its lanes after
  // it; without them nothing stops LLVM from moving LDS accesses across llvm.amdgcn.wave.barrier.
  void wavebarrier(const ir::Op&) override {
    auto wavefront = context_.getOrInsertSyncScopeID("wavefront");
    builder_.CreateFence(llvm::AtomicOrdering::Release, wavefront);
    builder_.CreateIntrinsic(llvm::Intrinsic::amdgcn_wave_barrier, llvm::ArrayRef<llvm::Type*>{}, llvm::ArrayRef<llvm::Value*>{});
    race_marker(race_marker_wavebarrier);
    builder_.CreateFence(llvm::AtomicOrdering::Acquire, wavefront);
  }

  // Race checking on the simulator (check_races_): llvm.amdgcn.wave.barrier emits no instruction
  // and the fences around barriers compile to s_waitcnt, which every memory access uses, so the
  // simulator could not tell them apart; an s_ttracedata whose M0 holds one of the race_marker_*
  // values (lower.h) says what the code does here. Only check_races compiles have them.
  void race_marker(uint32_t what) {
    if (!check_races_) return;
    builder_.CreateIntrinsic(llvm::Intrinsic::amdgcn_s_ttracedata, llvm::ArrayRef<llvm::Type*>{},
                             {builder_.getInt32(what)});
  }

  // The simulator's checker models acquire/release as the CPU device's does: it is told which
  // fences acquire and which release (acq_rel and seq_cst: both, acquire first).
  void fence(const ir::Op& op) override {
    if (ir::acquires(op.order())) race_marker(race_marker_fence_acquire);
    if (ir::releases(op.order())) race_marker(race_marker_fence_release);
    KernelLowering::fence(op);
  }
  // Relaxed atomic loads and stores compile to plain global_load/store and ds_read/write: the
  // marker says the next memory instruction is atomic; the acquire and release markers before
  // it say how it orders memory (a load only reads, a store only writes, the others do both).
  void operation(const ir::Op& op) override {
    if (check_races_ && op.kind == ir::OpKind::atomic) {
      if (op.atomic_op() != ir::AtomicOp::store && ir::acquires(op.order())) race_marker(race_marker_acquire);
      if (op.atomic_op() != ir::AtomicOp::load && ir::releases(op.order())) race_marker(race_marker_release);
      race_marker(race_marker_atomic);
    }
    KernelLowering::operation(op);
  }

  llvm::Value* memory_base(const ir::Memory& m) override {
    if (m.dynamic) {
      // LLVM places a zero-sized external LDS variable after the kernel's static LDS; the
      // dispatch's group segment size adds the launch's dynamic bytes. All dynamic arrays alias it.
      if (!dynamic_lds_) {
        auto* type = llvm::ArrayType::get(builder_.getInt8Ty(), 0);
        dynamic_lds_ = new llvm::GlobalVariable(module_, type, false, llvm::GlobalValue::ExternalLinkage, nullptr,
                                                "rocjit.dynamic_shared", nullptr, llvm::GlobalValue::NotThreadLocal,
                                                local_as);
        dynamic_lds_->setAlignment(llvm::Align(16));
      }
      return dynamic_lds_;
    }
    auto* array_type = llvm::ArrayType::get(llvm_type(m.element), static_cast<uint64_t>(m.element_count()));
    if (m.space == ir::MemorySpace::local) {
      llvm::AllocaInst* a = entry_alloca(array_type, nullptr, m.name, private_as);
      a->setAlignment(std::max(a->getAlign(), llvm::Align(16)));
      return a;
    }
    // check_races: the array in a struct type of its own, which LLVM's LDS lowering keeps as the
    // type of its field in the kernel's LDS block (same size and alignment, so the same layout
    // and code), so that lds_layout.h finds where the array lies in the group's LDS.
    llvm::Type* value_type = array_type;
    if (check_races_) {
      auto* wrapped = llvm::StructType::create(context_, {array_type}, "rocjit.shared." + m.name);
      shared_arrays_.push_back({wrapped, m.name, static_cast<uint32_t>(ir::byte_size(m.element))});
      value_type = wrapped;
    }
    auto* g = new llvm::GlobalVariable(module_, value_type, false, llvm::GlobalValue::InternalLinkage,
                                       llvm::PoisonValue::get(value_type), m.name, nullptr,
                                       llvm::GlobalValue::NotThreadLocal, local_as);
    g->setAlignment(llvm::Align(16));
    return g;
  }

  // Shared and local arrays start 16-byte aligned (memory_base), so a vector at index i, at byte
  // i * N * sizeof(T), has the largest power of two dividing N * sizeof(T) up to 16: an f32x4 in
  // LDS is one ds_read_b128. On a multi-dimensional array the rows start at multiples of the last
  // extent (a constant for these arrays), which bounds the alignment too. Global arrays may be
  // views at any element offset: the base class.
  // 32-bit element offsets for global arrays of rank 2 and 3 wherever every in-bounds offset is
  // below 2^31: the multiply-adds in 32-bit VGPRs, as clang's `int` indices (row offsets such as
  // jacobi's (y - 1) * cols, y * cols, (y + 1) * cols then share one product instead of living as
  // 64-bit pairs; docs/performance.md). A rank-1 offset is the index itself, with nothing to
  // narrow: its zext stays (sign-extending the i32 index instead turned histogram's grid-stride
  // loop into a 64-bit pointer induction, +5 instructions). LDS and scratch pointers are 32-bit
  // already.
  bool narrow_offsets(const ir::Memory& m) override {
    return m.space == ir::MemorySpace::global && m.rank > 1 && offsets_below_2_31(m);
  }

  llvm::Align vector_alignment(const ir::Memory& m, unsigned lanes) override {
    if (m.space == ir::MemorySpace::global || (m.rank > 1 && m.shape.size() != m.rank))
      return KernelLowering::vector_alignment(m, lanes);
    uint64_t bytes = uint64_t{lanes} * ir::byte_size(m.element);
    if (m.rank > 1) bytes |= static_cast<uint64_t>(m.shape.back()) * ir::byte_size(m.element);
    return llvm::Align(std::min<uint64_t>(16, bytes & -bytes));
  }

  // AMDGPU's sync scopes: "wavefront", "workgroup", "agent" and the system ("").
  llvm::SyncScope::ID atomic_scope(ir::MemorySpace space, ir::MemoryScope scope) override {
    if (space == ir::MemorySpace::shared && scope > ir::MemoryScope::workgroup) scope = ir::MemoryScope::workgroup;
    switch (scope) {
      case ir::MemoryScope::wavefront: return context_.getOrInsertSyncScopeID("wavefront");
      case ir::MemoryScope::workgroup: return context_.getOrInsertSyncScopeID("workgroup");
      case ir::MemoryScope::device: return context_.getOrInsertSyncScopeID("agent");
      case ir::MemoryScope::system: return llvm::SyncScope::System;
    }
    return llvm::SyncScope::System;
  }

  // Kernel arrays are device arrays: coarse-grained memory of the launching GPU (the runtime
  // accepts nothing else as an argument). Saying so lets the backend use the native atomic
  // instructions (e.g. global_atomic_add_f32 on gfx90a) instead of compare-and-swap loops, as
  // clang does for HIP.
  void annotate_atomic(llvm::AtomicRMWInst& rmw, const ir::Memory& m) override {
    if (m.space != ir::MemorySpace::global) return;
    llvm::MDNode* empty = llvm::MDNode::get(context_, {});
    rmw.setMetadata("amdgpu.no.fine.grained.memory", empty);
    rmw.setMetadata("amdgpu.no.remote.memory", empty);
  }

  // The AMDGPU backend expands few math functions accurately by itself: sqrt, fma, the rounding
  // functions, copysign, ldexp and (f32 only) exp, exp2, exp10, log, log2 and log10. Everything
  // else calls the ROCm device library, ocml, as HIP's <cmath> does; its sin and cos reduce huge
  // arguments exactly, which the backend's v_sin_f32 expansion does not.
  llvm::Value* math(const ir::Op& op, const std::vector<llvm::Value*>& args) override {
    using M = ir::MathFn;
    if (ir::math_fn_domain(op.math_fn()) != ir::MathDomain::floating) return KernelLowering::math(op, args);
    switch (op.math_fn()) {
      case M::sqrt: case M::rsqrt: case M::fma: case M::fabs: case M::floor: case M::ceil: case M::trunc:
      case M::round: case M::rint: case M::copysign: case M::fmin: case M::fmax:
        return KernelLowering::math(op, args);
      case M::exp: case M::exp2: case M::exp10: case M::log: case M::log2: case M::log10:
        if (op.type == ir::Type::f32) return KernelLowering::math(op, args);
        return library_call(op, args);
      // fast_math: the hardware's v_sin_f32 / v_cos_f32 (no argument reduction beyond a multiply
      // by 1/2pi), marked afn by the builder. tan and pow stay with ocml: the backend has no
      // afn expansion of tan, and its pow loses the special cases (pow(-inf, inf)).
      case M::sin: case M::cos:
        if (fast_math() && op.type == ir::Type::f32) return KernelLowering::math(op, args);
        return library_call(op, args);
      // ocml's accurate functions.
      case M::tan: case M::pow: case M::asin: case M::acos: case M::atan: case M::atan2: case M::sinh: case M::cosh:
      case M::tanh: case M::asinh: case M::acosh: case M::atanh: case M::expm1: case M::log1p: case M::cbrt:
      case M::hypot: case M::erf: case M::erfc: case M::tgamma: case M::lgamma: case M::fmod: case M::remainder:
      case M::nextafter:
        return library_call(op, args);
#define ROCJIT_NOT_FLOAT(name, ...) case M::name:
      ROCJIT_INTEGER_MATH_FNS(ROCJIT_NOT_FLOAT) ROCJIT_LDEXP_MATH_FNS(ROCJIT_NOT_FLOAT) break;  // by domain above
#undef ROCJIT_NOT_FLOAT
    }
    return KernelLowering::math(op, args);
  }

  llvm::Value* library_call(const ir::Op& op, const std::vector<llvm::Value*>& args) override {
    const ir::MathFn fn = op.math_fn();
    device_lib_users_.push_back(fmt::format("{} {} at {}", ir::type_name(op.type), ir::math_fn_name(fn), op.loc.str()));
    // f32 tgamma and lgamma arrive computed in f64 (passes/expand_math.cpp).
    return ocml(fn, op.type, args);
  }

  // A call of ocml's __ocml_<fn>_<type>.
  llvm::Value* ocml(ir::MathFn fn, ir::Type type, const std::vector<llvm::Value*>& args) {
    llvm::Type* t = llvm_type(type);
    std::vector<llvm::Type*> params(args.size(), t);
    std::string name = fmt::format("__ocml_{}_{}", ir::math_fn_name(fn), ir::type_name(type));
    auto callee = module_.getOrInsertFunction(name, llvm::FunctionType::get(t, params, false));
    return builder_.CreateCall(callee, args);
  }

 private:
  llvm::Value* dispatch_ptr_ = nullptr;
  llvm::GlobalVariable* dynamic_lds_ = nullptr;
  std::string processor_;
  unsigned wave_;
  bool check_uniform_;
  bool check_races_;
  std::vector<SharedArrayType> shared_arrays_;
  std::unordered_set<const ir::Op*> group_reached_;  // uniform ops the whole group reaches together
  llvm::GlobalVariable* uniform_slot_ = nullptr;    // LDS: the first work-item's value
  std::vector<std::string> device_lib_users_;
};

}  // namespace

LoweredModule lower(const ir::Kernel& kernel, llvm::LLVMContext& context, llvm::TargetMachine& tm,
                    int code_object_version, bool check_uniform, bool check_races, bool fast_math,
                    const Settings& settings) {
  auto module = std::make_unique<llvm::Module>(kernel.name, context);
  module->setTargetTriple(llvm::Triple(triple));
  module->setDataLayout(tm.createDataLayout());
  AmdgpuLowering lowering(kernel, *module, tm.getTargetCPU().str(),
                          wavefront_size(tm.getTargetCPU().str(), tm.getTargetFeatureString().str()), check_uniform,
                          check_races, settings);
  if (fast_math || kernel.fast_math) lowering.enable_fast_math();
  LoweredModule out = lowering.run(module.get(), code_object_version);
  out.module = std::move(module);
  return out;
}

}  // namespace rocjit::targets::amdgpu

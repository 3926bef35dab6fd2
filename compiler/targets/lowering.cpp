// IR -> LLVM IR for everything that does not depend on the target.
#include "targets/lowering.h"

#include "rocjit/compiler/kernel_abi.hpp"

#include <fmt/format.h>
#include <llvm/IR/Intrinsics.h>

#include "rocjit/compiler/device_print.hpp"
#include "rocjit/compiler/error.hpp"
#include "rocjit/compiler/kernel_abi.hpp"

namespace rocjit::targets {

using ir::OpKind;
using ir::Type;

KernelLowering::KernelLowering(const ir::Kernel& kernel, llvm::Module& module, const Settings& settings)
    : kernel_(kernel), module_(module), context_(module.getContext()), builder_(module.getContext()), settings_(settings) {}

void KernelLowering::enable_fast_math() {
  fast_math_ = true;
  llvm::FastMathFlags flags;
  flags.setAllowContract();
  flags.setApproxFunc();
  builder_.setFastMathFlags(flags);
}

llvm::Type* KernelLowering::llvm_type(Type t) const {
  llvm::Type* element = nullptr;
  switch (t.code) {
    case Type::Code::none: return llvm::Type::getVoidTy(context_);
    case Type::Code::int_:
    case Type::Code::uint: element = llvm::Type::getIntNTy(context_, t.bits); break;
    case Type::Code::float_:
      element = t.bits == 16 ? llvm::Type::getHalfTy(context_)
                : t.bits == 32 ? llvm::Type::getFloatTy(context_)
                               : llvm::Type::getDoubleTy(context_);
      break;
    case Type::Code::bfloat: element = llvm::Type::getBFloatTy(context_); break;
  }
  return t.lanes > 1 ? llvm::FixedVectorType::get(element, t.lanes) : element;
}

std::vector<std::string> KernelLowering::argument_names() const {
  std::vector<std::string> names;
  for (const AbiArgument& a : kernel_abi(kernel_).arguments) names.push_back(a.name);
  return names;
}

std::vector<llvm::Type*> KernelLowering::argument_types(unsigned global_address_space) const {
  std::vector<llvm::Type*> types;
  for (const AbiArgument& a : kernel_abi(kernel_).arguments)
    types.push_back(a.kind == AbiArgument::Kind::pointer || a.kind == AbiArgument::Kind::print_buffer
                        ? llvm::PointerType::get(context_, global_address_space)
                                                         : llvm_type(a.type));
  return types;
}

llvm::AllocaInst* KernelLowering::entry_alloca(llvm::Type* type, llvm::Value* count, const llvm::Twine& name,
                                               unsigned address_space) {
  llvm::BasicBlock& entry = function_->getEntryBlock();
  llvm::IRBuilder<> b(&entry, entry.getFirstInsertionPt());
  return b.CreateAlloca(type, address_space, count, name);
}

void KernelLowering::lower_body(const std::vector<llvm::Value*>& args) {
  bind_arguments(args);
  create_slots();
  region(kernel_.body);
}

namespace {
// A DIFile for `path` (directory and name split as compilers record them).
llvm::DIFile* di_file(llvm::DIBuilder& di, const std::string& path) {
  const std::string_view p = path.empty() ? std::string_view("<unknown>") : std::string_view(path);
  const size_t slash = p.rfind('/');
  if (slash == std::string_view::npos) return di.createFile(p, ".");
  return di.createFile(p.substr(slash + 1), slash == 0 ? "/" : p.substr(0, slash));
}
}  // namespace

void KernelLowering::begin_line_table(llvm::Function* f) {
  if (!settings_.line_tables) return;
  di_ = std::make_unique<llvm::DIBuilder>(module_);
  llvm::DIFile* file = di_file(*di_, kernel_.loc.file);
  di_->createCompileUnit(llvm::dwarf::DW_LANG_C_plus_plus_14, file, "rocjit", /*isOptimized=*/true, "", 0, "",
                         llvm::DICompileUnit::LineTablesOnly);
  di_subprogram_ = di_->createFunction(file, kernel_.name, f->getName(), file, kernel_.loc.line,
                                       di_->createSubroutineType(di_->getOrCreateTypeArray({})), kernel_.loc.line,
                                       llvm::DINode::FlagZero,
                                       llvm::DISubprogram::SPFlagDefinition | llvm::DISubprogram::SPFlagOptimized);
  f->setSubprogram(di_subprogram_);
  if (!module_.getModuleFlag("Debug Info Version"))
    module_.addModuleFlag(llvm::Module::Warning, "Debug Info Version", llvm::DEBUG_METADATA_VERSION);
  if (!module_.getModuleFlag("Dwarf Version")) module_.addModuleFlag(llvm::Module::Max, "Dwarf Version", 5);
  builder_.SetCurrentDebugLocation(debug_location(kernel_.loc));
}

void KernelLowering::end_line_table() {
  if (di_) di_->finalize();
}

llvm::DILocation* KernelLowering::debug_location(const ir::SourceLoc& loc) {
  if (!di_subprogram_) return nullptr;
  llvm::DIScope* scope = di_subprogram_;
  if (loc.file != kernel_.loc.file) {
    llvm::DILexicalBlockFile*& block = di_files_[loc.file];
    if (!block) block = di_->createLexicalBlockFile(di_subprogram_, di_file(*di_, loc.file));
    scope = block;
  }
  return llvm::DILocation::get(context_, loc.line, loc.column, scope);
}

void KernelLowering::create_slots() {
  for (const ir::Slot& s : kernel_.slots)
    slots_.push_back(entry_alloca(llvm_type(s.type), nullptr, s.name, private_address_space_));
}

llvm::Value* KernelLowering::array_base(ir::MemoryId id) {
  const ir::Memory& m = kernel_.memories[id];
  if (m.space == ir::MemorySpace::global) return arrays_.at(id).base;
  auto it = memory_bases_.find(id);
  if (it != memory_bases_.end()) return it->second;
  return memory_bases_[id] = memory_base(m);
}

void KernelLowering::bind_arguments(const std::vector<llvm::Value*>& args) {
  function_ = builder_.GetInsertBlock()->getParent();
  values_.assign(kernel_.values.size(), nullptr);
  const KernelAbi abi = kernel_abi(kernel_);
  for (size_t a = 0; a < abi.arguments.size(); ++a) {
    const AbiArgument& arg = abi.arguments[a];
    if (arg.kind == AbiArgument::Kind::dynamic_shared) {
      dynamic_shared_bytes_ = args[a];
      continue;
    }
    if (arg.kind == AbiArgument::Kind::print_buffer) {
      print_buffer_ = args[a];
      continue;
    }
    const ir::Param& p = kernel_.params[arg.param];
    switch (arg.kind) {
      case AbiArgument::Kind::scalar: values_[p.value] = args[a]; break;
      case AbiArgument::Kind::pointer: arrays_[p.memory].base = args[a]; break;
      case AbiArgument::Kind::extent: arrays_[p.memory].shape.push_back(args[a]); break;
      case AbiArgument::Kind::stride: arrays_[p.memory].strides.push_back(args[a]); break;
      case AbiArgument::Kind::print_buffer:
      case AbiArgument::Kind::dynamic_shared: break;
    }
  }
}

void KernelLowering::region(const ir::Region& r) {
  for (const auto& op : r.ops) operation(*op);
}

void KernelLowering::continue_in_new_block() {
  builder_.SetInsertPoint(llvm::BasicBlock::Create(context_, "after.break", function_));
}

llvm::Value* KernelLowering::shape_of(const ir::Memory& m, unsigned dim) {
  if (m.dynamic)  // bytes / sizeof(T), as i32 (the bytes are below the shared-memory limit)
    return builder_.CreateUDiv(dynamic_shared_bytes_, builder_.getInt32(ir::byte_size(m.element)),
                               m.name + ".extent");
  if (!m.shape.empty()) return builder_.getInt32(static_cast<uint32_t>(m.shape[dim]));  // static, or specialised
  auto id = static_cast<ir::MemoryId>(&m - kernel_.memories.data());
  return arrays_.at(id).shape[dim];
}

bool KernelLowering::offsets_below_2_31(const ir::Memory& m) const {
  if (m.layout == ir::Layout::strided) return false;
  if (m.space != ir::MemorySpace::global) return true;  // at most ir::max_array_elements, or LDS-sized
  if (kernel_.small_arrays) return true;
  return !m.shape.empty() && ir::fewer_than_2_31_elements(m.shape);  // static or specialised extents
}

llvm::Value* KernelLowering::linear_index(const ir::Op& op, const ir::Memory& m) {
  // An in-bounds index lies in [0, extent), so for C and F layouts it widens with zext and the
  // linearisation cannot wrap (nuw nsw): cheaper 64-bit address arithmetic (one 32x32->64
  // multiply-add per dimension). A negative index is out of bounds, which is undefined anyway.
  // Strided views keep sign extension: their strides are signed.
  bool non_negative = m.layout != ir::Layout::strided;
  // Where every in-bounds offset is below 2^31 (narrow_offsets), the same arithmetic in 32 bits,
  // as clang's `int` indices: an in-bounds offset is below the element count, so no step of the
  // multiply-adds wraps (nuw nsw hold), an index wider than 32 bits that is in bounds fits in 32
  // bits (trunc), and the i32 offset, non-negative, is sign-extended by the GEP to its value.
  // Out-of-bounds accesses are undefined on every target (README, "Semantics") either way.
  llvm::Type* offset_type = narrow_offsets(m) ? builder_.getInt32Ty() : builder_.getInt64Ty();
  // A vector access (along the contiguous last dimension, ir::verify) at (..., i) moves elements
  // (..., N*i) ... (..., N*i+N-1): its last index counts vectors.
  const unsigned lanes = ir::access_lanes(kernel_, op);
  auto index = [&](unsigned d) -> llvm::Value* {
    llvm::Value* v = value(op.operands[d]);
    Type t = kernel_.value_type(op.operands[d]);
    v = ir::is_signed(t) && !non_negative ? builder_.CreateSExtOrTrunc(v, offset_type)
                                          : builder_.CreateZExtOrTrunc(v, offset_type);
    if (lanes > 1 && d == m.rank - 1)
      v = builder_.CreateMul(v, llvm::ConstantInt::get(offset_type, lanes), "", /*HasNUW=*/true, /*HasNSW=*/true);
    return v;
  };
  auto multiply_add = [&](llvm::Value* lin, llvm::Value* extent, llvm::Value* index) {
    return builder_.CreateAdd(builder_.CreateMul(lin, extent, "", /*HasNUW=*/true, /*HasNSW=*/true), index, "",
                              /*HasNUW=*/true, /*HasNSW=*/true);
  };
  auto extent = [&](unsigned d) -> llvm::Value* {
    return builder_.CreateZExtOrTrunc(shape_of(m, d), offset_type);
  };
  if (m.layout == ir::Layout::strided) {  // before the rank-1 shortcut: a 1-D view has a stride too
    const ArrayArgs& aa = arrays_.at(op.memory());
    llvm::Value* lin = builder_.CreateNSWMul(index(0), aa.strides[0]);
    for (unsigned d = 1; d < m.rank; ++d) lin = builder_.CreateNSWAdd(lin, builder_.CreateNSWMul(index(d), aa.strides[d]));
    return lin;
  }
  if (m.rank == 1) return index(0);
  // Dimensions in linearisation order (C: first to last), then Horner's rule over them. A pair
  // of adjacent indices (c / e, c % e), where e is the inner dimension's extent (the same
  // constant, or that extent read by `shape`), linearises to c itself: (c / e) * e + c % e == c
  // for every c under rocjit's division (README, "Semantics"), and such an access is in bounds
  // only if c is in [0, outer * e). A tile staged cell by cell (`tile(c / 18, c % 18)`) is then
  // indexed by the affine c, which the CPU's vectoriser can widen.
  std::vector<unsigned> order(m.rank);
  for (unsigned i = 0; i < m.rank; ++i) order[i] = m.layout == ir::Layout::C ? i : m.rank - 1 - i;
  ir::ValueId lin_value = op.operands[order[0]];  // the IR value the index so far equals, or 0
  llvm::Value* lin = nullptr;                     // the index so far; made when first needed
  for (unsigned i = 1; i < m.rank; ++i) {
    const unsigned d = order[i];
    const bool counts_vectors = lanes > 1 && d == m.rank - 1;
    if (ir::ValueId whole = counts_vectors ? 0 : split_index(lin_value, op.operands[d], m, d)) {
      lin_value = whole;
      lin = nullptr;
      continue;
    }
    if (!lin) lin = builder_.CreateZExtOrTrunc(value(lin_value), offset_type);
    lin = multiply_add(lin, extent(d), index(d));
    lin_value = 0;
  }
  return lin ? lin : builder_.CreateZExtOrTrunc(value(lin_value), offset_type);
}

ir::ValueId KernelLowering::split_index(ir::ValueId outer, ir::ValueId inner, const ir::Memory& m, unsigned d) const {
  if (outer == 0) return 0;
  const ir::Op* q = kernel_.values[outer].def;
  const ir::Op* r = kernel_.values[inner].def;
  auto is = [](const ir::Op* o, ir::BinaryOp b) { return o && o->kind == ir::OpKind::binary && o->binary_op() == b; };
  if (!is(q, ir::BinaryOp::div) || !is(r, ir::BinaryOp::rem) || q->operands[0] != r->operands[0]) return 0;
  // The divisor: dimension d's extent, as a constant (each DSL literal is its own constant op)
  // or read by `shape` from this array.
  auto is_extent = [&](ir::ValueId v) {
    const ir::Op* e = kernel_.values[v].def;
    if (!e) return false;
    if (e->kind == ir::OpKind::constant) return !m.shape.empty() && e->int_value() == m.shape[d];
    return e->kind == ir::OpKind::shape && &kernel_.memories[e->memory()] == &m && e->dim() == d;
  };
  if (!is_extent(q->operands[1]) || !is_extent(r->operands[1])) return 0;
  return available(q->operands[0]) ? q->operands[0] : 0;
}

llvm::Value* KernelLowering::element_address(const ir::Op&, const ir::Memory& m, llvm::Value* base,
                                             llvm::Value* linear) {
  return builder_.CreateInBoundsGEP(llvm_type(m.element), base, linear);
}

llvm::Align KernelLowering::vector_alignment(const ir::Memory& m, unsigned) { return llvm::Align(ir::byte_size(m.element)); }

llvm::Value* KernelLowering::math(const ir::Op& op, const std::vector<llvm::Value*>& args) {
  llvm::Type* t = llvm_type(op.type);
  auto intrinsic = [&](llvm::Intrinsic::ID id) { return builder_.CreateIntrinsic(id, {t}, args); };
  using M = ir::MathFn;
  switch (op.math_fn()) {
    case M::sqrt: return intrinsic(llvm::Intrinsic::sqrt);
    case M::rsqrt:
      return builder_.CreateFDiv(llvm::ConstantFP::get(t, 1.0), builder_.CreateIntrinsic(llvm::Intrinsic::sqrt, {t}, args));
    case M::exp: return intrinsic(llvm::Intrinsic::exp);
    case M::exp2: return intrinsic(llvm::Intrinsic::exp2);
    case M::exp10: return intrinsic(llvm::Intrinsic::exp10);
    case M::log: return intrinsic(llvm::Intrinsic::log);
    case M::log2: return intrinsic(llvm::Intrinsic::log2);
    case M::log10: return intrinsic(llvm::Intrinsic::log10);
    case M::sin: return intrinsic(llvm::Intrinsic::sin);
    case M::cos: return intrinsic(llvm::Intrinsic::cos);
    case M::tan: return intrinsic(llvm::Intrinsic::tan);
    case M::asin: return intrinsic(llvm::Intrinsic::asin);
    case M::acos: return intrinsic(llvm::Intrinsic::acos);
    case M::atan: return intrinsic(llvm::Intrinsic::atan);
    case M::atan2: return intrinsic(llvm::Intrinsic::atan2);
    case M::sinh: return intrinsic(llvm::Intrinsic::sinh);
    case M::cosh: return intrinsic(llvm::Intrinsic::cosh);
    case M::tanh: return intrinsic(llvm::Intrinsic::tanh);
    case M::pow: return intrinsic(llvm::Intrinsic::pow);
    case M::fma: return intrinsic(llvm::Intrinsic::fma);
    case M::fabs: return intrinsic(llvm::Intrinsic::fabs);
    case M::floor: return intrinsic(llvm::Intrinsic::floor);
    case M::ceil: return intrinsic(llvm::Intrinsic::ceil);
    case M::trunc: return intrinsic(llvm::Intrinsic::trunc);
    case M::round: return intrinsic(llvm::Intrinsic::round);
    case M::rint: return intrinsic(llvm::Intrinsic::rint);
    case M::copysign: return intrinsic(llvm::Intrinsic::copysign);
    case M::fmod: return builder_.CreateFRem(args[0], args[1]);
    case M::fmin: return float_min_max(false, args[0], args[1]);
    case M::fmax: return float_min_max(true, args[0], args[1]);
    case M::ldexp: return builder_.CreateIntrinsic(llvm::Intrinsic::ldexp, {t, builder_.getInt32Ty()}, args);
    // Integer functions: counts of a zero operand are the width (not poison); rotations are
    // funnel shifts of the value with itself (the amount taken modulo the width).
    case M::popcount: return intrinsic(llvm::Intrinsic::ctpop);
    case M::clz: return builder_.CreateIntrinsic(llvm::Intrinsic::ctlz, {t}, {args[0], builder_.getFalse()});
    case M::ctz: return builder_.CreateIntrinsic(llvm::Intrinsic::cttz, {t}, {args[0], builder_.getFalse()});
    case M::bitreverse: return intrinsic(llvm::Intrinsic::bitreverse);
    case M::rotl: return builder_.CreateIntrinsic(llvm::Intrinsic::fshl, {t}, {args[0], args[0], args[1]});
    case M::rotr: return builder_.CreateIntrinsic(llvm::Intrinsic::fshr, {t}, {args[0], args[0], args[1]});
    case M::mul_hi: {
      const unsigned w = ir::bit_width(op.type);
      llvm::Type* wide = builder_.getIntNTy(2 * w);
      const bool s = ir::is_signed(op.type);
      llvm::Value* p = builder_.CreateMul(builder_.CreateIntCast(args[0], wide, s), builder_.CreateIntCast(args[1], wide, s));
      return builder_.CreateTrunc(builder_.CreateLShr(p, w), t);
    }
    // No LLVM intrinsic: the target's math library.
    case M::asinh: case M::acosh: case M::atanh: case M::expm1: case M::log1p: case M::cbrt: case M::hypot:
    case M::erf: case M::erfc: case M::tgamma: case M::lgamma: case M::remainder: case M::nextafter:
      return library_call(op, args);
  }
  return nullptr;
}

// The C library's function (glibc's libm, which the host JIT resolves in the process): `name` for
// f64, `namef` for f32. lgamma is lgamma_r, which returns the sign through a pointer instead of
// writing the global signgam (a data race between the threads running work-groups).
llvm::Value* KernelLowering::library_call(const ir::Op& op, const std::vector<llvm::Value*>& args) {
  llvm::Type* t = llvm_type(op.type);
  const bool f32 = op.type == ir::Type::f32;
  std::string name(ir::math_fn_name(op.math_fn()));
  std::vector<llvm::Value*> call_args = args;
  std::vector<llvm::Type*> params(args.size(), t);
  if (op.math_fn() == ir::MathFn::lgamma) {
    name = "lgamma";
    params.push_back(builder_.getPtrTy());
    call_args.push_back(entry_alloca(builder_.getInt32Ty(), nullptr, "lgamma.sign", 0));
    name += f32 ? "f_r" : "_r";
  } else if (f32) {
    name += "f";
  }
  auto callee = module_.getOrInsertFunction(name, llvm::FunctionType::get(t, params, false));
  llvm::CallInst* call = builder_.CreateCall(callee, call_args);
  call->setDoesNotThrow();
  return call;
}

// Integer division and remainder are total (README, "Semantics"): x / 0 = 0 and x % 0 = x, and
// INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0 (the wrapped results), so q * y + r == x always holds.
// The divisor is replaced by 1 where the hardware instruction would trap (x86 SIGFPE) or LLVM
// would be undefined, and selects pick the defined result: no branches. A constant divisor
// other than 0 (and -1 when signed) needs no guard.
llvm::Value* KernelLowering::divide(bool remainder, bool is_signed, llvm::Value* a, llvm::Value* b) {
  auto plain = [&](llvm::Value* d) -> llvm::Value* {
    return remainder ? (is_signed ? builder_.CreateSRem(a, d) : builder_.CreateURem(a, d))
                     : (is_signed ? builder_.CreateSDiv(a, d) : builder_.CreateUDiv(a, d));
  };
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(b); c && !c->isZero() && !(is_signed && c->isMinusOne()))
    return plain(b);
  llvm::Type* t = b->getType();
  llvm::Value* one = llvm::ConstantInt::get(t, 1);
  llvm::Value* zero = llvm::ConstantInt::get(t, 0);
  if (!is_signed) {
    llvm::Value* is_zero = builder_.CreateICmpEQ(b, zero, "div.by.zero");
    llvm::Value* r = plain(builder_.CreateSelect(is_zero, one, b, "div.safe"));
    return builder_.CreateSelect(is_zero, remainder ? a : zero, r);
  }
  // b is 0 or -1 exactly when b + 1 <u 2; for those, x / b = x * b (0, or the wrapped -x) and
  // x % b = (b == 0 ? x : 0), where the 0 is x % 1.
  llvm::Value* special = builder_.CreateICmpULT(builder_.CreateAdd(b, one), llvm::ConstantInt::get(t, 2), "div.special");
  llvm::Value* r = plain(builder_.CreateSelect(special, one, b, "div.safe"));
  if (remainder) return builder_.CreateSelect(builder_.CreateICmpEQ(b, zero, "div.by.zero"), a, r);
  return builder_.CreateSelect(special, builder_.CreateMul(a, b), r);
}

llvm::Value* KernelLowering::binary(const ir::Op& op) {
  if (op.type == Type::bf16) not_legalized(op);
  return binary_of(op.binary_op(), op.type, value(op.operands[0]), value(op.operands[1]));
}

llvm::Value* KernelLowering::binary_of(ir::BinaryOp bop, Type type, llvm::Value* a, llvm::Value* b) {
  const bool f = ir::is_float(type);
  const bool s = ir::is_signed(type);
  // Shift amounts are taken modulo the bit width (as in OpenCL C): x << 33 == x << 1 for i32.
  auto shift_amount = [&] {
    return builder_.CreateAnd(b, llvm::ConstantInt::get(b->getType(), b->getType()->getIntegerBitWidth() - 1));
  };
  switch (bop) {
    case ir::BinaryOp::add: return f ? builder_.CreateFAdd(a, b) : builder_.CreateAdd(a, b);
    case ir::BinaryOp::sub: return f ? builder_.CreateFSub(a, b) : builder_.CreateSub(a, b);
    case ir::BinaryOp::mul: return f ? builder_.CreateFMul(a, b) : builder_.CreateMul(a, b);
    case ir::BinaryOp::div: return f ? builder_.CreateFDiv(a, b) : divide(false, s, a, b);
    case ir::BinaryOp::rem: return f ? builder_.CreateFRem(a, b) : integer_wrap_guard(divide(true, s, a, b));
    case ir::BinaryOp::min:
      return f ? float_min_max(false, a, b) : builder_.CreateBinaryIntrinsic(s ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, a, b);
    case ir::BinaryOp::max:
      return f ? float_min_max(true, a, b) : builder_.CreateBinaryIntrinsic(s ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, a, b);
    case ir::BinaryOp::and_:
      return type == Type::i1 ? builder_.CreateAnd(a, b) : integer_wrap_guard(builder_.CreateAnd(a, b));
    case ir::BinaryOp::or_: return builder_.CreateOr(a, b);
    case ir::BinaryOp::xor_: return builder_.CreateXor(a, b);
    case ir::BinaryOp::shl: return builder_.CreateShl(a, shift_amount());
    case ir::BinaryOp::shr: return s ? builder_.CreateAShr(a, shift_amount()) : builder_.CreateLShr(a, shift_amount());
  }
  return nullptr;
}

llvm::Value* KernelLowering::wave_combine(ir::BinaryOp op, Type type, llvm::Value* a, llvm::Value* b) {
  if (type == Type::bf16) return narrow_float(binary_of(op, Type::f32, widen_narrow_float(a), widen_narrow_float(b)), type);
  if (op == ir::BinaryOp::and_) return builder_.CreateAnd(a, b);  // no integer_wrap_guard: not an index
  return binary_of(op, type, a, b);
}

// IEEE 754-2019 minimumNumber/maximumNumber, ir::semantics::minimum_number/maximum_number: a NaN
// operand is ignored and -0 < +0. AMDGPU's v_min/v_max_f32/f64 are exactly that.
llvm::Value* KernelLowering::float_min_max(bool max, llvm::Value* a, llvm::Value* b) {
  return builder_.CreateBinaryIntrinsic(max ? llvm::Intrinsic::maximumnum : llvm::Intrinsic::minimumnum, a, b);
}

llvm::Value* KernelLowering::compare(const ir::Op& op) {
  llvm::Value* a = value(op.operands[0]);
  llvm::Value* b = value(op.operands[1]);
  Type t = kernel_.value_type(op.operands[0]);
  using P = llvm::CmpInst::Predicate;
  if (ir::is_float(t)) {
    static constexpr P preds[] = {P::FCMP_OEQ, P::FCMP_UNE, P::FCMP_OLT, P::FCMP_OLE, P::FCMP_OGT, P::FCMP_OGE};
    return builder_.CreateFCmp(preds[op.member()], a, b);
  }
  static constexpr P signed_preds[] = {P::ICMP_EQ, P::ICMP_NE, P::ICMP_SLT, P::ICMP_SLE, P::ICMP_SGT, P::ICMP_SGE};
  static constexpr P unsigned_preds[] = {P::ICMP_EQ, P::ICMP_NE, P::ICMP_ULT, P::ICMP_ULE, P::ICMP_UGT, P::ICMP_UGE};
  return builder_.CreateICmp(ir::is_signed(t) ? signed_preds[op.member()] : unsigned_preds[op.member()], a, b);
}

namespace {
bool is_narrow_float(Type t) { return ir::is_float(t) && t.bits == 16; }
}  // namespace

llvm::Value* KernelLowering::widen_narrow_float(llvm::Value* v) { return builder_.CreateFPExt(v, builder_.getFloatTy()); }

llvm::Value* KernelLowering::cut_to_xf32(llvm::Value* v) {
  llvm::Value* bits = builder_.CreateAnd(builder_.CreateBitCast(v, builder_.getInt32Ty()), builder_.getInt32(0xffffe000u));
  return builder_.CreateSelect(builder_.CreateFCmpUNO(v, v), v, builder_.CreateBitCast(bits, v->getType()));
}

llvm::Value* KernelLowering::round_to_odd_f32(llvm::Value* d) {
  llvm::Value* f = builder_.CreateFPTrunc(d, builder_.getFloatTy());
  llvm::Value* back = builder_.CreateFPExt(f, builder_.getDoubleTy());
  llvm::Value* bits = builder_.CreateBitCast(f, builder_.getInt32Ty());
  llvm::Value* inexact = builder_.CreateFCmpONE(back, d);  // NaN: false
  llvm::Value* even = builder_.CreateICmpEQ(builder_.CreateAnd(bits, 1), builder_.getInt32(0));
  // The other neighbour of d: one step down in magnitude if f is beyond d, else one step up.
  llvm::Value* beyond = builder_.CreateFCmpOGT(builder_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, back),
                                               builder_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, d));
  llvm::Value* other = builder_.CreateSelect(beyond, builder_.CreateSub(bits, builder_.getInt32(1)),
                                             builder_.CreateAdd(bits, builder_.getInt32(1)));
  return builder_.CreateBitCast(builder_.CreateSelect(builder_.CreateAnd(inexact, even), other, bits),
                                builder_.getFloatTy(), "round.odd");
}

llvm::Value* KernelLowering::narrow_float(llvm::Value* v, Type to) {
  if (v->getType()->isHalfTy() || v->getType()->isBFloatTy()) v = widen_narrow_float(v);
  // f16: LLVM's fptrunc rounds once from f32 and from f64 on every target (x86: F16C or the
  // __trunc*hf2 runtime functions; AMDGPU: v_cvt_f16_f32, and an exact integer sequence for f64).
  if (to == Type::f16) return builder_.CreateFPTrunc(v, builder_.getHalfTy());
  // bf16: round to nearest even on the f32 bits (a NaN keeps its sign and becomes quiet).
  if (v->getType()->isDoubleTy()) v = round_to_odd_f32(v);
  llvm::Value* bits = builder_.CreateBitCast(v, builder_.getInt32Ty());
  llvm::Value* lsb = builder_.CreateAnd(builder_.CreateLShr(bits, 16), 1);
  llvm::Value* rounded = builder_.CreateAdd(bits, builder_.CreateAdd(lsb, builder_.getInt32(0x7fff)));
  llvm::Value* quiet = builder_.CreateOr(bits, builder_.getInt32(0x400000));
  llvm::Value* word = builder_.CreateSelect(builder_.CreateFCmpUNO(v, v), quiet, rounded);
  return builder_.CreateBitCast(builder_.CreateTrunc(builder_.CreateLShr(word, 16), builder_.getInt16Ty()),
                                builder_.getBFloatTy(), "bf16");
}

llvm::Value* KernelLowering::bfloat_fma(llvm::Value* a, llvm::Value* b, llvm::Value* c) {
  llvm::Type* f64 = builder_.getDoubleTy();
  llvm::Value* x = builder_.CreateFPExt(a, f64);
  llvm::Value* y = builder_.CreateFPExt(b, f64);
  llvm::Value* z = builder_.CreateFPExt(c, f64);
  llvm::Value* p = builder_.CreateFMul(x, y);  // exact: 16 significant bits
  llvm::Value* sum = builder_.CreateFAdd(p, z);
  // TwoSum: err = (p + z) - sum exactly.
  llvm::Value* t = builder_.CreateFSub(sum, p);
  llvm::Value* err = builder_.CreateFAdd(builder_.CreateFSub(p, builder_.CreateFSub(sum, t)), builder_.CreateFSub(z, t));
  llvm::Value* bits = builder_.CreateBitCast(sum, builder_.getInt64Ty());
  llvm::Value* inexact = builder_.CreateFCmpONE(err, llvm::ConstantFP::get(f64, 0.0));
  llvm::Value* even = builder_.CreateICmpEQ(builder_.CreateAnd(bits, 1), builder_.getInt64(0));
  // Toward the exact value: up in magnitude when err has sum's sign.
  llvm::Value* same_sign = builder_.CreateICmpEQ(builder_.CreateICmpSLT(bits, builder_.getInt64(0)),
                                                 builder_.CreateFCmpOLT(err, llvm::ConstantFP::get(f64, 0.0)));
  llvm::Value* other = builder_.CreateSelect(same_sign, builder_.CreateAdd(bits, builder_.getInt64(1)),
                                             builder_.CreateSub(bits, builder_.getInt64(1)));
  llvm::Value* odd = builder_.CreateBitCast(builder_.CreateSelect(builder_.CreateAnd(inexact, even), other, bits), f64);
  return narrow_float(odd, Type::bf16);
}

llvm::Value* KernelLowering::int_to_narrow_float(llvm::Value* a, Type from, Type to) {
  const bool s = ir::is_signed(from);
  llvm::Type* f64 = builder_.getDoubleTy();
  if (from.bits <= 32) return narrow_float(s ? builder_.CreateSIToFP(a, f64) : builder_.CreateUIToFP(a, f64), to);
  // 64 bits: the magnitude's bits below bit 11 are jammed into bit 11 (round to odd there) when it
  // needs more than 53 bits, so the conversion to f64 is exact and the final rounding is correct.
  llvm::Value* magnitude = s ? builder_.CreateBinaryIntrinsic(llvm::Intrinsic::abs, a, builder_.getFalse()) : a;
  llvm::Value* sticky = builder_.CreateICmpNE(builder_.CreateAnd(magnitude, 0x7ff), builder_.getInt64(0));
  llvm::Value* jammed = builder_.CreateOr(builder_.CreateAnd(magnitude, ~uint64_t{0x7ff}),
                                          builder_.CreateShl(builder_.CreateZExt(sticky, builder_.getInt64Ty()), 11));
  llvm::Value* big = builder_.CreateICmpUGE(magnitude, builder_.getInt64(uint64_t{1} << 53));
  llvm::Value* d = builder_.CreateUIToFP(builder_.CreateSelect(big, jammed, magnitude), f64);
  if (s) d = builder_.CreateSelect(builder_.CreateICmpSLT(a, builder_.getInt64(0)), builder_.CreateFNeg(d), d);
  return narrow_float(d, to);
}

// 16-bit float arithmetic no target computes natively is rewritten into f32 arithmetic between
// casts by passes::legalize_types before any lowering sees the kernel.
void KernelLowering::not_legalized(const ir::Op& op) {
  throw CompileError(fmt::format("kernel '{}': internal error: {} on {} at {} reached the lowering; "
                                 "passes::legalize_types computes it in f32",
                                 kernel_.name, ir::op_kind_name(op.kind), ir::type_name(op.type), op.loc.str()));
}

llvm::Value* KernelLowering::half_conversion_guard(llvm::Value* h) { return builder_.CreateArithmeticFence(h, h->getType()); }

llvm::Value* KernelLowering::cast(const ir::Op& op) {
  llvm::Value* a = value(op.operands[0]);
  Type from = kernel_.value_type(op.operands[0]);
  Type to = op.type;
  llvm::Type* lt = llvm_type(to);
  if (from == to) return a;
  if (to == Type::i1) {
    return ir::is_float(from) ? builder_.CreateFCmpUNE(a, llvm::ConstantFP::get(a->getType(), 0.0))
                              : builder_.CreateICmpNE(a, llvm::ConstantInt::get(a->getType(), 0));
  }
  if (is_narrow_float(to)) {
    llvm::Value* r = ir::is_float(from) ? narrow_float(a, to) : int_to_narrow_float(a, from, to);
    // cast<half>(i) / 2^-14 widened to f32 gave 65536 instead of inf without the guard.
    if (to == Type::f16 && !llvm::isa<llvm::Constant>(r) && workaround(Workaround::half_conversion_fence))
      r = half_conversion_guard(r);
    return r;
  }
  if (is_narrow_float(from)) a = widen_narrow_float(a);  // exact; then as from f32
  if (ir::is_float(from) && ir::is_float(to)) return builder_.CreateFPCast(a, lt);
  // Float -> integer saturates to the integer type's range and maps NaN to 0.
  if (ir::is_float(from))
    return builder_.CreateIntrinsic(ir::is_signed(to) ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat,
                                    {lt, a->getType()}, {a});
  if (ir::is_float(to)) return ir::is_signed(from) ? builder_.CreateSIToFP(a, lt) : builder_.CreateUIToFP(a, lt);
  return ir::is_signed(from) ? builder_.CreateSExtOrTrunc(a, lt) : builder_.CreateZExtOrTrunc(a, lt);
}

llvm::Value* KernelLowering::atomic(const ir::Op& op) {
  const ir::Memory& m = kernel_.memories[op.memory()];
  llvm::Value* base = array_base(op.memory());
  llvm::Value* ptr = element_address(op, m, base, linear_index(op, m));
  llvm::Value* result = atomic_at(op, m, ptr);
  atomic_done(op, m, ptr);
  return result;
}

llvm::Value* KernelLowering::atomic_at(const ir::Op& op, const ir::Memory& m, llvm::Value* ptr) {
  const bool f = ir::is_float(m.element);
  const bool s = ir::is_signed(m.element);
  const ir::AtomicOp ao = op.atomic_op();
  llvm::Value* v = ao == ir::AtomicOp::load ? nullptr : value(op.operands[m.rank]);
  llvm::MaybeAlign align(ir::byte_size(m.element));
  if (plain_atomics(m.space)) return plain_atomic(op, ptr, v, align);
  auto scope = atomic_scope(m.space, op.scope());
  const auto order = llvm_ordering(op.order());
  if (ao == ir::AtomicOp::load) {
    llvm::LoadInst* load = builder_.CreateAlignedLoad(llvm_type(m.element), ptr, align);
    load->setAtomic(order, scope);
    return load;
  }
  if (ao == ir::AtomicOp::store) {
    builder_.CreateAlignedStore(v, ptr, align)->setAtomic(order, scope);
    return nullptr;
  }
  using B = llvm::AtomicRMWInst::BinOp;
  B bop = B::Xchg;
  switch (op.atomic_op()) {
    case ir::AtomicOp::add: bop = f ? B::FAdd : B::Add; break;
    case ir::AtomicOp::sub: bop = B::Sub; break;
    case ir::AtomicOp::min: bop = f ? B::FMin : s ? B::Min : B::UMin; break;
    case ir::AtomicOp::max: bop = f ? B::FMax : s ? B::Max : B::UMax; break;
    case ir::AtomicOp::and_: bop = B::And; break;
    case ir::AtomicOp::or_: bop = B::Or; break;
    case ir::AtomicOp::xor_: bop = B::Xor; break;
    case ir::AtomicOp::exchange: bop = B::Xchg; break;
    case ir::AtomicOp::load:
    case ir::AtomicOp::store: break;  // above
    case ir::AtomicOp::compare_exchange: {
      llvm::Value* desired = value(op.operands[m.rank + 1]);
      // The failure ordering may not release: release -> relaxed, acq_rel -> acquire.
      auto failure = llvm::AtomicCmpXchgInst::getStrongestFailureOrdering(order);
      auto* cx = builder_.CreateAtomicCmpXchg(ptr, v, desired, align, order, failure, scope);
      return builder_.CreateExtractValue(cx, 0);
    }
  }
  llvm::AtomicRMWInst* rmw = builder_.CreateAtomicRMW(bop, ptr, v, align, order, scope);
  annotate_atomic(*rmw, m);
  return rmw;
}

// The same operations as atomicrmw/cmpxchg, for memory no other thread touches meanwhile.
llvm::Value* KernelLowering::plain_atomic(const ir::Op& op, llvm::Value* ptr, llvm::Value* v, llvm::MaybeAlign align) {
  const ir::Memory& m = kernel_.memories[op.memory()];
  const bool f = ir::is_float(m.element);
  const bool s = ir::is_signed(m.element);
  llvm::LoadInst* old = builder_.CreateAlignedLoad(llvm_type(m.element), ptr, align, "atomic.old");
  llvm::Value* updated = nullptr;
  switch (op.atomic_op()) {
    case ir::AtomicOp::load: return old;
    case ir::AtomicOp::store: updated = v; break;
    case ir::AtomicOp::add: updated = f ? builder_.CreateFAdd(old, v) : builder_.CreateAdd(old, v); break;
    case ir::AtomicOp::sub: updated = f ? builder_.CreateFSub(old, v) : builder_.CreateSub(old, v); break;
    case ir::AtomicOp::min:
      updated = f ? float_min_max(false, old, v)
                  : builder_.CreateBinaryIntrinsic(s ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, old, v);
      break;
    case ir::AtomicOp::max:
      updated = f ? float_min_max(true, old, v)
                  : builder_.CreateBinaryIntrinsic(s ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, old, v);
      break;
    case ir::AtomicOp::and_: updated = builder_.CreateAnd(old, v); break;
    case ir::AtomicOp::or_: updated = builder_.CreateOr(old, v); break;
    case ir::AtomicOp::xor_: updated = builder_.CreateXor(old, v); break;
    case ir::AtomicOp::exchange: updated = v; break;
    case ir::AtomicOp::compare_exchange: {
      // cmpxchg compares the bits, so floats are compared as integers of their width.
      llvm::Value* desired = value(op.operands[m.rank + 1]);
      llvm::Type* bits = builder_.getIntNTy(ir::bit_width(m.element));
      llvm::Value* equal = builder_.CreateICmpEQ(builder_.CreateBitCast(old, bits), builder_.CreateBitCast(v, bits));
      updated = builder_.CreateSelect(equal, desired, old);
      break;
    }
  }
  builder_.CreateAlignedStore(updated, ptr, align);
  return old;
}

llvm::AtomicOrdering KernelLowering::llvm_ordering(ir::MemoryOrder o) {
  switch (o) {
    case ir::MemoryOrder::relaxed: return llvm::AtomicOrdering::Monotonic;
    case ir::MemoryOrder::acquire: return llvm::AtomicOrdering::Acquire;
    case ir::MemoryOrder::release: return llvm::AtomicOrdering::Release;
    case ir::MemoryOrder::acq_rel: return llvm::AtomicOrdering::AcquireRelease;
    case ir::MemoryOrder::seq_cst: return llvm::AtomicOrdering::SequentiallyConsistent;
  }
  return llvm::AtomicOrdering::Monotonic;
}

// dsl::print and dsl::device_assert: a record in the print buffer (layout: device_print.hpp).
// A print claims its bytes with one atomic add on `used` (skipped once the buffer is full, so
// the counter cannot wrap), writes the record if it fits and otherwise counts it in `dropped`
// (marking where it would have started, so the host stops there). A failing assert counts
// itself in `failures`; the first one writes its record to the assert slot.
void KernelLowering::device_output(const ir::Op& op) {
  const bool is_assert = op.kind == OpKind::assert_;
  if (is_assert && settings_.asserts == AssertMode::off) return;  // the condition's ops are dead code
  if (print_sites_.empty()) print_sites_ = print_site_ids(kernel_);
  const uint32_t site = print_sites_.at(&op);
  auto* i32 = builder_.getInt32Ty();
  auto* i8 = builder_.getInt8Ty();
  const auto scope = atomic_scope(ir::MemorySpace::global, ir::MemoryScope::device);
  auto field = [&](llvm::Value* offset) { return builder_.CreateGEP(i8, print_buffer_, offset); };
  auto add = [&](uint32_t at, llvm::Value* v) {
    return builder_.CreateAtomicRMW(llvm::AtomicRMWInst::Add, field(builder_.getInt32(at)), v, llvm::Align(4),
                                    llvm::AtomicOrdering::Monotonic, scope);
  };
  // The record at byte `at` of the buffer (i32).
  auto write_record = [&](llvm::Value* at) {
    builder_.CreateAlignedStore(builder_.getInt32(site), field(at), llvm::Align(4));
    for (unsigned d = 0; d < 3; ++d) {
      builder_.CreateAlignedStore(workitem(ir::WorkItem::group_id, d),
                                  field(builder_.CreateAdd(at, builder_.getInt32(4 + 4 * d))), llvm::Align(4));
      builder_.CreateAlignedStore(workitem(ir::WorkItem::local_id, d),
                                  field(builder_.CreateAdd(at, builder_.getInt32(16 + 4 * d))), llvm::Align(4));
    }
    builder_.CreateAlignedStore(builder_.getInt32(0), field(builder_.CreateAdd(at, builder_.getInt32(28))),
                                llvm::Align(4));
    uint32_t word = 0;
    for (size_t i = is_assert ? 1 : 0; i < op.operands.size(); ++i) {
      const ir::Type t = kernel_.value_type(op.operands[i]);
      llvm::Value* v = value(op.operands[i]);
      for (unsigned lane = 0; lane < t.lanes; ++lane, ++word) {
        llvm::Value* x = t.lanes > 1 ? builder_.CreateExtractElement(v, builder_.getInt32(lane)) : v;
        if (!x->getType()->isIntegerTy()) x = builder_.CreateBitCast(x, builder_.getIntNTy(t.bits));
        x = builder_.CreateZExt(x, builder_.getInt64Ty());
        llvm::Value* place = builder_.CreateAdd(at, builder_.getInt32(print_buffer::record_header + 8 * word));
        builder_.CreateAlignedStore(x, field(place), llvm::Align(8));
      }
    }
  };
  auto* done = llvm::BasicBlock::Create(context_, is_assert ? "assert.done" : "print.done", function_);
  if (is_assert) {
    auto* failed = llvm::BasicBlock::Create(context_, "assert.failed", function_);
    auto* first = llvm::BasicBlock::Create(context_, "assert.first", function_);
    auto* recorded = llvm::BasicBlock::Create(context_, "assert.recorded", function_);
    builder_.CreateCondBr(value(op.operands[0]), done, failed);
    builder_.SetInsertPoint(failed);
    llvm::Value* before = add(print_buffer::failures, builder_.getInt32(1));
    builder_.CreateCondBr(builder_.CreateICmpEQ(before, builder_.getInt32(0)), first, recorded);
    builder_.SetInsertPoint(first);
    write_record(builder_.getInt32(print_buffer::assert_slot));
    builder_.CreateBr(recorded);
    builder_.SetInsertPoint(recorded);
    if (settings_.asserts == AssertMode::trap) assert_trap();
    builder_.CreateBr(done);
    builder_.SetInsertPoint(done);
    return;
  }
  const uint32_t bytes = print_buffer::record_header + 8 * static_cast<uint32_t>([&] {
    unsigned lanes = 0;
    for (ir::ValueId v : op.operands) lanes += kernel_.value_type(v).lanes;
    return lanes;
  }());
  const uint32_t start = print_table(kernel_).records_offset();
  auto* claim = llvm::BasicBlock::Create(context_, "print.claim", function_);
  auto* write = llvm::BasicBlock::Create(context_, "print.write", function_);
  auto* drop = llvm::BasicBlock::Create(context_, "print.drop", function_);
  auto* mark = llvm::BasicBlock::Create(context_, "print.mark", function_);
  auto* count = llvm::BasicBlock::Create(context_, "print.count", function_);
  llvm::Value* capacity = builder_.CreateAlignedLoad(i32, field(builder_.getInt32(print_buffer::capacity)), llvm::Align(4));
  auto* used_now = builder_.CreateAlignedLoad(i32, field(builder_.getInt32(print_buffer::used)), llvm::Align(4));
  used_now->setAtomic(llvm::AtomicOrdering::Monotonic, scope);
  builder_.CreateCondBr(builder_.CreateICmpULT(used_now, capacity), claim, count);
  builder_.SetInsertPoint(claim);
  llvm::Value* at = add(print_buffer::used, builder_.getInt32(bytes));
  llvm::Value* end = builder_.CreateAdd(at, builder_.getInt32(bytes));
  builder_.CreateCondBr(builder_.CreateAnd(builder_.CreateICmpULE(end, capacity), builder_.CreateICmpUGE(end, at)),
                        write, drop);
  builder_.SetInsertPoint(write);
  write_record(builder_.CreateAdd(at, builder_.getInt32(start)));
  builder_.CreateBr(done);
  builder_.SetInsertPoint(drop);
  // It started inside the record area: mark the spot, so the host reads no further.
  builder_.CreateCondBr(builder_.CreateICmpULT(at, capacity), mark, count);
  builder_.SetInsertPoint(mark);
  builder_.CreateAlignedStore(builder_.getInt32(UINT32_MAX), field(builder_.CreateAdd(at, builder_.getInt32(start))),
                              llvm::Align(4));
  builder_.CreateBr(count);
  builder_.SetInsertPoint(count);
  add(print_buffer::dropped, builder_.getInt32(1));
  builder_.CreateBr(done);
  builder_.SetInsertPoint(done);
}

void KernelLowering::fence(const ir::Op& op) {
  builder_.CreateFence(llvm_ordering(op.order()), atomic_scope(ir::MemorySpace::global, op.scope()));
}

void KernelLowering::operation(const ir::Op& op) {
  if (di_subprogram_) builder_.SetCurrentDebugLocation(debug_location(op.loc));
  llvm::Value* result = nullptr;
  switch (op.kind) {
    case OpKind::constant:
      result = ir::is_float(op.type) ? static_cast<llvm::Value*>(llvm::ConstantFP::get(llvm_type(op.type), op.float_value()))
                                     : llvm::ConstantInt::get(llvm_type(op.type), static_cast<uint64_t>(op.int_value()),
                                                              ir::is_signed(op.type));
      break;
    case OpKind::binary: result = binary(op); break;
    case OpKind::unary: {
      llvm::Value* a = value(op.operands[0]);
      if (is_narrow_float(op.type) && op.unary_op() != ir::UnaryOp::not_) {
        // -x and |x| on 16-bit floats flip or clear the sign bit (no rounding, no promotion).
        llvm::Value* bits = builder_.CreateBitCast(a, builder_.getInt16Ty());
        bits = op.unary_op() == ir::UnaryOp::neg ? builder_.CreateXor(bits, 0x8000) : builder_.CreateAnd(bits, 0x7fff);
        result = builder_.CreateBitCast(bits, a->getType());
        break;
      }
      switch (op.unary_op()) {
        case ir::UnaryOp::neg: result = ir::is_float(op.type) ? builder_.CreateFNeg(a) : builder_.CreateNeg(a); break;
        case ir::UnaryOp::not_: result = builder_.CreateNot(a); break;
        case ir::UnaryOp::abs:
          result = ir::is_float(op.type) ? builder_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a)
                   : ir::is_signed(op.type) ? builder_.CreateBinaryIntrinsic(llvm::Intrinsic::abs, a, builder_.getFalse())
                                            : a;
          break;
      }
      break;
    }
    case OpKind::compare: result = compare(op); break;
    case OpKind::select:
      result = builder_.CreateSelect(value(op.operands[0]), value(op.operands[1]), value(op.operands[2]));
      break;
    case OpKind::cast: result = cast(op); break;
    case OpKind::bitcast: result = builder_.CreateBitCast(value(op.operands[0]), llvm_type(op.type)); break;
    case OpKind::math: {
      if (is_narrow_float(op.type) && op.math_fn() == ir::MathFn::fma && op.type == Type::bf16) {
        result = bfloat_fma(value(op.operands[0]), value(op.operands[1]), value(op.operands[2]));
        break;
      }
      // f16 fma is native (AMDGPU's v_fma_f16; x86 computes it in f64, exact before the rounding).
      if (is_narrow_float(op.type) && op.math_fn() != ir::MathFn::fma) not_legalized(op);
      std::vector<llvm::Value*> args;
      for (ir::ValueId v : op.operands) args.push_back(value(v));
      result = math(op, args);
      break;
    }
    case OpKind::workitem: result = workitem(op.workitem(), op.dim()); break;
    case OpKind::shape: result = shape_of(kernel_.memories[op.memory()], op.dim()); break;
    case OpKind::load:
    case OpKind::store: {
      const ir::Memory& m = kernel_.memories[op.memory()];
      llvm::Value* base = array_base(op.memory());
      // A vector access: linear_index scales its last index by the lanes.
      const unsigned lanes = ir::access_lanes(kernel_, op);
      llvm::Value* linear = linear_index(op, m);
      llvm::Value* ptr = element_address(op, m, base, linear);
      llvm::Align align = lanes > 1 ? vector_alignment(m, lanes) : llvm::Align(ir::byte_size(m.element));
      if (op.kind == OpKind::load)
        result = builder_.CreateAlignedLoad(llvm_type(op.type), ptr, align);
      else
        builder_.CreateAlignedStore(value(op.operands[m.rank]), ptr, align);
      break;
    }
    case OpKind::make_vector: {
      result = llvm::PoisonValue::get(llvm_type(op.type));
      for (unsigned lane = 0; lane < op.operands.size(); ++lane)
        result = builder_.CreateInsertElement(result, value(op.operands[lane]), builder_.getInt32(lane));
      break;
    }
    case OpKind::extract: result = builder_.CreateExtractElement(value(op.operands[0]), builder_.getInt32(op.lane())); break;
    case OpKind::atomic: result = atomic(op); break;
    case OpKind::var_load:
      result = builder_.CreateLoad(llvm_type(op.type), slot_pointer(op.slot()));
      break;
    case OpKind::var_store: builder_.CreateStore(value(op.operands[0]), slot_pointer(op.slot())); break;
    case OpKind::barrier: barrier(op); break;
    case OpKind::wavebarrier: wavebarrier(op); break;
    case OpKind::fence: fence(op); break;
    case OpKind::uniform: result = uniform(op); break;
    case OpKind::wave: wave(op); return;  // defines its result itself
    case OpKind::mma: mma(op); return;    // likewise
    case OpKind::print:
    case OpKind::assert_: device_output(op); break;
    case OpKind::if_: lower_if(op); break;
    case OpKind::for_: lower_for(op); break;
    case OpKind::while_: lower_while(op); break;
    case OpKind::condition: break;  // handled by lower_while
    case OpKind::return_: return_(op); break;
    case OpKind::continue_:
      builder_.CreateBr(loop_continues_.back());
      continue_in_new_block();
      break;
    case OpKind::break_:
      builder_.CreateBr(loop_exits_.back());
      continue_in_new_block();
      break;
  }
  if (op.result && op.kind != OpKind::for_) define(op, result);
}

void KernelLowering::lower_if(const ir::Op& op) {
  auto* then_bb = llvm::BasicBlock::Create(context_, "if.then", function_);
  auto* else_bb = op.regions[1].ops.empty() ? nullptr : llvm::BasicBlock::Create(context_, "if.else", function_);
  auto* end_bb = llvm::BasicBlock::Create(context_, "if.end", function_);
  builder_.CreateCondBr(value(op.operands[0]), then_bb, else_bb ? else_bb : end_bb);
  builder_.SetInsertPoint(then_bb);
  region(op.regions[0]);
  builder_.CreateBr(end_bb);
  if (else_bb) {
    builder_.SetInsertPoint(else_bb);
    region(op.regions[1]);
    builder_.CreateBr(end_bb);
  }
  builder_.SetInsertPoint(end_bb);
}

// Whether `v` is positive whatever the launch: a work-group size, group count or grid size
// (at least 1 each), or such a value converted to a wider signed or unsigned integer. A For
// stepping by one (the grid-stride loop) then needs no run-time direction test.
bool KernelLowering::known_positive(ir::ValueId v) const {
  const ir::Op* def = kernel_.values.at(v).def;
  if (!def) return false;
  if (def->kind == OpKind::workitem)
    return def->workitem() == ir::WorkItem::local_size || def->workitem() == ir::WorkItem::num_groups ||
           def->workitem() == ir::WorkItem::global_size;
  if (def->kind == OpKind::cast && ir::is_integer(def->type) && ir::bit_width(def->type) >= 32)
    return known_positive(def->operands[0]);
  return false;
}

void KernelLowering::lower_for(const ir::Op& op) {
  llvm::Value* begin = value(op.operands[0]);
  llvm::Value* end = value(op.operands[1]);
  llvm::Value* step = value(op.operands[2]);
  const bool s = ir::is_signed(op.type);
  llvm::BasicBlock* pre = builder_.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(context_, "for.header", function_);
  auto* body = llvm::BasicBlock::Create(context_, "for.body", function_);
  auto* latch = llvm::BasicBlock::Create(context_, "for.latch", function_);
  auto* exit = llvm::BasicBlock::Create(context_, "for.exit", function_);
  builder_.CreateBr(header);
  builder_.SetInsertPoint(header);
  llvm::PHINode* i = builder_.CreatePHI(llvm_type(op.type), 2, "i");
  i->addIncoming(begin, pre);
  llvm::Value* cond;
  auto* constant_step = llvm::dyn_cast<llvm::ConstantInt>(step);
  // The direction is the sign of the step read as a signed number, for unsigned counters too, and
  // the same whether the step is a constant or known only at run time (a step of 0 counts down).
  const bool constant_up = (constant_step && constant_step->getValue().isStrictlyPositive()) ||
                           known_positive(op.operands[2]);
  llvm::Value* up = s ? builder_.CreateICmpSLT(i, end) : builder_.CreateICmpULT(i, end);
  if (constant_up) {
    cond = up;
  } else {
    llvm::Value* down = s ? builder_.CreateICmpSGT(i, end) : builder_.CreateICmpUGT(i, end);
    if (constant_step) {
      cond = down;
    } else {
      llvm::Value* positive = builder_.CreateICmpSGT(step, llvm::ConstantInt::get(step->getType(), 0));
      cond = builder_.CreateSelect(positive, up, down);
    }
  }
  builder_.CreateCondBr(cond, body, exit);
  builder_.SetInsertPoint(body);
  define(op, i);
  loop_exits_.push_back(exit);
  loop_continues_.push_back(latch);
  region(op.regions[0]);
  loop_continues_.pop_back();
  loop_exits_.pop_back();
  builder_.CreateBr(latch);
  builder_.SetInsertPoint(latch);
  // The induction variable never wraps (README, "Semantics"): the loop ends where i + step would
  // overflow. A step of 1 (or -1 when signed) cannot overflow once the header has checked
  // i < end (i > end), so it is a no-wrap add; any other step checks the overflow bit, which
  // LLVM's scalar evolution still understands for trip counts.
  llvm::Value* next = nullptr;
  if (constant_step && (constant_step->isOne() || (s && constant_step->isMinusOne()))) {
    next = s ? builder_.CreateNSWAdd(i, step) : builder_.CreateNUWAdd(i, step);
    unroll_metadata(builder_.CreateBr(header), op);
  } else if (s || constant_up) {
    llvm::Value* sum = builder_.CreateBinaryIntrinsic(
        s ? llvm::Intrinsic::sadd_with_overflow : llvm::Intrinsic::uadd_with_overflow, i, step);
    next = builder_.CreateExtractValue(sum, 0);
    unroll_metadata(builder_.CreateCondBr(builder_.CreateExtractValue(sum, 1, "for.wraps"), exit, header), op);
  } else {
    // An unsigned loop counts down when the step is negative as a signed number (see the
    // header's condition): it wraps if it passes 0 going down.
    next = builder_.CreateAdd(i, step);
    llvm::Value* wraps_down = builder_.CreateICmpUGT(next, i);
    llvm::Value* wraps = wraps_down;
    if (!constant_step) {
      llvm::Value* positive = builder_.CreateICmpSGT(step, llvm::ConstantInt::get(step->getType(), 0));
      wraps = builder_.CreateSelect(positive, builder_.CreateICmpULT(next, i), wraps_down);
    }
    wraps->setName("for.wraps");
    unroll_metadata(builder_.CreateCondBr(wraps, exit, header), op);
  }
  i->addIncoming(next, latch);
  builder_.SetInsertPoint(exit);
}

void KernelLowering::lower_while(const ir::Op& op) {
  auto* header = llvm::BasicBlock::Create(context_, "while.cond", function_);
  auto* body = llvm::BasicBlock::Create(context_, "while.body", function_);
  auto* exit = llvm::BasicBlock::Create(context_, "while.exit", function_);
  builder_.CreateBr(header);
  builder_.SetInsertPoint(header);
  region(op.regions[0]);
  const ir::Op& cond = *op.regions[0].ops.back();
  builder_.CreateCondBr(value(cond.operands[0]), body, exit);
  builder_.SetInsertPoint(body);
  // The step region (a C for loop's increment) runs after the body and after a Continue.
  const bool has_step = op.regions.size() > 2 && !op.regions[2].ops.empty();
  llvm::BasicBlock* step = has_step ? llvm::BasicBlock::Create(context_, "while.step", function_) : header;
  loop_exits_.push_back(exit);
  loop_continues_.push_back(step);
  region(op.regions[1]);
  loop_continues_.pop_back();
  loop_exits_.pop_back();
  if (has_step) {
    builder_.CreateBr(step);
    builder_.SetInsertPoint(step);
    region(op.regions[2]);
  }
  unroll_metadata(builder_.CreateBr(header), op);
  builder_.SetInsertPoint(exit);
}

// The loop's unroll request as llvm.loop metadata on its back edge: a count, or disable for 1.
void KernelLowering::unroll_metadata(llvm::Instruction* back_edge, const ir::Op& loop) {
  if (loop.unroll() == 0) return;
  llvm::Metadata* hint =
      loop.unroll() == 1
          ? llvm::MDNode::get(context_, {llvm::MDString::get(context_, "llvm.loop.unroll.disable")})
          : llvm::MDNode::get(context_, {llvm::MDString::get(context_, "llvm.loop.unroll.count"),
                                         llvm::ConstantAsMetadata::get(builder_.getInt32(
                                             static_cast<uint32_t>(loop.unroll())))});
  llvm::MDNode* id = llvm::MDNode::getDistinct(context_, {nullptr, hint});
  id->replaceOperandWith(0, id);
  back_edge->setMetadata(llvm::LLVMContext::MD_loop, id);
}

void KernelLowering::return_(const ir::Op&) {
  builder_.CreateRetVoid();
  continue_in_new_block();
}

}  // namespace rocjit::targets

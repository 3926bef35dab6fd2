// Links ocml, or the built-in libclc functions, for the math functions the AMDGPU backend cannot
// expand accurately itself.
#include "targets/amdgpu/device_libs.h"

#include <fmt/format.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/TargetParser/TargetParser.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <mutex>

#include "rocjit/compiler/error.hpp"

namespace rocjit::targets::amdgpu {

#ifdef ROCJIT_BUILTIN_MATH_BC
// The libclc functions (CMakeLists.txt extracts them from libclc's amdgcn bitcode), in .rodata.
__asm__(".pushsection .rodata\n"
        ".balign 16\n"
        ".globl rocjit_builtin_math_bc\n.hidden rocjit_builtin_math_bc\n"
        "rocjit_builtin_math_bc:\n"
        ".incbin \"" ROCJIT_BUILTIN_MATH_BC "\"\n"
        ".globl rocjit_builtin_math_bc_end\n.hidden rocjit_builtin_math_bc_end\n"
        "rocjit_builtin_math_bc_end:\n"
        ".popsection\n");
extern "C" const char rocjit_builtin_math_bc[];
extern "C" const char rocjit_builtin_math_bc_end[];
#endif

namespace {

// The __oclc_ISA_version of a processor: major * 1000 + minor * 100 + stepping ("gfx90a" -> 9010,
// "gfx942" -> 9402, "gfx1100" -> 11000), from LLVM's table of AMDGPU processors.
int isa_version(const std::string& processor) {
  const llvm::AMDGPU::IsaVersion v = llvm::AMDGPU::getIsaVersion(processor);
  return static_cast<int>(v.Major * 1000 + v.Minor * 100 + v.Stepping);
}

// ocml.bc, read once per process (a few MiB) for each Settings::device_libs a compile used; each
// compile loads it lazily from these bytes, so only the functions a kernel calls are parsed.
struct OcmlFile {
  std::string path;
  std::unique_ptr<llvm::MemoryBuffer> bytes;
};

// Never destroyed, so references stay valid (compiles may run while the process exits). `make`
// runs once per key, outside the lock.
template <class V>
const V& once_per(const std::string& key, const std::function<V()>& make) {
  static std::mutex& lock = *new std::mutex;
  static auto& made = *new std::map<std::string, std::shared_future<const V*>>;
  std::promise<const V*> promise;
  std::shared_future<const V*> future;
  {
    std::lock_guard<std::mutex> g(lock);
    auto [it, inserted] = made.try_emplace(key);
    if (inserted) it->second = promise.get_future().share();
    else future = it->second;
  }
  if (future.valid()) return *future.get();
  const V* value = nullptr;
  try {
    value = new V(make());
  } catch (...) {  // the callers waiting see the error; the next call tries again
    promise.set_exception(std::current_exception());
    std::lock_guard<std::mutex> g(lock);
    made.erase(key);
    throw;
  }
  promise.set_value(value);
  return *value;
}

const OcmlFile& ocml_file(const std::string& device_libs) {
  return once_per<OcmlFile>(device_libs, [&] {
    OcmlFile f;
    for (const auto& d : device_lib_dirs(device_libs)) {
      std::filesystem::path path = std::filesystem::path(d) / "ocml.bc";
      if (!std::filesystem::exists(path)) continue;
      auto buffer = llvm::MemoryBuffer::getFile(path.string());
      if (!buffer) continue;
      f.path = path.string();
      f.bytes = std::move(*buffer);
      break;
    }
    return f;
  });
}

llvm::StringRef builtin_bytes() {
#ifdef ROCJIT_BUILTIN_MATH_BC
  return llvm::StringRef(rocjit_builtin_math_bc, static_cast<size_t>(rocjit_builtin_math_bc_end - rocjit_builtin_math_bc));
#else
  return {};
#endif
}

// Every function of the linked library is private to this code object; the optimiser inlines
// and drops them.
void internalize_library(llvm::Module& module) {
  for (llvm::Function& fn : module)
    if (!fn.isDeclaration() && fn.getCallingConv() != llvm::CallingConv::AMDGPU_KERNEL)
      fn.setLinkage(llvm::GlobalValue::InternalLinkage);
  for (llvm::GlobalVariable& g : module.globals())
    if (!g.isDeclaration()) g.setLinkage(llvm::GlobalValue::InternalLinkage);
}

// nextafter(x, y) written out on the bits: the neighbour of x toward y (y itself when equal; the
// smallest subnormal with y's sign from a zero; NaN when either is).
void define_nextafter(llvm::Function& fn) {
  llvm::LLVMContext& context = fn.getContext();
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", &fn));
  llvm::Value* x = fn.getArg(0);
  llvm::Value* y = fn.getArg(1);
  llvm::Type* ft = x->getType();
  llvm::Type* it = b.getIntNTy(ft->getPrimitiveSizeInBits());
  llvm::Value* ix = b.CreateBitCast(x, it);
  llvm::Value* iy = b.CreateBitCast(y, it);
  llvm::Value* zero = llvm::ConstantFP::get(ft, 0.0);
  // Away from zero when x and y - x have the same sign.
  llvm::Value* away = b.CreateICmpEQ(b.CreateFCmpOLT(x, y), b.CreateFCmpOGT(x, zero));
  llvm::Value* one = llvm::ConstantInt::get(it, 1);
  llvm::Value* stepped = b.CreateSelect(away, b.CreateAdd(ix, one), b.CreateSub(ix, one));
  llvm::Value* sign = llvm::ConstantInt::get(it, llvm::APInt::getSignMask(it->getIntegerBitWidth()));
  llvm::Value* tiny = b.CreateOr(b.CreateAnd(iy, sign), one);
  llvm::Value* r = b.CreateSelect(b.CreateFCmpOEQ(x, zero), tiny, stepped);
  r = b.CreateSelect(b.CreateFCmpOEQ(x, y), iy, r);
  llvm::Value* result = b.CreateBitCast(r, ft);
  b.CreateRet(b.CreateSelect(b.CreateFCmpUNO(x, y), b.CreateFAdd(x, y), result));
}

// libclc's f64 pow and tgamma get some extreme arguments wrong (rocjit-accuracy with
// ROCJIT_DEVICE_LIBS=none): pow(x, y) for |y| >= 2^64 (pow(2^-1074, DBL_MAX) gave inf,
// pow(DBL_MAX, DBL_MAX) NaN), and tgamma beyond [-20, 20] and near 0 (hundreds of ulp, ±inf
// below -170 where the exact value is tiny, +inf just below -0). These wrappers settle those
// cases.
llvm::Function* define_fixed(llvm::Module& module, llvm::StringRef fn, const std::string& mangled) {
  llvm::LLVMContext& context = module.getContext();
  llvm::Type* f64 = llvm::Type::getDoubleTy(context);
  const bool pow = fn == "pow";
  std::vector<llvm::Type*> params(pow ? 2 : 1, f64);
  auto* type = llvm::FunctionType::get(f64, params, false);
  std::string name = "rocjit.builtin." + fn.str();
  if (llvm::Function* existing = module.getFunction(name)) return existing;
  auto* wrapper = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage, name, module);
  llvm::FunctionCallee library = module.getOrInsertFunction(mangled, type);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", wrapper));
  llvm::Value* x = wrapper->getArg(0);
  auto c = [&](double v) { return llvm::ConstantFP::get(f64, v); };
  llvm::Value* ax = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  if (pow) {
    llvm::Value* y = wrapper->getArg(1);
    llvm::Value* general = b.CreateCall(library, {x, y});
    // |y| >= 2^64 is an even integer, and |x|^y over- or underflows unless |x| = 1.
    llvm::Value* huge = b.CreateFCmpOGE(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, y), c(0x1p64));
    llvm::Value* to_zero = b.CreateICmpEQ(b.CreateFCmpOLT(ax, c(1.0)), b.CreateFCmpOGT(y, c(0.0)));
    llvm::Value* extreme = b.CreateSelect(to_zero, c(0.0), c(INFINITY));
    extreme = b.CreateSelect(b.CreateFCmpOEQ(ax, c(1.0)), c(1.0), extreme);
    extreme = b.CreateSelect(b.CreateFCmpUNO(x, x), x, extreme);
    b.CreateRet(b.CreateSelect(huge, extreme, general));
    return wrapper;
  }
  // libclc's tgamma is accurate for small arguments only (1,426 ulp at 165, 127 at 27.5):
  // Γ(z) = (z - 1)(z - 2)...(z - m) Γ(z - m) with z - m in (1, 2], one rounding per factor.
  constexpr double kDescendTo = 2.0;
  auto* positive = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage, name + ".descend", module);
  {
    llvm::IRBuilder<> p(llvm::BasicBlock::Create(context, "entry", positive));
    llvm::Value* z0 = positive->getArg(0);
    llvm::BasicBlock* entry = p.GetInsertBlock();
    llvm::BasicBlock* loop = llvm::BasicBlock::Create(context, "descend", positive);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(context, "done", positive);
    p.CreateCondBr(p.CreateAnd(p.CreateFCmpOGT(z0, c(kDescendTo)), p.CreateFCmpOLT(z0, c(172.0))), loop, done);
    p.SetInsertPoint(loop);
    llvm::PHINode* z = p.CreatePHI(f64, 2);
    llvm::PHINode* product = p.CreatePHI(f64, 2);
    llvm::Value* z1 = p.CreateFSub(z, c(1.0));
    llvm::Value* product1 = p.CreateFMul(product, z1);
    z->addIncoming(z0, entry);
    z->addIncoming(z1, loop);
    product->addIncoming(c(1.0), entry);
    product->addIncoming(product1, loop);
    p.CreateCondBr(p.CreateFCmpOGT(z1, c(kDescendTo)), loop, done);
    p.SetInsertPoint(done);
    llvm::PHINode* base = p.CreatePHI(f64, 2);
    llvm::PHINode* factor = p.CreatePHI(f64, 2);
    base->addIncoming(z0, entry);
    base->addIncoming(z1, loop);
    factor->addIncoming(c(1.0), entry);
    factor->addIncoming(product1, loop);
    p.CreateRet(p.CreateFMul(p.CreateCall(library, {base}), factor));
  }
  llvm::Value* general = b.CreateCall(positive, {x});
  // For x < 0, not an integer, Γ(x) has the sign of (-1)^floor(x) (libclc gave +inf just below
  // -0).
  llvm::Value* k = b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, x);
  llvm::Value* even = b.CreateFCmpOEQ(b.CreateFMul(b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, b.CreateFMul(k, c(0.5))), c(2.0)), k);
  llvm::Value* sign = b.CreateSelect(even, c(1.0), c(-1.0));
  llvm::Value* negative = b.CreateAnd(b.CreateFCmpOLT(x, c(0.0)), b.CreateFCmpONE(k, x));
  llvm::Value* r = b.CreateSelect(negative, b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, general, sign), general);
  // Below 0 (libclc: 103 ulp at -19.1, 400 at -127.7, ±inf below -170) by the reflection formula,
  // Γ(x) = π / (sin(πx) Γ(1 - x)); below -20 with Γ(1 - x) = Γ(1 - x - 20) (-x)(-x - 1)...(-x - 19)
  // divided out one factor at a time (the result may be subnormal, or 0 below about -184):
  // sin(πx) = ±sin(π f), f = x - round(x) exactly, |f| <= 1/2.
  llvm::Value* f = b.CreateFSub(x, b.CreateUnaryIntrinsic(llvm::Intrinsic::round, x));
  llvm::Value* sinpi = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign,
                                               b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs,
                                                                      b.CreateCall(module.getOrInsertFunction("_Z3sind", f64, f64),
                                                                                   {b.CreateFMul(f, c(M_PI))})),
                                               sign);
  llvm::Value* y = b.CreateFSub(c(1.0), x);
  llvm::Value* reflected = b.CreateFDiv(c(M_PI), b.CreateFMul(sinpi, b.CreateCall(positive, {b.CreateFSub(y, c(20.0))})));
  for (int i = 1; i <= 20; ++i) reflected = b.CreateFDiv(reflected, b.CreateFSub(y, c(i)));
  llvm::Value* near = b.CreateFDiv(c(M_PI), b.CreateFMul(sinpi, b.CreateCall(positive, {y})));
  r = b.CreateSelect(negative, b.CreateSelect(b.CreateFCmpOLT(x, c(-20.0)), reflected, near), r);
  // |x| < 2^-54: Γ(x) = 1/x - γ + O(x), and γ is below half an ulp of 1/x (libclc: 950 ulp at
  // -2^-868).
  r = b.CreateSelect(b.CreateFCmpOLT(ax, c(0x1p-54)), b.CreateFDiv(c(1.0), x), r);
  // Γ(±0) = ±inf.
  llvm::Value* zero = b.CreateFCmpOEQ(x, c(0.0));
  r = b.CreateSelect(zero, b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, c(INFINITY), x), r);
  b.CreateRet(r);
  return wrapper;
}

// The built-in library: libclc's f64 functions under OpenCL C's mangled names (sin(double) is
// _Z3sind, pow(double, double) _Z3powdd). The lowering's __ocml_<fn>_f64 declarations are renamed
// to them; __ocml_<fn>_f32 get a body that evaluates the f64 function and rounds (libclc's amdgcn
// f32 functions flush subnormals, and the f64 result rounded once is within about half an f32
// ulp); nextafter is written out (it is exact and format-specific). Then the needed functions are
// linked from the embedded bitcode.
void link_builtin(llvm::Module& module, const std::string& kernel) {
  llvm::LLVMContext& context = module.getContext();
  std::vector<llvm::Function*> declarations;
  for (llvm::Function& fn : module)
    if (fn.isDeclaration() && fn.getName().starts_with("__ocml_")) declarations.push_back(&fn);
  for (llvm::Function* fn : declarations) {
    llvm::StringRef name = fn->getName();
    name.consume_front("__ocml_");
    const bool f64 = name.consume_back("_f64");
    if (!f64 && !name.consume_back("_f32")) continue;
    if (name == "nextafter") {
      define_nextafter(*fn);
      continue;
    }
    std::string mangled = fmt::format("_Z{}{}{}", name.size(), name.str(), std::string(fn->arg_size(), 'd'));
    const bool fixed = name == "pow" || name == "tgamma";
    if (f64 && !fixed) {
      fn->setName(mangled);
      continue;
    }
    llvm::Type* f64_type = llvm::Type::getDoubleTy(context);
    std::vector<llvm::Type*> params(fn->arg_size(), f64_type);
    llvm::FunctionCallee wide =
        fixed ? llvm::FunctionCallee(define_fixed(module, name, mangled))
              : module.getOrInsertFunction(mangled, llvm::FunctionType::get(f64_type, params, false));
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", fn));
    std::vector<llvm::Value*> args;
    for (llvm::Argument& a : fn->args()) args.push_back(f64 ? static_cast<llvm::Value*>(&a) : b.CreateFPExt(&a, f64_type));
    llvm::Value* r = b.CreateCall(wide, args);
    b.CreateRet(f64 ? r : b.CreateFPTrunc(r, fn->getReturnType()));
  }
  llvm::MemoryBufferRef bytes(builtin_bytes(), "rocjit-builtin-math.bc");
  auto lib = llvm::getLazyBitcodeModule(bytes, module.getContext());
  if (!lib)
    throw CompileError(fmt::format("kernel '{}': could not read rocjit's built-in math library: {}", kernel,
                                   llvm::toString(lib.takeError())));
  (*lib)->setDataLayout(module.getDataLayout());
  (*lib)->setTargetTriple(module.getTargetTriple());
  llvm::Linker linker(module);
  if (linker.linkInModule(std::move(*lib), llvm::Linker::LinkOnlyNeeded))
    throw CompileError(fmt::format("kernel '{}': linking rocjit's built-in math library failed", kernel));
  for (llvm::Function& fn : module)
    if (fn.isDeclaration() && fn.getName().starts_with("_Z") && !fn.use_empty())
      throw CompileError(fmt::format("kernel '{}': rocjit's built-in math library has no {}", kernel, fn.getName().str()));
  internalize_library(module);
}

}  // namespace

// ocml reads its configuration from the __oclc_* constants, which ROCm ships as one small bitcode
// file per setting and per processor (oclc_isa_version_<isa>.bc...). A distribution's set covers
// the processors of its ROCm release only (Debian's ROCm 5.2 has no gfx942, gfx950, gfx11 or
// gfx12), so rocjit defines the constants itself, for any processor: only ocml.bc is needed.
void link_device_libs(llvm::Module& module, const std::string& kernel, const std::string& processor,
                      unsigned wavefront_size, int code_object_version, const std::vector<std::string>& users,
                      const std::string& device_libs) {
  const OcmlFile& ocml = ocml_file(device_libs);
  if (!ocml.bytes && !builtin_bytes().empty()) return link_builtin(module, kernel);
  if (!ocml.bytes)
    throw CompileError(fmt::format(
        "kernel '{}': {} needs the ROCm device library ocml.bc, which was not found in {} (set "
        "ROCJIT_DEVICE_LIBS or install rocm-device-libs), and this rocjit was built without its own "
        "math library (libclc-22 was not installed)",
        kernel, fmt::join(users, ", "), fmt::join(device_lib_dirs(device_libs), ", ")));
  llvm::LLVMContext& context = module.getContext();
  auto lib = llvm::getLazyBitcodeModule(ocml.bytes->getMemBufferRef(), context);
  if (!lib)
    throw CompileError(fmt::format("kernel '{}': could not read device library {}: {}", kernel, ocml.path,
                                   llvm::toString(lib.takeError())));
  (*lib)->setDataLayout(module.getDataLayout());
  (*lib)->setTargetTriple(module.getTargetTriple());
  llvm::Linker linker(module);
  if (linker.linkInModule(std::move(*lib), llvm::Linker::LinkOnlyNeeded))
    throw CompileError(fmt::format("kernel '{}': linking device library {} failed", kernel, ocml.path));

  // The control constants, in the constant address space as ROCm's files define them: IEEE
  // semantics (no finite-only, unsafe-math or denormal flushing), correctly rounded f32 sqrt.
  auto define = [&](const char* name, llvm::Constant* value) {
    llvm::GlobalVariable* g = module.getGlobalVariable(name, true);
    if (!g || !g->isDeclaration()) return;  // not read by the linked functions
    g->setInitializer(value);
    g->setConstant(true);
    g->setLinkage(llvm::GlobalValue::InternalLinkage);
  };
  llvm::Type* i8 = llvm::Type::getInt8Ty(context);
  llvm::Type* i32 = llvm::Type::getInt32Ty(context);
  define("__oclc_finite_only_opt", llvm::ConstantInt::get(i8, 0));
  define("__oclc_unsafe_math_opt", llvm::ConstantInt::get(i8, 0));
  define("__oclc_daz_opt", llvm::ConstantInt::get(i8, 0));
  define("__oclc_correctly_rounded_sqrt32", llvm::ConstantInt::get(i8, 1));
  define("__oclc_wavefrontsize64", llvm::ConstantInt::get(i8, wavefront_size == 64 ? 1 : 0));
  define("__oclc_ISA_version", llvm::ConstantInt::get(i32, isa_version(processor)));
  define("__oclc_ABI_version", llvm::ConstantInt::get(i32, code_object_version * 100));

  internalize_library(module);
}

}  // namespace rocjit::targets::amdgpu

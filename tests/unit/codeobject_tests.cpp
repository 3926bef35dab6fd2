// Code-object tests: every sample kernel compiled for every supported processor family, with
// metadata checked against the kernel and disassembly checked for barriers and LDS access.
#include <catch2/catch.hpp>

#include <string>

#include "sample_kernels.hpp"

using namespace rocjit;

namespace {

const char* const processors[] = {"gfx900", "gfx906", "gfx908", "gfx90a", "gfx942",
                                  "gfx950", "gfx1030", "gfx1100", "gfx1200"};

struct Sample {
  Kernel (*make)();
  int barriers;      // group barriers in the kernel body (each appears once in straight code)
  bool wavebarrier;  // uses wavebarrier()
};

const Sample samples_under_test[] = {
    {samples::saxpy, 0, false},     {samples::reverse, 1, false},   {samples::matmul, 2, false},
    {samples::reduce, 3, true},     {samples::transpose, 1, false}, {samples::histogram, 2, false},
    {samples::jacobi, 0, false},
};

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// Count instruction lines (tab-indented mnemonics), not comments or directives.
size_t count_instructions(const std::string& assembly, const std::string& mnemonic) {
  return count(assembly, "\t" + mnemonic + " ") + count(assembly, "\t" + mnemonic + "\n");
}

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// The explicit kernarg layout rocjit promises: per array a pointer then one i32 per dimension
// (plus i64 strides for strided arrays), scalars by value, each naturally aligned.
std::vector<std::pair<std::string, uint64_t>> expected_layout(const ir::Kernel& k) {
  std::vector<std::pair<std::string, uint64_t>> out;
  uint64_t offset = 0;
  auto place = [&](const std::string& name, uint64_t size) {
    offset = align_up(offset, size);
    out.emplace_back(name, offset);
    offset += size;
  };
  for (const auto& p : k.params) {
    if (p.kind == ir::Param::Kind::scalar) {
      place(p.name, ir::byte_size(p.type));
      continue;
    }
    place(p.name, 8);
    for (unsigned d = 0; d < k.memories[p.memory].rank; ++d) place(p.name + ".shape" + std::to_string(d), 4);
  }
  return out;
}

}  // namespace

TEST_CASE("every sample kernel compiles for every processor with metadata that matches the kernel") {
  for (const char* processor : processors) {
    for (const Sample& s : samples_under_test) {
      Kernel k = s.make();
      DYNAMIC_SECTION(k.name() << " for " << processor) {
        CompileOptions options;
        options.emit_assembly = true;
        options.emit_llvm_ir_optimized = s.wavebarrier;
        CodeObject co = compile(k, Target::amdgpu(processor), options);
        REQUIRE(co.kernels.size() == 1);
        const KernelMetadata& m = co.kernel(k.name());
        CHECK(m.symbol == k.name() + ".kd");
        CHECK(m.group_segment_fixed_size == static_cast<uint64_t>(k.ir().shared_bytes()));
        CHECK(m.private_segment_fixed_size == 0);
        CHECK(m.wavefront_size == (std::string(processor).starts_with("gfx9") ? 64u : 32u));
        CHECK(m.max_flat_workgroup_size == k.ir().max_block_size);
        CHECK(m.vgpr_count > 0);
        CHECK(m.vgpr_spill_count == 0);

        auto layout = expected_layout(k.ir());
        REQUIRE(m.args.size() >= layout.size());
        for (size_t i = 0; i < layout.size(); ++i) {
          CHECK(m.args[i].name == layout[i].first);
          CHECK(m.args[i].offset == layout[i].second);
        }
        CHECK(m.kernarg_segment_size >= layout.back().second + 4);

        bool split_barrier = std::string(processor).starts_with("gfx12");
        size_t barriers = split_barrier ? count_instructions(co.assembly, "s_barrier_wait")
                                        : count_instructions(co.assembly, "s_barrier");
        CHECK(barriers == static_cast<size_t>(s.barriers));
        // The wave barrier is a scheduling barrier with no instruction; it must survive O3.
        if (s.wavebarrier) CHECK(count(co.llvm_ir_optimized, "call void @llvm.amdgcn.wave.barrier()") == 6);
        if (k.ir().shared_bytes() > 0)
          CHECK(count(co.assembly, "\tds_") > 0);
        else
          CHECK(count(co.assembly, "\tds_") == 0);
      }
    }
  }
}

TEST_CASE("wave64 can be selected on wave32 processors") {
  CodeObject co = compile(samples::reduce(), Target::amdgpu("gfx1100", "+wavefrontsize64"));
  CHECK(co.kernel("reduce").wavefront_size == 64);
}

TEST_CASE("code object version 5 is the default and version 4 is selectable") {
  // EI_ABIVERSION (byte 8 of the ELF header): 2 = code object v4, 3 = v5.
  CodeObject v5 = compile(samples::saxpy(), Target::amdgpu("gfx90a"));
  CHECK(v5.code_object_version == 5);
  CHECK(v5.elf.at(8) == 3);
  CompileOptions options;
  options.code_object_version = 4;
  CodeObject v4 = compile(samples::saxpy(), Target::amdgpu("gfx90a"), options);
  CHECK(v4.elf.at(8) == 2);
  CHECK(v4.kernel("saxpy").args.size() >= 4);
}

TEST_CASE("LLVM IR shows the AMDGPU kernel ABI, LDS globals and the barrier sequence") {
  CompileOptions options;
  options.emit_llvm_ir = true;
  options.emit_llvm_ir_optimized = true;
  CodeObject co = compile(samples::matmul(), Target::amdgpu("gfx90a"), options);
  const std::string& ir = co.llvm_ir;
  INFO(ir);
  CHECK(ir.find("define amdgpu_kernel void @matmul(ptr addrspace(1)") != std::string::npos);
  CHECK(ir.find("@sA = internal addrspace(3) global [256 x float] poison, align 16") != std::string::npos);
  CHECK(ir.find("\"amdgpu-flat-work-group-size\"=\"1,256\"") != std::string::npos);
  CHECK(ir.find("\"uniform-work-group-size\"=\"true\"") != std::string::npos);
  CHECK(ir.find("fence syncscope(\"workgroup\") release\n  call void @llvm.amdgcn.s.barrier()\n  fence "
                "syncscope(\"workgroup\") acquire") != std::string::npos);
  CHECK(ir.find("!{i32 1, !\"amdhsa_code_object_version\", i32 500}") != std::string::npos);
  CHECK(co.llvm_ir_optimized.find("alloca") == std::string::npos);  // Var<float> promoted to a register
}

TEST_CASE("atomics lower to scoped atomicrmw on global and shared memory") {
  CompileOptions options;
  options.emit_llvm_ir = true;
  CodeObject co = compile(samples::histogram(), Target::amdgpu("gfx942"), options);
  CHECK(co.llvm_ir.find("atomicrmw add ptr addrspace(3)") != std::string::npos);
  CHECK(co.llvm_ir.find("syncscope(\"workgroup\") monotonic") != std::string::npos);
  CHECK(co.llvm_ir.find("atomicrmw add ptr addrspace(1)") != std::string::npos);
  CHECK(co.llvm_ir.find("syncscope(\"agent\") monotonic") != std::string::npos);
}

TEST_CASE("math lowers to intrinsics the backend expands, and f64 transcendentals use ocml where present") {
  using namespace rocjit::dsl;
  Kernel k = kernel("math32", [](Array<float> x) {
    Int i = global_id(0);
    Float v = x(i);
    x(i) = sqrt(v) + rsqrt(v) + exp(v) + exp2(v) + log(v) + log2(v) + sin(v) + cos(v) + tan(v) + pow(v, 2.0f) +
           fma(v, v, v) + fabs(v) + floor(v) + ceil(v) + fmin(v, 1.0f) + fmax(v, 1.0f);
  });
  for (const char* p : {"gfx90a", "gfx1100", "gfx1200", "gfx950"}) {
    CodeObject co = compile(k, Target::amdgpu(p), CompileOptions{.emit_assembly = true});
    CHECK(co.assembly.find("s_swappc") == std::string::npos);  // no calls left
  }
  Kernel k64 = kernel("math64", [](Array<double> x) {
    Int i = global_id(0);
    Double v = x(i);
    x(i) = sin(v) + exp(v) + pow(v, 3.0);
  });
  CodeObject co = compile(k64, Target::amdgpu("gfx90a"), CompileOptions{.emit_assembly = true});
  CHECK(co.assembly.find("s_swappc") == std::string::npos);
  CHECK(co.kernel("math64").vgpr_count > 0);
}

// Code-object tests: every sample kernel compiled for every supported processor family, with
// metadata checked against the kernel and disassembly checked for barriers and LDS access.
#include <catch2/catch.hpp>

#include <string>

#include "rocjit/compiler/occupancy.hpp"
#include "rocjit/compiler/parser.hpp"
#include "sample_kernels.hpp"

using namespace rocjit;
using Catch::Matchers::Contains;

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
    {samples::reduce, 4, false},     {samples::transpose, 1, false}, {samples::histogram, 2, false},
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

        // The code object's explicit arguments are exactly the kernel ABI's.
        KernelAbi abi = kernel_abi(k.ir());
        REQUIRE(m.args.size() >= abi.arguments.size());
        for (size_t i = 0; i < abi.arguments.size(); ++i) {
          CHECK(m.args[i].name == abi.arguments[i].name);
          CHECK(m.args[i].offset == abi.arguments[i].offset);
          CHECK(m.args[i].size == abi.arguments[i].size);
          CHECK(m.args[i].value_kind ==
                (abi.arguments[i].kind == AbiArgument::Kind::pointer ? "global_buffer" : "by_value"));
        }
        CHECK(m.kernarg_segment_size >= abi.size);

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
  // The IR text is read without debug info (!dbg): line tables off for this test.
  struct LineTablesOff {
    Settings saved = settings();
    LineTablesOff() { update_settings([](Settings& s) { s.line_tables = false; }); }
    ~LineTablesOff() { set_settings(saved); }
  } line_tables_off;
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

TEST_CASE("the kernel ABI places a pointer, i32 extents and i64 strides per array and scalars by value, naturally aligned") {
  ir::Kernel k = ir::parse(R"(kernel @abi(@a: array<f32, 2, C>, %1 n: i32, @s: array<f64, 2, strided>, %2 x: f64, %3 b: i1) max_block_size(64) {
})");
  KernelAbi abi = kernel_abi(k);
  using K = AbiArgument::Kind;
  struct Expected {
    K kind;
    const char* name;
    uint32_t offset, size;
    uint32_t param, dim;
  };
  std::vector<Expected> expected = {
      {K::pointer, "a", 0, 8, 0, 0},        {K::extent, "a.shape0", 8, 4, 0, 0},  {K::extent, "a.shape1", 12, 4, 0, 1},
      {K::scalar, "n", 16, 4, 1, 0},         {K::pointer, "s", 24, 8, 2, 0},       {K::extent, "s.shape0", 32, 4, 2, 0},
      {K::extent, "s.shape1", 36, 4, 2, 1},  {K::stride, "s.stride0", 40, 8, 2, 0}, {K::stride, "s.stride1", 48, 8, 2, 1},
      {K::scalar, "x", 56, 8, 3, 0},         {K::scalar, "b", 64, 1, 4, 0}};
  REQUIRE(abi.arguments.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO(expected[i].name);
    CHECK(abi.arguments[i].kind == expected[i].kind);
    CHECK(abi.arguments[i].name == expected[i].name);
    CHECK(abi.arguments[i].offset == expected[i].offset);
    CHECK(abi.arguments[i].size == expected[i].size);
    CHECK(abi.arguments[i].param == expected[i].param);
    CHECK(abi.arguments[i].dim == expected[i].dim);
  }
  CHECK(abi.size == 65);
  CHECK(abi.first_of(2) == 4);
  CHECK_THROWS_AS(abi.first_of(9), Error);
  // The AMDGPU code object lays the arguments out exactly so.
  CodeObject co = compile(k, Target::amdgpu("gfx90a"));
  const KernelMetadata& m = co.kernel("abi");
  for (size_t i = 0; i < expected.size(); ++i) {
    CHECK(m.args[i].name == expected[i].name);
    CHECK(m.args[i].offset == expected[i].offset);
    CHECK(m.args[i].size == expected[i].size);
  }
}

namespace {

KernelMetadata occupancy_input(uint32_t vgprs, uint32_t sgprs, uint32_t agprs, uint64_t lds, uint32_t group,
                               uint32_t wave) {
  KernelMetadata k;
  k.vgpr_count = vgprs;
  k.sgpr_count = sgprs;
  k.agpr_count = agprs;
  k.group_segment_fixed_size = lds;
  k.max_flat_workgroup_size = group;
  k.wavefront_size = wave;
  return k;
}

}  // namespace

TEST_CASE("amdgpu_occupancy: a kernel that cannot run gets 0 waves and the resource that forbids it") {
  struct Case {
    const char* processor;
    KernelMetadata k;
    OccupancyLimit limit;
    const char* says;
  };
  const Case cases[] = {
      // VGPRs beyond what a wave addresses: 256, or 512 (VGPRs + AGPRs) on gfx90a/gfx94x/gfx950.
      {"gfx803", occupancy_input(257, 16, 0, 0, 64, 64), OccupancyLimit::vgprs, "257 VGPRs exceed the 256"},
      {"gfx1030", occupancy_input(257, 16, 0, 0, 64, 32), OccupancyLimit::vgprs, "257 VGPRs exceed the 256"},
      {"gfx942", occupancy_input(513, 16, 0, 0, 64, 64), OccupancyLimit::vgprs, "513 VGPRs exceed the 512"},
      // AGPRs: none on processors without matrix cores, at most 256 elsewhere.
      {"gfx900", occupancy_input(32, 16, 4, 0, 64, 64), OccupancyLimit::agprs, "gfx900 has no AGPRs"},
      {"gfx1100", occupancy_input(32, 16, 8, 0, 64, 32), OccupancyLimit::agprs, "gfx1100 has no AGPRs"},
      {"gfx908", occupancy_input(32, 16, 257, 0, 64, 64), OccupancyLimit::agprs, "257 AGPRs exceed the 256"},
      // SGPRs beyond the addressable ones plus VCC (and FLAT_SCRATCH, XNACK_MASK on gfx8-9).
      {"gfx90a", occupancy_input(32, 109, 0, 0, 64, 64), OccupancyLimit::sgprs, "109 SGPRs exceed the 108"},
      {"gfx1100", occupancy_input(32, 109, 0, 0, 64, 32), OccupancyLimit::sgprs, "109 SGPRs exceed the 108"},
      // LDS beyond a work-group's: 64 KiB, 160 KiB on gfx950.
      {"gfx942", occupancy_input(32, 16, 0, 65537, 64, 64), OccupancyLimit::lds, "65537 bytes of LDS exceed the 65536"},
      {"gfx950", occupancy_input(32, 16, 0, 163841, 64, 64), OccupancyLimit::lds, "163841 bytes of LDS exceed the 163840"},
      // Work-groups beyond 1024 work-items.
      {"gfx942", occupancy_input(32, 16, 0, 0, 2048, 64), OccupancyLimit::workgroup_size, "2048 work-items exceeds the 1024"},
      {"gfx1100", occupancy_input(32, 16, 0, 0, 1025, 32), OccupancyLimit::workgroup_size, "1025 work-items"},
      // Wave sizes the processor does not have: 32 on gfx9, anything but 32 and 64.
      {"gfx90a", occupancy_input(32, 16, 0, 0, 64, 32), OccupancyLimit::wave_size, "gfx90a has wavefronts of 64, not 32"},
      {"gfx1100", occupancy_input(32, 16, 0, 0, 64, 16), OccupancyLimit::wave_size, "wavefronts of 32 or 64, not 16"},
  };
  for (const Case& c : cases) {
    INFO(c.processor << ": " << c.says);
    Occupancy o = amdgpu_occupancy(c.k, c.processor);
    CHECK(o.waves_per_simd == 0);
    CHECK(o.limited_by == c.limit);
    CHECK_THAT(o.reason, Contains(c.says) && Contains(occupancy_limit_name(c.limit)));
  }
  CHECK_THROWS_WITH(amdgpu_occupancy(occupancy_input(32, 16, 0, 0, 64, 64), "sm_90"),
                    Contains("'sm_90' is not an AMDGPU processor name"));
}

TEST_CASE("amdgpu_occupancy: the largest possible kernels still run, limited by what is scarcest") {
  // At the limits exactly: one wave (VGPRs), or the bound that is smallest.
  Occupancy vg = amdgpu_occupancy(occupancy_input(256, 16, 0, 0, 64, 64), "gfx803");
  CHECK(vg.waves_per_simd == 1);
  CHECK(vg.limited_by == OccupancyLimit::vgprs);
  Occupancy unified = amdgpu_occupancy(occupancy_input(512, 16, 0, 0, 64, 64), "gfx942");
  CHECK(unified.waves_per_simd == 1);
  Occupancy lds = amdgpu_occupancy(occupancy_input(16, 16, 0, 65536, 64, 64), "gfx90a");
  CHECK(lds.waves_per_simd == 1);
  CHECK(lds.limited_by == OccupancyLimit::lds);
  Occupancy sg = amdgpu_occupancy(occupancy_input(16, 108, 0, 0, 64, 64), "gfx90a");
  CHECK(sg.waves_per_simd == 7);
  CHECK(sg.limited_by == OccupancyLimit::sgprs);
  Occupancy big = amdgpu_occupancy(occupancy_input(16, 16, 0, 0, 1024, 64), "gfx942");
  CHECK(big.waves_per_simd == 8);  // two groups of 16 waves fill the CU's 32 slots
  Occupancy small = amdgpu_occupancy(occupancy_input(8, 16, 0, 0, 64, 32), "gfx1100");
  CHECK(small.waves_per_simd == 16);
  CHECK(small.limited_by == OccupancyLimit::hardware);
  CHECK_THAT(small.reason, Contains("hardware: 16 waves per SIMD"));
}

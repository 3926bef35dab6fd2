// Seeing every stage: Settings::dump / dump_dir (ROCJIT_DUMP / ROCJIT_DUMP_DIR) files written when
// kernels are compiled, the inspection API on a kernel (llvm_ir, assembly, metadata), and Target
// spellings.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "host_args.hpp"
#include "sample_kernels.hpp"
#include "scoped_settings.hpp"

using namespace rocjit;
using Catch::Matchers::Contains;
using rocjit::testing::LogCapture;
using rocjit::testing::ScopedSettings;
namespace fs = std::filesystem;

namespace {

fs::path fresh_directory() {
  char pattern[] = "/tmp/rocjit-dump-test-XXXXXX";
  return mkdtemp(pattern);
}

// A fresh dump directory for one test, removed afterwards; Settings::dump is what ROCJIT_DUMP =
// `stages` gives, and the previous settings come back afterwards.
struct DumpDir {
  fs::path root = fresh_directory(), dir = root / "dumps";  // `dir` does not exist yet: dumping creates it
  ScopedSettings dumping;
  explicit DumpDir(const char* stages)
      : dumping([&](Settings& s) {
          s.dump = settings_from_variables({{"ROCJIT_DUMP", stages}}).dump;
          s.dump_dir = dir.string();
        }) {}
  ~DumpDir() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  std::set<std::string> files() const {
    std::set<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) out.insert(e.path().filename().string());
    return out;
  }
  std::string read(const std::string& name) const {
    std::ifstream in(dir / name);
    REQUIRE(in);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
};

const std::set<std::string> all_stages(const std::string& kernel, const std::string& target) {
  std::set<std::string> out;
  for (const char* stage : {"ir", "llvm", "llvm-opt", "asm", "meta"}) out.insert(kernel + "." + target + "." + stage);
  return out;
}

}  // namespace

TEST_CASE("ROCJIT_DUMP=ir,llvm,llvm-opt,asm,meta writes every stage of an AMDGPU compile") {
  DumpDir d("ir,llvm,llvm-opt,asm,meta");
  const Kernel k = samples::reverse();
  const CodeObject co = compile(k.ir(), Target::amdgpu("gfx90a"));
  REQUIRE(d.files() == all_stages("reverse", "gfx90a"));
  CHECK(d.read("reverse.gfx90a.ir") == k.print());
  CHECK_THAT(d.read("reverse.gfx90a.llvm"), Contains("define amdgpu_kernel void @reverse") &&
                                                 Contains("addrspace(3) global"));
  CHECK_THAT(d.read("reverse.gfx90a.llvm-opt"), Contains("llvm.amdgcn.s.barrier"));
  CHECK_THAT(d.read("reverse.gfx90a.asm"), Contains("s_barrier") && Contains("s_endpgm"));
  CHECK(d.read("reverse.gfx90a.meta") == metadata_text(co));
  CHECK_THAT(d.read("reverse.gfx90a.meta"), Contains("LDS bytes:           1024") && Contains("occupancy:"));
  // The caller did not ask for the texts, so the code object does not carry them.
  CHECK(co.llvm_ir.empty());
  CHECK(co.llvm_ir_optimized.empty());
  CHECK(co.assembly.empty());
  CHECK_FALSE(co.elf.empty());
}

TEST_CASE("ROCJIT_DUMP dumps a kernel even when the kernel cache already holds it") {
  const Kernel k = samples::saxpy();
  const Target gfx1030 = Target::amdgpu("gfx1030");
  compile(k.ir(), gfx1030);  // fills the cache
  DumpDir d("asm");
  CodeObject co = compile(k.ir(), gfx1030);
  REQUIRE(d.files() == std::set<std::string>{"saxpy.gfx1030.asm"});
  CHECK_THAT(d.read("saxpy.gfx1030.asm"), Contains(".amdgcn_target \"amdgcn-amd-amdhsa--gfx1030\""));
  CHECK(last_compile_record("saxpy", gfx1030.str()).cache == "bypassed");
}

TEST_CASE("ROCJIT_DUMP: a subset of stages, 'all', spaces and unknown names") {
  const Kernel k = samples::saxpy();
  SECTION("a subset") {
    DumpDir d("meta, ir");
    compile(k.ir(), Target::amdgpu("gfx900"));
    CHECK(d.files() == std::set<std::string>{"saxpy.gfx900.ir", "saxpy.gfx900.meta"});
  }
  SECTION("all") {
    DumpDir d("all");
    compile(k.ir(), Target::amdgpu("gfx900"));
    CHECK(d.files() == all_stages("saxpy", "gfx900"));
  }
  SECTION("an unknown stage is ignored with a warning; the others are written") {
    LogCapture log;
    DumpDir d("llvm,bogus");
    CHECK(log.has(LogLevel::warning, "ROCJIT_DUMP: unknown stage 'bogus' ignored"));
    compile(k.ir(), Target::amdgpu("gfx900"));
    CHECK(d.files() == std::set<std::string>{"saxpy.gfx900.llvm"});
  }
  SECTION("empty: nothing") {
    DumpDir d("");
    compile(k.ir(), Target::amdgpu("gfx900"));
    CHECK(d.files().empty());
  }
}

TEST_CASE("ROCJIT_DUMP names files after the processor and its features") {
  DumpDir d("meta");
  compile(samples::saxpy().ir(), Target::amdgpu("gfx1100", "+wavefrontsize64"));
  REQUIRE(d.files() == std::set<std::string>{"saxpy.gfx1100+wavefrontsize64.meta"});
  CHECK_THAT(d.read("saxpy.gfx1100+wavefrontsize64.meta"), Contains("wavefront size:      64"));
}

TEST_CASE("ROCJIT_DUMP writes the host backend's stages, and the kernel still runs") {
  DumpDir d("all");
  const Kernel k = samples::reverse();
  HostKernel hk = compile_host(k.ir());
  REQUIRE(d.files() == all_stages("reverse", "host"));
  CHECK(d.read("reverse.host.ir") == k.print());
  CHECK_THAT(d.read("reverse.host.llvm"), Contains("define"));
  CHECK_THAT(d.read("reverse.host.meta"), Contains("barrier-free regions: 2") && Contains("shared bytes:         1024"));
  CHECK_FALSE(d.read("reverse.host.asm").empty());
  CHECK(hk.llvm_ir().empty());  // not requested by the caller

  std::vector<float> in(512), out(512);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i);
  run_host(hk, {2}, {256}, testing::HostArgs().array(in).array(out).data());
  CHECK(out[0] == 255.0f);
  CHECK(out[256] == 511.0f);
}

TEST_CASE("ROCJIT_DUMP without ROCJIT_DUMP_DIR writes to the current directory") {
  DumpDir d("ir");
  ScopedSettings here([](Settings& s) { s.dump_dir = settings_from_variables({}).dump_dir; });
  REQUIRE(settings().dump_dir == ".");
  const fs::path before = fs::current_path();
  fs::create_directories(d.dir);
  fs::current_path(d.dir);
  compile_host(samples::saxpy().ir());
  fs::current_path(before);
  CHECK(d.files() == std::set<std::string>{"saxpy.host.ir"});
}

TEST_CASE("ROCJIT_DUMP into a directory that cannot be created warns through the log handler, and the compile succeeds") {
  DumpDir d("ir,asm");
  const fs::path file = d.root / "a-file";
  std::ofstream(file) << "not a directory";
  ScopedSettings below_a_file([&](Settings& s) { s.dump_dir = (file / "dumps").string(); });
  LogCapture log;
  CodeObject co;
  REQUIRE_NOTHROW(co = compile(samples::saxpy().ir(), Target::amdgpu("gfx90a")));
  CHECK_FALSE(co.elf.empty());
  REQUIRE_NOTHROW(compile_host(samples::saxpy().ir()));
  // Once per process for each distinct problem, however many compiles meet it.
  CHECK(log.count(LogLevel::warning, "ROCJIT_DUMP: cannot create the dump directory '" + (file / "dumps").string()) == 1);
  CHECK(log.size() == 1);
}

TEST_CASE("a kernel name that could not be a file name, symbol or .rjir name is a CompileError") {
  DumpDir d("ir");
  auto body = [](dsl::Array<float, 1> x) { x(dsl::global_id(0)) = 1.0f; };
  for (const char* name : {"../escape/saxpy", "two words", ""}) {
    CAPTURE(name);
    CHECK_THROWS_AS(rocjit::kernel(name, body), CompileError);
    CHECK_THROWS_WITH(rocjit::kernel(name, body), Contains("names may use letters, digits"));
  }
  CHECK_THROWS_WITH(rocjit::kernel("k", body, {.param_names = {"x y"}}), Contains("array name 'x y' is not valid"));
  CHECK(d.files().empty());
  CHECK_FALSE(fs::exists(d.root / "escape"));
}

TEST_CASE("Kernel::llvm_ir, assembly and metadata show what the JIT makes for a target") {
  const Kernel k = samples::reverse();
  SECTION("AMDGPU") {
    const std::string lowered = k.llvm_ir("gfx90a", Kernel::LlvmStage::lowered);
    const std::string optimized = k.llvm_ir(Target::amdgpu("gfx90a"));
    CHECK_THAT(lowered, Contains("define amdgpu_kernel void @reverse"));
    CHECK_THAT(optimized, Contains("define amdgpu_kernel void @reverse"));
    CHECK(lowered != optimized);
    CHECK_THAT(k.assembly("amdgpu:gfx1100"), Contains("s_endpgm") && Contains("gfx1100"));
    const std::string meta = k.metadata("gfx942");
    CHECK_THAT(meta, Contains("kernel reverse") && Contains("target:              amdgpu:gfx942") &&
                         Contains("LDS bytes:           1024") && Contains("in.shape0"));
    CHECK(meta == metadata_text(compile(k.ir(), Target::amdgpu("gfx942"))));
  }
  SECTION("host") {
    CHECK_THAT(k.llvm_ir("host", Kernel::LlvmStage::lowered), Contains("define"));
    CHECK_THAT(k.llvm_ir(Target::host()), Contains("define"));
    CHECK_FALSE(k.assembly("host").empty());
    CHECK_THAT(k.metadata("host"), Contains("barrier-free regions: 2") && Contains("work-item storage:"));
  }
  SECTION("the IR itself") {
    std::ostringstream s;
    s << k.ir();
    CHECK(s.str() == k.print());
  }
}

TEST_CASE("Kernel inspection with a bad target is a CompileError that says what a target is") {
  const Kernel k = samples::saxpy();
  CHECK_THROWS_AS(k.assembly("cuda"), CompileError);
  CHECK_THROWS_WITH(k.assembly("cuda"), Contains("'cuda' is not a target"));
  CHECK_THROWS_WITH(k.llvm_ir("gfx90a:xnack"), Contains("amdgpu:<processor>[:<features>]"));
  CHECK_THROWS_AS(k.metadata("gfx999"), CompileError);
  CHECK_THROWS_WITH(k.metadata("gfx999"), Contains("gfx999"));
  CHECK_THROWS_AS(k.metadata(""), CompileError);
}

TEST_CASE("Target spellings parse back to the same target") {
  for (const Target& t : {Target::amdgpu("gfx90a"), Target::amdgpu("gfx1100", "+wavefrontsize64"), Target::host(),
                          Target::amdgpu("gfx90a", "+xnack,-sramecc")}) {
    CHECK(Target::parse(t.str()) == t);
  }
  CHECK(Target("gfx906") == Target::amdgpu("gfx906"));
  CHECK(Target(std::string("host")) == Target::host());
  CHECK(Target::amdgpu("gfx90a", "+xnack,-sramecc").file_name() == "gfx90a+xnack-sramecc");
}

TEST_CASE("a host kernel compiled for its texts only cannot run, and says so") {
  HostCompileOptions o;
  o.jit = false;
  o.emit_assembly = true;
  HostKernel hk = compile_host(samples::saxpy().ir(), o);
  CHECK_FALSE(hk.assembly().empty());
  std::vector<float> x(4), y(4);
  testing::HostArgs args;
  args.scalar(1.0f).array(x).array(y);
  CHECK_THROWS_AS(run_host(hk, {1}, {4}, args.data()), LaunchError);
  CHECK_THROWS_WITH(run_host(hk, {1}, {4}, args.data()), Contains("jit = false"));
}

TEST_CASE("an empty Kernel is an error from every accessor and from a launch, never a crash") {
  Kernel empty;
  CHECK_FALSE(empty);
  CHECK_THROWS_AS(empty.name(), Error);
  CHECK_THROWS_WITH(empty.ir(), Contains("empty (default-constructed)"));
  CHECK_THROWS_AS(empty.print(), Error);
  CHECK_THROWS_AS(empty.signature(), Error);
  CHECK_THROWS_AS(empty.metadata("gfx90a"), Error);
  CHECK_THROWS_AS(empty.assembly("host"), Error);
  CHECK_THROWS_AS(compile(empty, Target::amdgpu("gfx90a")), Error);
  Stream s = default_stream(new_cpu_device());
  CHECK_THROWS_AS((empty[{{1}, {1}, s}]()), Error);
}

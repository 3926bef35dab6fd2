// rocjit-opt: runs named IR passes on .rjir kernels and prints the result (mlir-opt and LLVM's opt
// are the models), so each pass can be tested alone: `rocjit-opt --passes=legalize-types k.rjir`.
// The input is parsed and verified (ir::verify) only; every other check is a pass of its own
// (`--passes=uniformity`). After each pass that rewrote a kernel, ir::verify runs again.
// Exit status: 0 on success, 1 for a bad input file or a pass's error, 2 for a bad command line.
// The command line is LLVM's (cl::opt): --help, --version, @response-files.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <rocjit/compiler/error.hpp>
#include <rocjit/compiler/parser.hpp>
#include <rocjit/compiler/passes.hpp>
#include <rocjit/compiler/printer.hpp>
#include <rocjit/compiler/target.hpp>
#include <rocjit/compiler/verifier.hpp>

#include <llvm/Support/CommandLine.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

namespace {

using namespace rocjit;
namespace cl = llvm::cl;

constexpr const char* tool = "rocjit-opt";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

cl::OptionCategory category("rocjit-opt options");
cl::list<std::string> passes_option("passes", cl::CommaSeparated, cl::value_desc("pass,pass,..."), cl::cat(category),
                                    cl::desc("The passes to run, in order (see --list-passes)"));
cl::opt<std::string> target_option("target", cl::value_desc("target"), cl::init("gfx90a"), cl::cat(category),
                                   cl::desc("The target the passes prepare for: host, gfx90a (default), "
                                            "amdgpu:gfx1100:+wavefrontsize64, ..."));
cl::opt<bool> locations_option("locations", cl::cat(category),
                               cl::desc("Print loc(...) after every op (default: without)"));
cl::opt<bool> list_passes_option("list-passes", cl::cat(category), cl::desc("List the passes, then exit"));
cl::opt<std::string> input_option(cl::Positional, cl::desc("INPUT.rjir|-"), cl::init("-"), cl::cat(category));

int run() {
  const Target target = [] {
    try {
      Target t = Target::parse(target_option);
      const std::vector<std::string> known = amdgpu_processors();
      if (t.kind == Target::Kind::amdgpu && std::find(known.begin(), known.end(), t.processor) == known.end())
        throw UsageError(fmt::format("unknown AMDGPU processor '{}'; rocjit-dump --list-targets lists them", t.processor));
      return t;
    } catch (const Error& e) {
      throw UsageError(e.what());
    }
  }();
  std::vector<const passes::PassInfo*> pipeline;
  for (const std::string& name : passes_option) {
    const passes::PassInfo* p = passes::find_pass(name);
    if (!p) throw UsageError(fmt::format("unknown pass '{}'; see --list-passes", name));
    pipeline.push_back(p);
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> text = llvm::MemoryBuffer::getFileOrSTDIN(input_option);
  if (!text) throw std::runtime_error(fmt::format("cannot open '{}': {}", input_option.getValue(), text.getError().message()));
  const std::string source = input_option == "-" ? "<stdin>" : input_option.getValue();
  std::vector<ir::Kernel> kernels = ir::parse_all((*text)->getBuffer().str(), source, ir::ParseCheck::verify);
  std::string out;
  for (ir::Kernel& kernel : kernels) {
    for (const passes::PassInfo* p : pipeline)
      if (std::unique_ptr<ir::Kernel> rewritten = passes::run_pass(*p, kernel, target)) {
        try {
          ir::verify(*rewritten);
        } catch (const CompileError& e) {
          throw CompileError(fmt::format("after pass '{}': {}", p->name, e.what()));
        }
        kernel = std::move(*rewritten);
      }
    if (!out.empty()) out += "\n";
    out += ir::print(kernel, ir::PrintOptions{.locations = locations_option});
  }
  std::cout << out;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  cl::HideUnrelatedOptions(category);
  cl::SetVersionPrinter([](llvm::raw_ostream& out) { out << tool << " (rocjit " << ROCJIT_VERSION << ")\n"; });
  if (!cl::ParseCommandLineOptions(argc, argv, "rocjit-opt - run rocjit IR passes on .rjir kernels\n")) return 2;
  if (list_passes_option) {
    for (const passes::PassInfo& p : passes::all_passes()) std::cout << fmt::format("  {:<16} {}\n", p.name, p.description);
    return 0;
  }
  try {
    return run();
  } catch (const UsageError& e) {
    std::cerr << tool << ": error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {  // rocjit::Error from parsing or a pass, or the input
    std::cerr << tool << ": error: " << e.what() << "\n";
    return 1;
  }
}

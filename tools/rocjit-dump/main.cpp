// rocjit-dump: shows one stage of compiling a .rjir kernel: its IR, LLVM IR before or after
// optimisation, AMDGPU assembly, the object or linked code object, or the code object's metadata.
// Exit status: 0 on success, 1 for a bad input file or kernel, 2 for a bad command line.
// The command line is LLVM's (cl::opt): --help, --version, @response-files.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <rocjit/compiler/code_object.hpp>
#include <rocjit/compiler/compile.hpp>
#include <rocjit/compiler/error.hpp>
#include <rocjit/compiler/host.hpp>
#include <rocjit/compiler/parser.hpp>
#include <rocjit/compiler/printer.hpp>
#include <rocjit/settings.hpp>
#include <rocjit/workarounds.hpp>

#include <llvm/ADT/STLExtras.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/CodeGen/CommandFlags.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/ToolOutputFile.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Host.h>

namespace {

using namespace rocjit;

constexpr const char* tool = "rocjit-dump";

// A mistake on the command line (exit 2) or in the input (exit 1).
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class Emit { ir, llvm, llvm_opt, assembly, object, hsaco, meta };

struct Options {
  Emit emit = Emit::ir;
  std::string target = "amdgpu";
  std::string mcpu = "gfx90a";
  std::string mattr;
  std::string kernel;  // only this kernel of the input
  std::string output;  // empty: standard output
  std::optional<std::string> input;
  int code_object_version = 5;
  int opt_level = 3;
  bool list_targets = false;
  bool list_workarounds = false;
  bool help = false;
};

// The command line, on LLVM's command-line library: --help, --version and @response-files come
// with it. rocjit-dump's options live in their own categories; LLVM's own options (registered by
// libLLVM in the same process) are hidden from --help and refused when given (they belong in
// ROCJIT_LLVM_ARGS). Values are checked after parsing, so the messages name what is allowed.
// --mcpu and --mattr are LLVM's codegen options (lld registers them in every process that links,
// and an option name is registered once), moved into rocjit-dump's category.
namespace cl = llvm::cl;

// --help lists categories alphabetically and options by name within one: these names keep what
// to write first, then what for, then the code object version and the optimisation level.
cl::OptionCategory output_category("Output options");
cl::OptionCategory target_category("Target options");
cl::OptionCategory codegen_category("Version and optimisation options");
const cl::OptionCategory* const categories[] = {&output_category, &target_category, &codegen_category};

cl::opt<std::string> emit_option("emit", cl::value_desc("kind"), cl::init("ir"), cl::cat(output_category),
                                 cl::desc("What to write (default: ir):\n"
                                          "  ir        the parsed kernels, printed back as .rjir\n"
                                          "  llvm      LLVM IR as lowered, before optimisation\n"
                                          "  llvm-opt  LLVM IR after the -O pipeline\n"
                                          "  asm       AMDGPU assembly (host: this CPU's assembly)\n"
                                          "  obj       the relocatable ELF object, before linking (amdgpu only)\n"
                                          "  hsaco     the linked code object, loadable by HIP/HSA (amdgpu only)\n"
                                          "  meta      registers, LDS, scratch, kernel arguments, occupancy\n"
                                          "            (host: regions, per-work-item storage, arguments)"));
cl::opt<std::string> target_option("target", cl::value_desc("name"), cl::init("amdgpu"), cl::cat(target_category),
                                   cl::desc("amdgpu (default) or host; see --list-targets"));
cl::opt<int> code_object_version_option("code-object-version", cl::value_desc("4|5"), cl::init(5), cl::cat(codegen_category),
                                        cl::desc("Code object version (default: 5; 4 for ROCm 5.x runtimes)"));
cl::opt<std::string> opt_level_option("O", cl::Prefix, cl::value_desc("0|1|2|3"), cl::init("3"), cl::cat(codegen_category),
                                      cl::desc("Optimisation level: -O0, -O1, -O2, -O3 (default: -O3)"));
cl::opt<std::string> kernel_option("kernel", cl::value_desc("name"), cl::cat(output_category),
                                   cl::desc("Only this kernel of the input"));
cl::opt<std::string> output_option("o", cl::Prefix, cl::value_desc("file"), cl::cat(output_category),
                                   cl::desc("Write to <file> instead of standard output"));
cl::opt<bool> list_targets_option("list-targets", cl::cat(output_category),
                                  cl::desc("List the targets and AMDGPU processors, then exit"));
cl::opt<bool> list_workarounds_option("workarounds", cl::cat(output_category),
                                      cl::desc("List rocjit's workarounds for LLVM bugs (ROCJIT_DISABLE_WORKAROUNDS "
                                               "names), whether each is in force, then exit"));
cl::opt<bool> short_help_option("h", cl::cat(output_category), cl::desc("Show this help, then exit (same as --help)"));
cl::list<std::string> inputs_option(cl::Positional, cl::desc("INPUT.rjir|-"), cl::cat(output_category));

Emit parse_emit(const std::string& v) {
  if (v == "ir") return Emit::ir;
  if (v == "llvm") return Emit::llvm;
  if (v == "llvm-opt") return Emit::llvm_opt;
  if (v == "asm") return Emit::assembly;
  if (v == "obj") return Emit::object;
  if (v == "hsaco") return Emit::hsaco;
  if (v == "meta") return Emit::meta;
  throw UsageError(fmt::format("unknown emit kind '{}' for --emit; expected ir, llvm, llvm-opt, asm, obj, hsaco or meta", v));
}

// LLVM says "rocjit-dump: Unknown command line argument '-x'.  Try: 'rocjit-dump --help'" and
// "rocjit-dump: for the --emit option: requires a value!": rocjit-dump's own wording, one line each.
std::string reword_parse_errors(const std::string& errors) {
  std::string message;
  llvm::SmallVector<llvm::StringRef, 4> lines;
  llvm::StringRef(errors).split(lines, '\n', -1, false);
  for (llvm::StringRef line : lines) {
    line.consume_front(tool);
    line.consume_front(": ");
    line = line.take_front(line.find("  Try: ")).trim();
    if (line.empty()) continue;
    if (!message.empty()) message += "\n" + std::string(tool) + ": ";
    if (line.consume_front("Unknown command line argument '"))
      message += fmt::format("unknown option '{}'; see --help", line.rtrim(".").rtrim("'").str());
    else if (line.consume_front("Did you mean '"))
      message += fmt::format("note: did you mean '{}'?", line.rtrim("?").rtrim("'").str());
    else
      message += line.str();
  }
  return message.empty() ? std::string("bad command line; see --help") : message;
}

void print_version(llvm::raw_ostream& out) {
  out << tool << " (rocjit " << ROCJIT_VERSION << ")\n"
      << "  LLVM version " << LLVM_VERSION_STRING << "\n"
      << "  targets: amdgpu (amdgcn-amd-amdhsa), host (" << llvm::sys::getProcessTriple() << ", "
      << llvm::sys::getHostCPUName() << ")\n"
      << "  AMDGPU processors:";
  for (const std::string& p : amdgpu_processors()) out << " " << p;
  out << "\n";
}

// LLVM's --mcpu and --mattr (llvm::codegen), described as rocjit-dump's.
void adopt_codegen_options() {
  static llvm::codegen::RegisterCodeGenFlags codegen_flags;
  auto& registered = cl::getRegisteredOptions();
  auto adopt = [&](const char* name, const char* value, const char* description) {
    cl::Option* option = registered.lookup(name);
    if (!option) return;
    option->Categories.assign(1, &target_category);
    option->setValueStr(value);
    option->setDescription(description);
  };
  adopt("mcpu", "processor", "AMDGPU processor (default: gfx90a)");
  adopt("mattr", "+f,-g", "Target features: wavefrontsize64, wavefrontsize32, xnack, sramecc, cumode");
}

// (Sanitizer builds compile this file with -fno-sanitize=vptr: see CMakeLists.txt.)
Options parse_command_line(int argc, char** argv) {
  adopt_codegen_options();
  cl::HideUnrelatedOptions(categories);
  cl::SetVersionPrinter(print_version);
  std::string errors;
  llvm::raw_string_ostream error_stream(errors);
  // Expands @response-files (GNU quoting) before parsing.
  if (!cl::ParseCommandLineOptions(argc, argv,
                                   "rocjit-dump - show any stage of compiling rocjit IR (.rjir) for a GPU or the CPU\n",
                                   &error_stream))
    throw UsageError(reword_parse_errors(errors));
  // LLVM's own options parse too (one registry per process): refuse them, as before.
  for (const auto& [name, option] : cl::getRegisteredOptions()) {
    if (option->getNumOccurrences() == 0) continue;
    if (llvm::any_of(option->Categories, [](const cl::OptionCategory* c) { return llvm::is_contained(categories, c); }))
      continue;
    if (name == "help" || name == "version") continue;
    throw UsageError(fmt::format("unknown option '-{}{}'; see --help (LLVM's own options go in ROCJIT_LLVM_ARGS)",
                                 name.size() > 1 ? "-" : "", name.str()));
  }
  Options o;
  o.help = short_help_option;
  o.list_targets = list_targets_option;
  o.list_workarounds = list_workarounds_option;
  if (o.help || o.list_targets || o.list_workarounds) return o;
  o.emit = parse_emit(emit_option);
  o.target = target_option;
  if (!llvm::codegen::getMCPU().empty()) o.mcpu = llvm::codegen::getMCPU();
  o.mattr = llvm::join(llvm::codegen::getMAttrs(), ",");
  o.kernel = kernel_option;
  o.output = output_option;
  o.code_object_version = code_object_version_option;
  const std::string& level = opt_level_option;
  if (level.size() != 1 || level[0] < '0' || level[0] > '3')
    throw UsageError(fmt::format("unknown option '-O{}'; see --help", level));
  o.opt_level = level[0] - '0';
  if (inputs_option.size() > 1)
    throw UsageError(fmt::format("more than one input file: '{}' and '{}'", inputs_option[0], inputs_option[1]));
  if (!inputs_option.empty()) o.input = inputs_option[0];
  return o;
}

void check_options(const Options& o) {
  if (o.target != "amdgpu" && o.target != "host")
    throw UsageError(fmt::format("unknown target '{}'; see --list-targets", o.target));
  if (o.target == "host" && (o.emit == Emit::object || o.emit == Emit::hsaco))
    throw UsageError("--emit=obj and --emit=hsaco make AMDGPU code objects; the host target JIT-compiles in "
                     "memory (use --emit=llvm, llvm-opt, asm or meta)");
  const auto processors = amdgpu_processors();
  if (std::find(processors.begin(), processors.end(), o.mcpu) == processors.end())
    throw UsageError(fmt::format("unknown AMDGPU processor '{}' for --mcpu; see --list-targets for the supported "
                                 "processors",
                                 o.mcpu));
  if (o.code_object_version != 4 && o.code_object_version != 5)
    throw UsageError(fmt::format("code object version {} is not supported; use 4 or 5", o.code_object_version));
  if (!o.input) throw UsageError("no input file; give INPUT.rjir, or - for standard input");
}

void list_targets(std::ostream& out) {
  out << "Available targets:\n"
      << "  amdgpu - AMD GPUs, amdgcn-amd-amdhsa (default)\n"
      << "  host   - this machine's CPU, as the CPU backend JIT-compiles kernels (barrier fission)\n\n"
      << "AMDGPU processors (--mcpu):\n";
  const auto processors = amdgpu_processors();
  for (size_t i = 0; i < processors.size(); ++i) out << (i % 8 == 0 ? "  " : " ") << processors[i] << (i % 8 == 7 ? "\n" : "");
  if (processors.size() % 8) out << "\n";
}

// The workaround table (rocjit/workarounds.def), and which entries compiles with the settings in
// force apply.
void list_workarounds(std::ostream& out) {
  const rocjit::Settings settings = rocjit::settings();
  out << "rocjit's workarounds for LLVM bugs (this is LLVM " << rocjit::llvm_major_version()
      << "; ROCJIT_DISABLE_WORKAROUNDS=name,... turns them off; tests/smith/known-external.md):\n";
  for (const rocjit::WorkaroundInfo& e : rocjit::workaround_table()) {
    const char* state = !rocjit::workaround_applies(e.id)            ? "not for this LLVM"
                        : rocjit::workaround_enabled(e.id, settings) ? "on"
                                                                     : "disabled";
    out << fmt::format("\n{} [{}]\n  {}\n  LLVM component: {}\n  LLVM versions: {}{}\n  reproducer: "
                       "tests/smith/known-external/{}\n  regression checks (rocjit-smith --regressions): {}\n",
                       e.name, state, e.what, e.component, e.first_llvm,
                       e.last_llvm == 0 ? std::string(" and later (no fixed release known)") : fmt::format(" to {}", e.last_llvm),
                       e.reproducer, e.regression);
  }
}

std::string read_input(const std::string& path) {
  std::error_code ec;
  if (path != "-" && std::filesystem::is_directory(path, ec))
    throw InputError(fmt::format("'{}' is a directory, not a .rjir file", path));
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> text = llvm::MemoryBuffer::getFileOrSTDIN(path);
  if (!text) throw InputError(fmt::format("cannot open '{}': {}", path, text.getError().message()));
  return (*text)->getBuffer().str();
}

// Standard output, or a file that exists only once everything was written (llvm::ToolOutputFile
// removes a partly written one).
void write_output(const Options& o, const std::string& bytes, bool binary) {
  if (o.output.empty() || o.output == "-") {
    if (binary && isatty(STDOUT_FILENO))
      throw UsageError("refusing to write a binary object to a terminal; use -o FILE");
    std::cout.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    std::cout.flush();
    return;
  }
  std::error_code ec;
  llvm::ToolOutputFile out(o.output, ec, binary ? llvm::sys::fs::OF_None : llvm::sys::fs::OF_Text);
  if (ec) throw InputError(fmt::format("cannot write '{}': {}", o.output, ec.message()));
  out.os() << bytes;
  out.os().close();
  if (out.os().has_error()) {
    ec = out.os().error();
    out.os().clear_error();
    throw InputError(fmt::format("cannot write '{}': {}", o.output, ec.message()));
  }
  out.keep();
}

int run(const Options& o) {
  const std::string source = *o.input == "-" ? "<stdin>" : *o.input;
  std::vector<ir::Kernel> kernels = ir::parse_all(read_input(*o.input), source);
  if (!o.kernel.empty()) {
    std::erase_if(kernels, [&](const ir::Kernel& k) { return k.name != o.kernel; });
    if (kernels.empty()) throw InputError(fmt::format("{} holds no kernel named '{}'", source, o.kernel));
  }
  const bool binary = o.emit == Emit::object || o.emit == Emit::hsaco;
  if (binary && kernels.size() > 1)
    throw InputError(fmt::format("{} holds {} kernels and a binary output holds one; choose it with --kernel=NAME",
                                 source, kernels.size()));
  std::string out;
  for (const ir::Kernel& k : kernels) {
    if (!out.empty()) out += "\n";
    if (o.emit == Emit::ir) {
      out += ir::print(k);
      continue;
    }
    if (o.target == "host") {
      HostCompileOptions options;
      options.opt_level = o.opt_level;
      options.emit_llvm_ir = o.emit == Emit::llvm;
      options.emit_llvm_ir_optimized = o.emit == Emit::llvm_opt;
      options.emit_assembly = o.emit == Emit::assembly;
      options.jit = false;
      const HostKernel hk = compile_host(k, options);
      out += o.emit == Emit::llvm       ? hk.llvm_ir()
             : o.emit == Emit::llvm_opt ? hk.llvm_ir_optimized()
             : o.emit == Emit::assembly ? hk.assembly()
                                        : metadata_text(hk);
      continue;
    }
    CompileOptions options;
    options.opt_level = o.opt_level;
    options.code_object_version = o.code_object_version;
    options.emit_llvm_ir = o.emit == Emit::llvm;
    options.emit_llvm_ir_optimized = o.emit == Emit::llvm_opt;
    options.emit_assembly = o.emit == Emit::assembly;
    options.emit_object = o.emit == Emit::object;
    CodeObject co = compile(k, Target::amdgpu(o.mcpu, o.mattr), options);
    switch (o.emit) {
      case Emit::ir: break;
      case Emit::llvm: out += co.llvm_ir; break;
      case Emit::llvm_opt: out += co.llvm_ir_optimized; break;
      case Emit::assembly: out += co.assembly; break;
      case Emit::object: out.assign(co.object.begin(), co.object.end()); break;
      case Emit::hsaco: out.assign(co.elf.begin(), co.elf.end()); break;
      case Emit::meta: out += metadata_text(co); break;
    }
  }
  write_output(o, out, binary);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Every run compiles afresh: the tool shows what this compiler does now, never an entry from
  // the kernel cache (whose code objects carry no unlinked object), and leaves the cache alone.
  rocjit::update_settings([](rocjit::Settings& s) { s.disk_cache = false; });
  Options options;
  try {
    options = parse_command_line(argc, argv);
    if (options.help) {
      cl::PrintHelpMessage();
      return 0;
    }
    if (options.list_targets) {
      list_targets(std::cout);
      return 0;
    }
    if (options.list_workarounds) {
      list_workarounds(std::cout);
      return 0;
    }
    check_options(options);
  } catch (const UsageError& e) {
    std::cerr << tool << ": error: " << e.what() << "\n";
    return 2;
  }
  try {
    return run(options);
  } catch (const UsageError& e) {
    std::cerr << tool << ": error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {  // rocjit::Error from parsing or compiling, InputError
    std::cerr << tool << ": error: " << e.what() << "\n";
    return 1;
  }
}

// rocjit-dump: shows one stage of compiling a .rjir kernel: its IR, LLVM IR before or after
// optimisation, AMDGPU assembly, the object or linked code object, or the code object's metadata.
// Exit status: 0 on success, 1 for a bad input file or kernel, 2 for a bad command line.
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
  bool help = false;
};

const char* const usage =
    "OVERVIEW: rocjit-dump - show any stage of compiling rocjit IR (.rjir) for a GPU or the CPU\n"
    "\n"
    "USAGE: rocjit-dump [options] INPUT.rjir|-\n"
    "\n"
    "OPTIONS:\n"
    "  --emit=<kind>                 What to write (default: ir):\n"
    "                                  ir        the parsed kernels, printed back as .rjir\n"
    "                                  llvm      LLVM IR as lowered, before optimisation\n"
    "                                  llvm-opt  LLVM IR after the -O pipeline\n"
    "                                  asm       AMDGPU assembly (host: this CPU's assembly)\n"
    "                                  obj       the relocatable ELF object, before linking (amdgpu only)\n"
    "                                  hsaco     the linked code object, loadable by HIP/HSA (amdgpu only)\n"
    "                                  meta      registers, LDS, scratch, kernel arguments, occupancy\n"
    "                                            (host: regions, per-work-item storage, arguments)\n"
    "  --target=<name>               amdgpu (default) or host; see --list-targets\n"
    "  --mcpu=<processor>            AMDGPU processor (default: gfx90a)\n"
    "  --mattr=<+f,-g>               Target features: wavefrontsize64, wavefrontsize32, xnack, sramecc, cumode\n"
    "  --code-object-version=<4|5>   Code object version (default: 5; 4 for ROCm 5.x runtimes)\n"
    "  -O0, -O1, -O2, -O3            Optimisation level (default: -O3)\n"
    "  --kernel=<name>               Only this kernel of the input\n"
    "  -o <file>                     Write to <file> instead of standard output\n"
    "  --list-targets                List the targets and AMDGPU processors, then exit\n"
    "  -h, --help                    Show this help, then exit\n";

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

int parse_int(const std::string& option, const std::string& v) {
  try {
    size_t used = 0;
    int n = std::stoi(v, &used);
    if (used == v.size()) return n;
  } catch (const std::exception&) {
  }
  throw UsageError(fmt::format("'{}' is not a number, as {} needs", v, option));
}

// LLVM's conventions: options start with one or two dashes; values follow '=' or come as the
// next argument.
Options parse_command_line(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-" || arg.empty() || arg[0] != '-') {
      if (o.input) throw UsageError(fmt::format("more than one input file: '{}' and '{}'", *o.input, arg));
      o.input = arg;
      continue;
    }
    std::string name = arg.substr(arg.starts_with("--") ? 2 : 1);
    std::optional<std::string> value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    auto take_value = [&]() -> std::string {
      if (value) return *value;
      if (i + 1 >= argc) throw UsageError(fmt::format("option '{}' needs a value", arg));
      return argv[++i];
    };
    if (name == "emit") o.emit = parse_emit(take_value());
    else if (name == "target") o.target = take_value();
    else if (name == "mcpu") o.mcpu = take_value();
    else if (name == "mattr") o.mattr = take_value();
    else if (name == "kernel") o.kernel = take_value();
    else if (name == "o") o.output = take_value();
    else if (name.size() > 1 && name[0] == 'o' && !value && !arg.starts_with("--")) o.output = name.substr(1);
    else if (name == "code-object-version") o.code_object_version = parse_int(arg, take_value());
    else if (name.size() == 2 && name[0] == 'O' && name[1] >= '0' && name[1] <= '3' && !value) o.opt_level = name[1] - '0';
    else if (name == "list-targets" && !value) o.list_targets = true;
    else if ((name == "help" || name == "h") && !value) o.help = true;
    else throw UsageError(fmt::format("unknown option '{}'; see --help", arg));
  }
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

std::string read_input(const std::string& path) {
  if (path == "-") return std::string(std::istreambuf_iterator<char>(std::cin), {});
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(fmt::format("'{}' is a directory, not a .rjir file", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  return text.str();
}

void write_output(const Options& o, const std::string& bytes, bool binary) {
  if (o.output.empty() || o.output == "-") {
    if (binary && isatty(STDOUT_FILENO))
      throw UsageError("refusing to write a binary object to a terminal; use -o FILE");
    std::cout.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    std::cout.flush();
    return;
  }
  std::ofstream out(o.output, std::ios::binary | std::ios::trunc);
  if (out) out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw InputError(fmt::format("cannot write '{}': {}", o.output, std::strerror(errno)));
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
  setenv("ROCJIT_CACHE", "0", 1);
  Options options;
  try {
    options = parse_command_line(argc, argv);
    if (options.help) {
      std::cout << usage;
      return 0;
    }
    if (options.list_targets) {
      list_targets(std::cout);
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

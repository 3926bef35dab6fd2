// Settings::dump / dump_dir (ROCJIT_DUMP / ROCJIT_DUMP_DIR): write each stage of every kernel the
// process compiles to <dir>/<kernel>.<target>.<stage>, so any program shows what the JIT made of
// its kernels.
//
//   ROCJIT_DUMP=ir,llvm,llvm-opt,asm,meta   any subset, or "all"
//   ROCJIT_DUMP_DIR=path                    default: the current directory (created if missing)
//
// A compile with dumping on always runs (it neither reads nor fills the kernel cache), so the
// files describe this compiler's output. Problems writing them are warnings: dumping never makes
// a compile fail.
#pragma once

#include <string>
#include <string_view>

#include "rocjit/compiler/target.hpp"
#include "rocjit/settings.hpp"

namespace rocjit::dump {

enum Stage : unsigned { ir = 1u << 0, llvm = 1u << 1, llvm_opt = 1u << 2, assembly = 1u << 3, meta = 1u << 4 };

struct Request {
  unsigned stages = 0;  // Stage bits
  std::string dir;
  bool wants(Stage s) const { return (stages & s) != 0; }
};

// What the compile's settings ask to dump (an unknown stage name in ROCJIT_DUMP was reported
// when the settings were read).
Request from_settings(const Settings& settings);

// The file name's stage part: "ir", "llvm", "llvm-opt", "asm", "meta".
std::string_view stage_name(Stage s);

// Writes `text` to <dir>/<kernel>.<target.file_name()>.<stage> (temp file + rename, so a reader
// never sees half a file). Failures are warnings (each distinct one once per process).
void write(const Request& request, std::string_view kernel, const Target& target, Stage stage, std::string_view text);

// The text stages both back ends produce. `Options` is CompileOptions;
// `Texts` is CodeObject or HostKernel::Impl (both name their texts llvm_ir, llvm_ir_optimized
// and assembly).

// Asks the compile for the texts of the stages `request` wants.
template <class Options>
void ask_for_texts(const Request& request, Options& options) {
  options.emit_llvm_ir |= request.wants(llvm);
  options.emit_llvm_ir_optimized |= request.wants(llvm_opt);
  options.emit_assembly |= request.wants(assembly);
}

// Writes the text stages `request` wants, then drops the texts the caller did not ask for.
template <class Texts, class Options>
void write_texts(const Request& request, std::string_view kernel, const Target& target, Texts& texts,
                 const Options& requested) {
  if (request.wants(llvm)) write(request, kernel, target, llvm, texts.llvm_ir);
  if (request.wants(llvm_opt)) write(request, kernel, target, llvm_opt, texts.llvm_ir_optimized);
  if (request.wants(assembly)) write(request, kernel, target, assembly, texts.assembly);
  if (!requested.emit_llvm_ir) texts.llvm_ir.clear();
  if (!requested.emit_llvm_ir_optimized) texts.llvm_ir_optimized.clear();
  if (!requested.emit_assembly) texts.assembly.clear();
}

}  // namespace rocjit::dump

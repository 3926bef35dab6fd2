#include "assembler.hpp"

#include <llvm/MC/MCAsmBackend.h>
#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCCodeEmitter.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCObjectFileInfo.h>
#include <llvm/MC/MCObjectWriter.h>
#include <llvm/MC/MCParser/MCAsmParser.h>
#include <llvm/MC/MCParser/MCTargetAsmParser.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCStreamer.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>

#include <memory>
#include <mutex>

namespace amdsim_test {

std::vector<uint8_t> assemble(const std::string& processor, int wave_size, const std::string& source) {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmParser();
    LLVMInitializeAMDGPUDisassembler();
  });
  llvm::Triple triple("amdgcn-amd-amdhsa");
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) throw AssemblyError("no AMDGPU target: " + error);
  llvm::MCTargetOptions options;
  std::unique_ptr<llvm::MCRegisterInfo> mri(target->createMCRegInfo(triple));
  std::unique_ptr<llvm::MCAsmInfo> mai(target->createMCAsmInfo(*mri, triple, options));
  std::string features = wave_size == 32 ? "+wavefrontsize32" : "+wavefrontsize64";
  std::unique_ptr<llvm::MCSubtargetInfo> sti(target->createMCSubtargetInfo(triple, processor, features));
  std::unique_ptr<llvm::MCInstrInfo> mii(target->createMCInstrInfo());

  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(source + "\n", "snippet.s"), llvm::SMLoc());
  std::string diagnostics;
  llvm::raw_string_ostream diag_stream(diagnostics);
  sources.setDiagHandler(
      [](const llvm::SMDiagnostic& d, void* ctx) { d.print("asm", *static_cast<llvm::raw_string_ostream*>(ctx), false); },
      &diag_stream);
  llvm::MCContext context(triple, mai.get(), mri.get(), sti.get(), &sources, &options);
  std::unique_ptr<llvm::MCObjectFileInfo> object_info(target->createMCObjectFileInfo(context, /*PIC=*/false));
  context.setObjectFileInfo(object_info.get());

  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream out(object);
  std::unique_ptr<llvm::MCAsmBackend> backend(target->createMCAsmBackend(*sti, *mri, options));
  std::unique_ptr<llvm::MCCodeEmitter> emitter(target->createMCCodeEmitter(*mii, context));
  auto writer = backend->createObjectWriter(out);
  std::unique_ptr<llvm::MCStreamer> streamer(target->createMCObjectStreamer(
      triple, context, std::move(backend), std::move(writer), std::move(emitter), *sti));
  streamer->initSections(false, *sti);
  std::unique_ptr<llvm::MCAsmParser> parser(llvm::createMCAsmParser(sources, context, *streamer, *mai));
  std::unique_ptr<llvm::MCTargetAsmParser> target_parser(target->createMCAsmParser(*sti, *parser, *mii, options));
  if (!target_parser) throw AssemblyError("no AMDGPU asm parser");
  parser->setTargetParser(*target_parser);
  bool failed = parser->Run(/*NoInitialTextSection=*/true);
  diag_stream.flush();
  if (failed || !diagnostics.empty()) throw AssemblyError("cannot assemble for " + processor + ":\n" + source + "\n" + diagnostics);
  streamer.reset();  // finishes the object

  auto file = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(llvm::StringRef(object.data(), object.size()), "snippet.o"));
  if (!file) throw AssemblyError("the assembled object does not parse: " + llvm::toString(file.takeError()));
  for (const auto& section : (*file)->sections()) {
    auto name = section.getName();
    if (!name || *name != ".text") {
      if (!name) llvm::consumeError(name.takeError());
      continue;
    }
    auto contents = section.getContents();
    if (!contents) throw AssemblyError(llvm::toString(contents.takeError()));
    return std::vector<uint8_t>(contents->begin(), contents->end());
  }
  throw AssemblyError("the assembled object has no .text section");
}

}  // namespace amdsim_test

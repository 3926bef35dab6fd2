// Parses NT_AMDGPU_METADATA with LLVM's ELF and msgpack readers.
#include "targets/amdgpu/metadata.h"

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/BinaryFormat/MsgPackDocument.h>
#include <llvm/Object/ELF.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/Error.h>
#include <llvm/TargetParser/Triple.h>

#include <optional>

#include "rocjit/compiler/error.hpp"

namespace rocjit::targets::amdgpu {
namespace {

uint64_t number(llvm::msgpack::MapDocNode& map, const char* key) {
  auto it = map.find(key);
  if (it == map.end()) return 0;
  auto& node = it->second;
  if (node.getKind() == llvm::msgpack::Type::UInt) return node.getUInt();
  if (node.getKind() == llvm::msgpack::Type::Int) return static_cast<uint64_t>(node.getInt());
  return 0;
}

std::string text(llvm::msgpack::MapDocNode& map, const char* key) {
  auto it = map.find(key);
  if (it == map.end() || it->second.getKind() != llvm::msgpack::Type::String) return {};
  return it->second.getString().str();
}

}  // namespace

std::string read_processor(const std::vector<uint8_t>& elf) {
  llvm::StringRef bytes(reinterpret_cast<const char*>(elf.data()), elf.size());
  auto object = llvm::object::ObjectFile::createELFObjectFile(llvm::MemoryBufferRef(bytes, "code object"));
  if (!object) {
    llvm::consumeError(object.takeError());
    throw CompileError("the code object is not a valid ELF file");
  }
  const auto* e = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(object->get());
  if (!e || (*object)->getArch() != llvm::Triple::amdgcn)
    throw CompileError("the code object is not an AMDGPU (amdgcn) ELF file");
  const std::optional<llvm::StringRef> cpu = e->tryGetCPUName();
  const std::string processor = cpu ? cpu->str() : std::string();
  if (processor.empty()) throw CompileError("the code object's ELF header names no AMDGPU processor");
  return processor;
}

std::vector<KernelMetadata> read_metadata(const std::vector<uint8_t>& elf, const std::vector<std::string>& names) {
  llvm::StringRef bytes(reinterpret_cast<const char*>(elf.data()), elf.size());
  auto file = llvm::object::ELF64LEFile::create(bytes);
  if (!file) {
    llvm::consumeError(file.takeError());
    throw CompileError("the linked code object is not a valid ELF file");
  }
  auto sections = file->sections();
  if (!sections) {
    llvm::consumeError(sections.takeError());
    throw CompileError("the linked code object has no readable sections");
  }
  std::vector<KernelMetadata> out;
  for (const auto& section : *sections) {
    if (section.sh_type != llvm::ELF::SHT_NOTE) continue;
    llvm::Error err = llvm::Error::success();
    for (auto note : file->notes(section, err)) {
      if (note.getName() != "AMDGPU" || note.getType() != llvm::ELF::NT_AMDGPU_METADATA) continue;
      llvm::msgpack::Document doc;
      if (!doc.readFromBlob(note.getDescAsStringRef(section.sh_addralign), false))
        throw CompileError("the code object's AMDGPU metadata note is not valid msgpack");
      auto& root = doc.getRoot().getMap();
      auto kernels = root.find("amdhsa.kernels");
      if (kernels == root.end()) continue;
      for (auto& node : kernels->second.getArray()) {
        auto& k = node.getMap();
        KernelMetadata m;
        m.name = text(k, ".name");
        m.symbol = text(k, ".symbol");
        m.kernarg_segment_size = number(k, ".kernarg_segment_size");
        m.kernarg_segment_align = number(k, ".kernarg_segment_align");
        m.group_segment_fixed_size = number(k, ".group_segment_fixed_size");
        m.private_segment_fixed_size = number(k, ".private_segment_fixed_size");
        m.vgpr_count = static_cast<uint32_t>(number(k, ".vgpr_count"));
        m.sgpr_count = static_cast<uint32_t>(number(k, ".sgpr_count"));
        m.agpr_count = static_cast<uint32_t>(number(k, ".agpr_count"));
        m.vgpr_spill_count = static_cast<uint32_t>(number(k, ".vgpr_spill_count"));
        m.sgpr_spill_count = static_cast<uint32_t>(number(k, ".sgpr_spill_count"));
        m.wavefront_size = static_cast<uint32_t>(number(k, ".wavefront_size"));
        m.max_flat_workgroup_size = static_cast<uint32_t>(number(k, ".max_flat_workgroup_size"));
        auto args = k.find(".args");
        if (args != k.end()) {
          size_t explicit_index = 0;
          for (auto& a : args->second.getArray()) {
            auto& am = a.getMap();
            KernelArgument arg;
            arg.offset = number(am, ".offset");
            arg.size = number(am, ".size");
            arg.value_kind = text(am, ".value_kind");
            if (arg.value_kind.rfind("hidden_", 0) == 0)
              arg.name = arg.value_kind;
            else
              arg.name = explicit_index < names.size() ? names[explicit_index++] : text(am, ".name");
            m.args.push_back(std::move(arg));
          }
        }
        out.push_back(std::move(m));
      }
    }
    if (err) {
      llvm::consumeError(std::move(err));
      throw CompileError("the code object's notes could not be read");
    }
  }
  if (out.empty()) throw CompileError("the linked code object carries no AMDGPU kernel metadata");
  return out;
}

}  // namespace rocjit::targets::amdgpu

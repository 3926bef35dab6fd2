// The LDS layout of a check_races compile's shared arrays, and its field in the code object's
// metadata; see lds_layout.h.
#include "targets/amdgpu/lds_layout.h"

#include <fmt/format.h>
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/BinaryFormat/MsgPackDocument.h>
#include <llvm/IR/ConstantRange.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/ObjCopy/ConfigManager.h>
#include <llvm/ObjCopy/ObjCopy.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <unordered_map>

#include "rocjit/compiler/error.hpp"

namespace rocjit::targets::amdgpu {

std::vector<SharedArrayLayout> lds_layout(const llvm::Module& module, const std::vector<SharedArrayType>& arrays) {
  std::unordered_map<const llvm::Type*, const SharedArrayType*> by_type;
  for (const SharedArrayType& a : arrays) by_type[a.type] = &a;
  std::vector<SharedArrayLayout> out;
  if (by_type.empty()) return out;
  const llvm::DataLayout& dl = module.getDataLayout();
  auto add = [&](const SharedArrayType& a, uint64_t offset, llvm::Type* type) {
    out.push_back({a.name, offset, dl.getTypeAllocSize(type).getFixedValue(), a.element_size});
  };
  for (const llvm::GlobalVariable& g : module.globals()) {
    if (g.getAddressSpace() != 3) continue;
    const std::optional<llvm::ConstantRange> at = g.getAbsoluteSymbolRange();
    if (!at || !at->getSingleElement()) continue;  // not placed by the LDS lowering
    const uint64_t base = at->getSingleElement()->getZExtValue();
    llvm::Type* type = g.getValueType();
    if (auto it = by_type.find(type); it != by_type.end()) {
      add(*it->second, base, type);
      continue;
    }
    auto* block = llvm::dyn_cast<llvm::StructType>(type);
    if (!block || block->isOpaque()) continue;
    const llvm::StructLayout* layout = dl.getStructLayout(block);
    for (unsigned i = 0; i < block->getNumElements(); ++i)
      if (auto it = by_type.find(block->getElementType(i)); it != by_type.end())
        add(*it->second, base + layout->getElementOffset(i), block->getElementType(i));
  }
  return out;
}

namespace {

// The metadata `desc` (msgpack) with the layout added to kernel `kernel`'s map.
std::string with_layout(llvm::StringRef desc, const std::string& kernel, const std::vector<SharedArrayLayout>& layout) {
  llvm::msgpack::Document doc;
  if (!doc.readFromBlob(desc, false)) throw CompileError("internal error: the AMDGPU metadata note is not msgpack");
  if (!doc.getRoot().isMap()) throw CompileError("internal error: the AMDGPU metadata is not a map");
  auto& root = doc.getRoot().getMap();
  auto kernels = root.find("amdhsa.kernels");
  if (kernels == root.end() || !kernels->second.isArray())
    throw CompileError("internal error: the AMDGPU metadata lists no kernels");
  bool found = false;
  for (auto& node : kernels->second.getArray()) {
    if (!node.isMap()) continue;
    auto& k = node.getMap();
    auto name = k.find(".name");
    if (name == k.end() || !name->second.isString() || name->second.getString() != kernel) continue;
    llvm::msgpack::ArrayDocNode list = doc.getArrayNode();
    for (const SharedArrayLayout& a : layout) {
      llvm::msgpack::MapDocNode m = doc.getMapNode();
      m[".name"] = doc.getNode(a.name, true);
      m[".offset"] = doc.getNode(a.offset);
      m[".size"] = doc.getNode(a.size);
      m[".element_size"] = doc.getNode(uint64_t{a.element_size});
      list.push_back(m);
    }
    k[".rocjit_lds"] = list;
    found = true;
  }
  if (!found) throw CompileError(fmt::format("internal error: the AMDGPU metadata has no kernel '{}'", kernel));
  std::string out;
  doc.writeToBlob(out);
  return out;
}

}  // namespace

void add_lds_layout(llvm::SmallVectorImpl<char>& object, const std::string& kernel,
                    const std::vector<SharedArrayLayout>& layout) {
  auto failed = [](llvm::Error e) {
    return CompileError("internal error: adding the LDS layout to the code object: " + llvm::toString(std::move(e)));
  };
  // Read with LLVM's ELF reader; the note section is rewritten and replaced with LLVM's objcopy.
  auto file = llvm::object::ELF64LEObjectFile::create(
      llvm::MemoryBufferRef(llvm::StringRef(object.data(), object.size()), "kernel"));
  if (!file) throw failed(file.takeError());
  const auto& elf = file->getELFFile();
  auto sections = elf.sections();
  if (!sections) throw failed(sections.takeError());
  for (const auto& section : *sections) {
    if (section.sh_type != llvm::ELF::SHT_NOTE) continue;
    const size_t align = std::max<size_t>(4, section.sh_addralign);
    std::string notes;  // the section rewritten: every note as it was, the metadata with the layout
    bool changed = false;
    auto append = [&](llvm::StringRef name, uint32_t type, llvm::StringRef desc) {
      const llvm::ELF::Elf64_Nhdr header{static_cast<llvm::ELF::Elf64_Word>(name.size()),
                                         static_cast<llvm::ELF::Elf64_Word>(desc.size()), type};
      notes.append(reinterpret_cast<const char*>(&header), sizeof header);
      notes += name;
      notes.resize(llvm::alignTo(notes.size(), align), '\0');
      notes += desc;
      notes.resize(llvm::alignTo(notes.size(), align), '\0');
    };
    llvm::Error error = llvm::Error::success();
    for (const auto& note : elf.notes(section, error)) {
      // n_namesz counts the name's terminating NUL; getName() leaves it out.
      const llvm::StringRef bare = note.getName();
      const llvm::StringRef name = bare.empty() ? bare : llvm::StringRef(bare.data(), bare.size() + 1);
      if (note.getType() == llvm::ELF::NT_AMDGPU_METADATA && note.getName() == "AMDGPU") {
        append(name, note.getType(), with_layout(note.getDescAsStringRef(align), kernel, layout));
        changed = true;
      } else {
        append(name, note.getType(), note.getDescAsStringRef(align));
      }
    }
    if (error) throw failed(std::move(error));
    if (!changed) continue;
    auto section_name = elf.getSectionName(section);
    if (!section_name) throw failed(section_name.takeError());
    llvm::objcopy::ConfigManager config;
    config.Common.UpdateSection.emplace_back(*section_name, llvm::MemoryBuffer::getMemBufferCopy(notes));
    llvm::SmallVector<char, 0> out;
    llvm::raw_svector_ostream stream(out);
    if (llvm::Error e = llvm::objcopy::executeObjcopyOnBinary(config, *file, stream)) throw failed(std::move(e));
    object.assign(out.begin(), out.end());
    return;
  }
  throw CompileError("internal error: the object has no AMDGPU metadata note");
}

}  // namespace rocjit::targets::amdgpu

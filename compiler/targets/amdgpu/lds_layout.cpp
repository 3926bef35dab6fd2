// The LDS layout of a check_races compile's shared arrays, and its field in the code object's
// metadata; see lds_layout.h.
#include "targets/amdgpu/lds_layout.h"

#include <fmt/format.h>
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/BinaryFormat/MsgPackDocument.h>
#include <llvm/IR/ConstantRange.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/GlobalVariable.h>

#include <cstring>
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

template <class T>
T read(const llvm::SmallVectorImpl<char>& bytes, uint64_t at) {
  if (at + sizeof(T) > bytes.size()) throw CompileError("internal error: the object ends inside an ELF structure");
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof(T));
  return value;
}

template <class T>
void write(llvm::SmallVectorImpl<char>& bytes, uint64_t at, const T& value) {
  std::memcpy(bytes.data() + at, &value, sizeof(T));
}

uint64_t align_to(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

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
  using namespace llvm::ELF;
  const auto header = read<Elf64_Ehdr>(object, 0);
  if (std::memcmp(header.e_ident, ElfMagic, 4) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_ident[EI_DATA] != ELFDATA2LSB || header.e_shentsize != sizeof(Elf64_Shdr))
    throw CompileError("internal error: the object is not a little-endian ELF64 file");
  for (unsigned s = 0; s < header.e_shnum; ++s) {
    const uint64_t at = header.e_shoff + uint64_t{s} * sizeof(Elf64_Shdr);
    auto section = read<Elf64_Shdr>(object, at);
    if (section.sh_type != SHT_NOTE) continue;
    const uint64_t align = std::max<uint64_t>(4, section.sh_addralign);
    const uint64_t end = section.sh_offset + section.sh_size;
    if (end > object.size()) throw CompileError("internal error: a note section lies outside the object");
    std::string notes;  // the section rewritten
    bool changed = false;
    for (uint64_t n = section.sh_offset; n + sizeof(Elf64_Nhdr) <= end;) {
      const auto note = read<Elf64_Nhdr>(object, n);
      const uint64_t name_at = n + sizeof(Elf64_Nhdr);
      const uint64_t desc_at = name_at + align_to(note.n_namesz, align);
      const uint64_t next = desc_at + align_to(note.n_descsz, align);
      if (next > end) throw CompileError("internal error: a note overruns its section");
      const llvm::StringRef name(object.data() + name_at, note.n_namesz);
      if (note.n_type == NT_AMDGPU_METADATA && name == llvm::StringRef("AMDGPU\0", 7)) {
        const std::string desc =
            with_layout(llvm::StringRef(object.data() + desc_at, note.n_descsz), kernel, layout);
        Elf64_Nhdr rewritten = note;
        rewritten.n_descsz = static_cast<Elf64_Word>(desc.size());
        notes.append(reinterpret_cast<const char*>(&rewritten), sizeof rewritten);
        notes.append(object.data() + name_at, desc_at - name_at);
        notes += desc;
        notes.resize(align_to(notes.size(), align), '\0');
        changed = true;
      } else {
        notes.append(object.data() + n, next - n);
      }
      n = next;
    }
    if (!changed) continue;
    // The section moves to the end of the object; its old bytes stay, unreferenced.
    object.resize(align_to(object.size(), align), '\0');
    section.sh_offset = object.size();
    section.sh_size = notes.size();
    object.append(notes.begin(), notes.end());
    write(object, at, section);
    return;
  }
  throw CompileError("internal error: the object has no AMDGPU metadata note");
}

}  // namespace rocjit::targets::amdgpu

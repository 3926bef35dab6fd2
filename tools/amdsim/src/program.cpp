// Loading a code object: the ELF image with its dynamic relocations applied, kernel descriptors,
// msgpack metadata, and every instruction decoded once up front.
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/BinaryFormat/MsgPackDocument.h>
#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/DebugInfo/DWARF/DWARFDebugLine.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/AMDHSAKernelDescriptor.h>
#include <llvm/Support/MemoryBuffer.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include "decoder.h"
#include "inst.h"

namespace amdsim {

struct Program::Decoded {
  DecodeTable wave32, wave64;
  DecodeTable& table(int wave_size) { return wave_size == 32 ? wave32 : wave64; }
};

namespace {

struct ProcessorFacts {
  const char* name;
  unsigned mach;
  int major;
  bool architected_flat_scratch;
  int wave;
  uint32_t lds;  // bytes of LDS a work-group may have
  const char* matrix_numerics;  // Processor::matrix_numerics
};

const ProcessorFacts processors[] = {
    {"gfx942", llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX942, 9, true, 64, 65536, "cdna3"},
    // CDNA4: gfx942's machine model plus its new MFMA shapes (16x16x32, 32x32x16 for 16-bit floats)
    // and its 160 KiB of LDS per work-group.
    {"gfx950", llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX950, 9, true, 64, 163840, "cdna3"},
    {"gfx90a", llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX90A, 9, false, 64, 65536, "cdna2"},
    {"gfx1100", llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX1100, 11, true, 32, 65536, "fma_chain"},
};

const ProcessorFacts* facts(const std::string& name) {
  for (const auto& p : processors)
    if (name == p.name) return &p;
  return nullptr;
}

const Decoder& decoder_for(const Processor& p, int wave_size) {
  static std::mutex lock;
  static std::map<std::pair<std::string, int>, std::unique_ptr<Decoder>> decoders;
  std::lock_guard<std::mutex> g(lock);
  auto& d = decoders[{p.name, wave_size}];
  if (!d) d = std::make_unique<Decoder>(p, wave_size);
  return *d;
}

std::string str(const llvm::msgpack::DocNode& n) {
  return n.isString() ? n.getString().str() : std::string();
}
uint64_t num(const llvm::msgpack::DocNode& n) {
  if (n.getKind() == llvm::msgpack::Type::UInt) return n.getUInt();
  if (n.getKind() == llvm::msgpack::Type::Int) return static_cast<uint64_t>(n.getInt());
  return 0;
}

}  // namespace

const DecodeTable& ProgramAccess::table(const Program& p, int wave_size) { return p.decoded_->table(wave_size); }

Processor Processor::get(const std::string& name) {
  const ProcessorFacts* f = facts(name);
  if (!f) {
    std::string list;
    for (const auto& p : processors) list += std::string(list.empty() ? "" : ", ") + p.name;
    throw Error("amdsim does not simulate processor '" + name + "'; it simulates " + list);
  }
  Processor p;
  p.name = f->name;
  p.major = f->major;
  p.architected_flat_scratch = f->architected_flat_scratch;
  p.default_wave_size = f->wave;
  p.lds_bytes = f->lds;
  p.matrix_numerics = f->matrix_numerics;
  return p;
}

std::vector<std::string> Processor::supported() {
  std::vector<std::string> out;
  for (const auto& p : processors) out.push_back(p.name);
  return out;
}

Program::~Program() = default;

const KernelInfo* Program::kernel(const std::string& name) const {
  for (const auto& k : kernels_)
    if (k.name == name) return &k;
  return nullptr;
}

std::vector<std::string> Program::instruction_names() const {
  std::set<std::string> names;
  for (auto* t : {&decoded_->wave32, &decoded_->wave64})
    for (const auto& inst : t->storage) {
      names.insert(inst.name);
      if (inst.second) names.insert(inst.second->name);
    }
  return {names.begin(), names.end()};
}

std::shared_ptr<Program> Program::load(std::span<const uint8_t> bytes, const Processor& processor) {
  using namespace llvm;
  auto fail = [](const std::string& why) -> amdsim::Error { return amdsim::Error("amdsim: cannot load the code object: " + why); };
  MemoryBufferRef ref(StringRef(reinterpret_cast<const char*>(bytes.data()), bytes.size()), "code object");
  auto elf_or = object::ELF64LEObjectFile::create(ref);
  if (!elf_or) throw fail(toString(elf_or.takeError()));
  const object::ELF64LEObjectFile& obj = *elf_or;
  const auto& file = obj.getELFFile();
  const auto& header = file.getHeader();
  if (header.e_machine != ELF::EM_AMDGPU) throw fail("it is not an AMDGPU ELF file");
  unsigned mach = header.e_flags & ELF::EF_AMDGPU_MACH;
  const ProcessorFacts* f = facts(processor.name);
  if (!f || f->mach != mach)
    throw fail("it was compiled for another processor than " + processor.name + " (e_flags mach 0x" +
               std::to_string(mach) + ")");

  std::shared_ptr<Program> program(new Program());
  program->processor_ = processor;
  program->decoded_ = std::make_unique<Decoded>();
  switch (header.e_ident[ELF::EI_ABIVERSION]) {
    case ELF::ELFABIVERSION_AMDGPU_HSA_V4: program->version_ = 4; break;
    case ELF::ELFABIVERSION_AMDGPU_HSA_V5: program->version_ = 5; break;
    case ELF::ELFABIVERSION_AMDGPU_HSA_V6: program->version_ = 6; break;
    default: throw fail("unsupported code object version (ABI version " +
                        std::to_string(header.e_ident[ELF::EI_ABIVERSION]) + "); v4, v5 and v6 run");
  }

  // The image: every PT_LOAD segment at its virtual address.
  auto phdrs = file.program_headers();
  if (!phdrs) throw fail(toString(phdrs.takeError()));
  uint64_t image_size = 0;
  std::vector<std::pair<uint64_t, uint64_t>> code_ranges;
  for (const auto& ph : *phdrs) {
    if (ph.p_type != ELF::PT_LOAD) continue;
    image_size = std::max<uint64_t>(image_size, ph.p_vaddr + ph.p_memsz);
    if (ph.p_offset + ph.p_filesz > bytes.size()) throw fail("a segment lies outside the file");
    if (ph.p_flags & ELF::PF_X) code_ranges.push_back({ph.p_vaddr, ph.p_memsz});
  }
  if (image_size == 0 || image_size > (1u << 30)) throw fail("no loadable segment, or an absurd image size");
  program->image_.assign(image_size, 0);
  for (const auto& ph : *phdrs)
    if (ph.p_type == ELF::PT_LOAD)
      std::memcpy(program->image_.data() + ph.p_vaddr, bytes.data() + ph.p_offset, ph.p_filesz);
  const uint64_t base = reinterpret_cast<uint64_t>(program->image_.data());

  // Symbols by name (both tables), for descriptors and relocations.
  std::map<std::string, uint64_t> symbols;
  for (const auto& sym : obj.symbols()) {
    auto name = sym.getName();
    auto value = sym.getValue();
    if (name && value) symbols[name->str()] = *value;
  }
  for (const auto& sym : obj.getDynamicSymbolIterators()) {
    auto name = sym.getName();
    auto value = sym.getValue();
    if (name && value) symbols[name->str()] = *value;
  }

  // Dynamic relocations.
  for (const auto& section : obj.sections()) {
    const auto* shdr = obj.getSection(section.getRawDataRefImpl());
    if (shdr->sh_type != ELF::SHT_RELA) continue;
    for (const auto& reloc : section.relocations()) {
      uint64_t offset = reloc.getOffset();
      int64_t addend = 0;
      if (auto a = object::ELFRelocationRef(reloc).getAddend()) addend = *a;
      uint64_t s = 0;
      if (auto sym = reloc.getSymbol(); sym != obj.symbol_end()) {
        if (auto v = sym->getValue()) s = *v;
      }
      uint64_t type = reloc.getType();
      if (offset + 8 > image_size) throw fail("a relocation lies outside the image");
      uint8_t* p = program->image_.data() + offset;
      switch (type) {
        case ELF::R_AMDGPU_RELATIVE64: { uint64_t v = base + addend; std::memcpy(p, &v, 8); break; }
        case ELF::R_AMDGPU_ABS64: { uint64_t v = base + s + addend; std::memcpy(p, &v, 8); break; }
        case ELF::R_AMDGPU_ABS32_LO: { uint32_t v = uint32_t(base + s + addend); std::memcpy(p, &v, 4); break; }
        case ELF::R_AMDGPU_ABS32_HI: { uint32_t v = uint32_t((base + s + addend) >> 32); std::memcpy(p, &v, 4); break; }
        case ELF::R_AMDGPU_NONE: break;
        default: throw fail("unsupported relocation type " + std::to_string(type));
      }
    }
  }

  // Metadata note.
  std::string metadata;
  for (const auto& ph : *phdrs) {
    if (ph.p_type != ELF::PT_NOTE) continue;
    llvm::Error err = llvm::Error::success();
    for (const auto& note : file.notes(ph, err)) {
      if (note.getName() == "AMDGPU" && note.getType() == ELF::NT_AMDGPU_METADATA) {
        auto desc = note.getDesc(ph.p_align);
        metadata.assign(reinterpret_cast<const char*>(desc.data()), desc.size());
      }
    }
    if (err) throw fail(toString(std::move(err)));
  }
  if (metadata.empty()) throw fail("it has no AMDGPU metadata note");
  msgpack::Document doc;
  if (!doc.readFromBlob(metadata, false)) throw fail("its metadata note is not valid msgpack");
  auto root = doc.getRoot();
  if (!root.isMap()) throw fail("its metadata is not a map");
  auto& kernels = root.getMap()["amdhsa.kernels"];
  if (!kernels.isArray()) throw fail("its metadata lists no kernels");
  for (auto& kn : kernels.getArray()) {
    if (!kn.isMap()) continue;
    auto& m = kn.getMap();
    KernelInfo k;
    k.name = str(m[".name"]);
    std::string symbol = str(m[".symbol"]);
    k.kernarg_size = static_cast<uint32_t>(num(m[".kernarg_segment_size"]));
    k.kernarg_align = std::max<uint32_t>(8, static_cast<uint32_t>(num(m[".kernarg_segment_align"])));
    k.group_segment_size = static_cast<uint32_t>(num(m[".group_segment_fixed_size"]));
    k.private_segment_size = static_cast<uint32_t>(num(m[".private_segment_fixed_size"]));
    k.wavefront_size = static_cast<uint32_t>(num(m[".wavefront_size"]));
    k.sgpr_count = static_cast<uint32_t>(num(m[".sgpr_count"]));
    k.vgpr_count = static_cast<uint32_t>(num(m[".vgpr_count"]));
    if (m.find(".args") != m.end() && m[".args"].isArray()) {
      for (auto& an : m[".args"].getArray()) {
        if (!an.isMap()) continue;
        auto& am = an.getMap();
        KernelArgument a;
        if (am.find(".name") != am.end()) a.name = str(am[".name"]);
        a.value_kind = str(am[".value_kind"]);
        a.offset = static_cast<uint32_t>(num(am[".offset"]));
        a.size = static_cast<uint32_t>(num(am[".size"]));
        k.args.push_back(a);
      }
    }
    if (m.find(".rocjit_lds") != m.end() && m[".rocjit_lds"].isArray()) {
      for (auto& an : m[".rocjit_lds"].getArray()) {
        if (!an.isMap()) continue;
        auto& am = an.getMap();
        SharedArray a;
        a.name = str(am[".name"]);
        a.offset = static_cast<uint32_t>(num(am[".offset"]));
        a.size = static_cast<uint32_t>(num(am[".size"]));
        a.element_size = std::max<uint32_t>(1, static_cast<uint32_t>(num(am[".element_size"])));
        if (!a.name.empty() && a.size > 0) k.shared_arrays.push_back(std::move(a));
      }
    }
    auto it = symbols.find(symbol.empty() ? k.name + ".kd" : symbol);
    if (it == symbols.end()) throw fail("kernel '" + k.name + "' has no descriptor symbol " + symbol);
    uint64_t kd = it->second;
    if (kd + 64 > image_size) throw fail("the descriptor of kernel '" + k.name + "' lies outside the image");
    k.descriptor.assign(program->image_.begin() + kd, program->image_.begin() + kd + 64);
    amdhsa::kernel_descriptor_t d;
    std::memcpy(&d, k.descriptor.data(), sizeof d);
    k.code_offset = kd + d.kernel_code_entry_byte_offset;
    if (k.code_offset >= image_size) throw fail("the entry point of kernel '" + k.name + "' lies outside the image");
    if (k.wavefront_size != 32 && k.wavefront_size != 64)
      k.wavefront_size = (d.kernel_code_properties & amdhsa::KERNEL_CODE_PROPERTY_ENABLE_WAVEFRONT_SIZE32) ? 32 : 64;
    program->kernels_.push_back(std::move(k));
  }
  if (program->kernels_.empty()) throw fail("it contains no kernel");

  // Decode every instruction of the code segments, once per wave size in use.
  std::set<int> sizes;
  for (const auto& k : program->kernels_) sizes.insert(static_cast<int>(k.wavefront_size));
  for (int ws : sizes) {
    const Decoder& dec = decoder_for(processor, ws);
    DecodeTable& table = program->decoded_->table(ws);
    table.at.assign(image_size / 4 + 1, nullptr);
    for (auto [start, size] : code_ranges) {
      uint64_t pc = start, end = std::min<uint64_t>(start + size, image_size);
      while (pc + 4 <= end) {
        std::span<const uint8_t> window(program->image_.data() + pc, std::min<uint64_t>(end - pc, 20));
        Inst inst = dec.decode(window, pc);
        inst.handler = inst.valid ? find_handler(inst.name) : nullptr;
        if (inst.second) inst.second->handler = find_handler(inst.second->name);
        table.storage.push_back(std::move(inst));
        table.at[pc / 4] = &table.storage.back();
        pc += table.storage.back().size;
      }
    }
  }
  ProgramAccess::read_line_table(obj, *program);
  return program;
}

// The code object's DWARF line table (rocjit writes one when Settings::line_tables is on; clang
// with -g or -gline-tables-only too), flattened to rows sorted by address for Wave::fail's
// reports. A code object without .debug_line, or with one LLVM cannot read, has no rows.
void ProgramAccess::read_line_table(const llvm::object::ObjectFile& obj, Program& program) {
  using namespace llvm;
  std::unique_ptr<DWARFContext> dwarf = DWARFContext::create(obj, DWARFContext::ProcessDebugRelocations::Ignore,
                                                             nullptr, "", [](llvm::Error e) { llvm::consumeError(std::move(e)); },
                                                             [](llvm::Error e) { llvm::consumeError(std::move(e)); });
  std::map<std::string, uint32_t> file_index;
  for (const std::unique_ptr<DWARFUnit>& unit : dwarf->compile_units()) {
    const DWARFDebugLine::LineTable* table = dwarf->getLineTableForUnit(unit.get());
    if (!table) continue;
    for (const DWARFDebugLine::Row& row : table->Rows) {
      Program::LineRow r{row.Address.Address, 0, row.EndSequence ? 0u : row.Line};
      if (r.line != 0) {
        std::string name;
        if (!table->getFileNameByIndex(row.File, unit->getCompilationDir(),
                                       DILineInfoSpecifier::FileLineInfoKind::AbsoluteFilePath, name))
          r.line = 0;
        auto [it, added] = file_index.try_emplace(name, static_cast<uint32_t>(program.line_files_.size()));
        if (added) program.line_files_.push_back(name);
        r.file = it->second;
      }
      program.lines_.push_back(r);
    }
  }
  std::stable_sort(program.lines_.begin(), program.lines_.end(),
                   [](const Program::LineRow& a, const Program::LineRow& b) { return a.address < b.address; });
}

std::string Program::source_line(uint64_t address) const {
  auto it = std::upper_bound(lines_.begin(), lines_.end(), address,
                             [](uint64_t a, const LineRow& r) { return a < r.address; });
  if (it == lines_.begin()) return {};
  --it;
  if (it->line == 0) return {};
  return line_files_[it->file] + ":" + std::to_string(it->line);
}

}  // namespace amdsim

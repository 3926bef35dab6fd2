// Decoding AMDGPU machine code with LLVM's public MC disassembler and instruction printer.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>

#include "inst.h"

namespace llvm::object {
class ObjectFile;
}

namespace amdsim {

// Decodes every instruction of one code range for one processor and wave size.
class Decoder {
 public:
  Decoder(const Processor& processor, int wave_size);
  ~Decoder();
  // Decodes the instruction at `bytes` (at most bytes.size() long). An undecodable word gives an
  // Inst with valid == false and size 4.
  Inst decode(std::span<const uint8_t> bytes, uint64_t address) const;
  // The name LLVM gives an opcode, reduced to the handler key (see normalize_name).
  std::string opcode_name(unsigned opcode) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// "V_ADD_F32_e64_gfx940" -> "v_add_f32", "GLOBAL_LOAD_DWORD_SADDR_vi" -> "global_load_dword",
// "global_load_b32" (gfx11) -> "global_load_dword": encoding and form suffixes stripped and
// gfx11 renames folded, so one handler serves every processor and form.
std::string normalize_name(const std::string& llvm_name);

// Parses the operand and modifier text LLVM prints after the mnemonic.
void parse_operands(const std::string& text, Inst& inst);

// Per program: decoded instructions indexed by byte offset / 4, one table per wave size.
struct DecodeTable {
  std::deque<Inst> storage;
  std::vector<Inst*> at;  // by offset / 4
  const Inst* find(uint64_t offset) const { return offset / 4 < at.size() ? at[offset / 4] : nullptr; }
};

// The decoded instructions of a program (defined in program.cpp).
struct ProgramAccess {
  static const DecodeTable& table(const Program& p, int wave_size);
  // Fills the program's line table from the code object's DWARF (program.cpp).
  static void read_line_table(const llvm::object::ObjectFile& obj, Program& program);
};

}  // namespace amdsim

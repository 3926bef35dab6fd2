// Reading AMDGPU assembly text (rocjit's and clang's) in the ISA benchmarks.
#pragma once

#include <cctype>
#include <sstream>
#include <string>
#include <vector>

namespace rocjit::bench {

// An instruction line: a tab, then a lower-case mnemonic. Labels start in column 0, directives
// with '.', comments with ';'. Operands may hold ':' (register ranges such as s[0:1]).
inline bool is_instruction(const std::string& line) {
  return line.size() > 1 && line[0] == '\t' && std::islower(static_cast<unsigned char>(line[1]));
}

// The lines of `kernel`'s function: from its label to .Lfunc_end.
inline std::vector<std::string> function_lines(const std::string& assembly, const std::string& kernel) {
  std::vector<std::string> body;
  std::istringstream in(assembly);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (!inside && line.rfind(kernel + ":", 0) == 0 &&
        (line.size() == kernel.size() + 1 || line[kernel.size() + 1] == ' ')) {
      inside = true;
      body.push_back(line);
    } else if (inside && line.rfind(".Lfunc_end", 0) == 0) {
      break;
    } else if (inside) {
      body.push_back(line);
    }
  }
  return body;
}

// "--processor=a,b,c" style lists.
inline std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace rocjit::bench

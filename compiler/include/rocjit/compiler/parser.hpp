// Reads the textual IR (.rjir) that ir::print writes back into kernels: print -> parse -> print
// is the identity, with or without loc(...) suffixes.
#pragma once

#include <string_view>
#include <vector>

#include "rocjit/compiler/ir.hpp"

namespace rocjit::ir {

/// What the parser checks on each kernel it read: the compile pipeline's checks (passes::check:
/// ir::verify, then the barrier-uniformity rule), or ir::verify alone (rocjit-opt, which runs the
/// other checks as passes of their own).
enum class ParseCheck { pipeline, verify };

/// Parses the one kernel in `text`. Value ids (%N) are kept as written, so printing the result
/// gives the same text. `//` starts a comment that runs to the end of the line.
///
/// Throws rocjit::CompileError on the first problem, as "source_name:line:column: expected X,
/// got Y" for syntax errors and "source_name:line:column: <what>" for undefined or duplicate
/// names, type mismatches and unknown ops. The parsed kernel is then checked like every kernel
/// (the compile pipeline's check: ir::verify's structure and types, then the barrier-uniformity
/// rule); its errors are prefixed with "source_name:line:column:" of the kernel's header.
Kernel parse(std::string_view text, std::string_view source_name = "<input>",
             ParseCheck check = ParseCheck::pipeline);

/// Parses every kernel in `text` (a file may hold several, one after another).
std::vector<Kernel> parse_all(std::string_view text, std::string_view source_name = "<input>",
                              ParseCheck check = ParseCheck::pipeline);

}  // namespace rocjit::ir

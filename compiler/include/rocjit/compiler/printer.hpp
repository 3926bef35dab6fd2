// Textual form of rocjit IR (.rjir): readable, stable, and designed to be parsed back.
#pragma once

#include <iosfwd>
#include <string>

#include "rocjit/compiler/ir.hpp"

namespace rocjit::ir {

/// What ir::print() includes.
struct PrintOptions {
  bool locations = true;  ///< append loc("file":line:col) to every op
};

/// The .rjir text of `kernel`.
std::string print(const Kernel& kernel, const PrintOptions& options = {});

/// Writes print(kernel), with locations.
std::ostream& operator<<(std::ostream& out, const Kernel& kernel);

}  // namespace rocjit::ir

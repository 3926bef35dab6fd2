/// \file
/// rocjit's workarounds for LLVM bugs, as one table (rocjit/workarounds.def): each has a name,
/// the LLVM component it works around, the LLVM versions known to have the bug, a reproducer
/// under tests/smith/known-external/ and a regression check. Each can be switched off with
/// ROCJIT_DISABLE_WORKAROUNDS=name,... (Settings::disabled_workarounds), e.g. to see whether a
/// newer LLVM still needs it; `rocjit-dump --workarounds` lists them.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace rocjit {

struct Settings;

/// \def ROCJIT_WORKAROUND
/// The X-macro rocjit/workarounds.def's entries are written in; defined only while enum
/// Workaround includes the table, where each entry expands to its enumerator.

/// One enumerator per entry of rocjit/workarounds.def, in its order (`rocjit-dump --workarounds`
/// lists them; Doxygen does not expand the table, so its listing here shows only the macro).
enum class Workaround {
#define ROCJIT_WORKAROUND(name, component, first_llvm, last_llvm, reproducer, regression, shows_on, what) name,
#include "rocjit/workarounds.def"
#undef ROCJIT_WORKAROUND
};

/// An entry of the table (the fields are described in rocjit/workarounds.def).
struct WorkaroundInfo {
  Workaround id;                ///< the enumerator
  std::string_view name;        ///< as ROCJIT_DISABLE_WORKAROUNDS spells it
  std::string_view component;   ///< the LLVM pass or component with the bug
  int first_llvm;               ///< first LLVM major version known to have the bug
  int last_llvm;                ///< last one known to have it; 0: no fixed release known
  std::string_view reproducer;  ///< files under tests/smith/known-external/
  std::string_view regression;  ///< rocjit-smith --regressions checks, comma-separated
  std::string_view shows_on;    ///< executors where the checks fail without it (no GPU needed)
  std::string_view what;        ///< a one-line description
};

/// Every entry, in the order of rocjit/workarounds.def.
std::span<const WorkaroundInfo> workaround_table();
/// The entry of `w`.
const WorkaroundInfo& workaround_info(Workaround w);
/// The workaround called `name`, if there is one.
std::optional<Workaround> workaround_named(std::string_view name);
/// The major version of the LLVM rocjit was built with and runs.
int llvm_major_version();
/// Whether `w` applies to that LLVM (its version is in [first_llvm, last_llvm]).
bool workaround_applies(Workaround w);
/// Whether compiles with `settings` apply `w`: it applies to this LLVM and `settings` do not
/// disable it. Every workaround site asks this.
bool workaround_enabled(Workaround w, const Settings& settings);

}  // namespace rocjit

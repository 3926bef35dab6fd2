// The table of workarounds (rocjit/workarounds.def) and the question every workaround site asks.
#include "rocjit/workarounds.hpp"

#include <array>

#include "rocjit/settings.hpp"

// The LLVM release the library is built with: ROCJIT_LLVM_VERSION_MAJOR, set by CMake from
// LLVM's package (the support layer sees no LLVM header).
namespace rocjit {
namespace {

constexpr WorkaroundInfo table[] = {
#define ROCJIT_WORKAROUND(name, component, first_llvm, last_llvm, reproducer, regression, shows_on, what) \
  {Workaround::name, #name, component, first_llvm, last_llvm, reproducer, regression, shows_on, what},
#include "rocjit/workarounds.def"
#undef ROCJIT_WORKAROUND
};

// The enumerators are the table's indices.
constexpr bool in_order() {
  for (size_t i = 0; i < std::size(table); ++i)
    if (static_cast<size_t>(table[i].id) != i) return false;
  return true;
}
static_assert(in_order());

}  // namespace

std::span<const WorkaroundInfo> workaround_table() { return table; }

const WorkaroundInfo& workaround_info(Workaround w) { return table[static_cast<size_t>(w)]; }

std::optional<Workaround> workaround_named(std::string_view name) {
  for (const WorkaroundInfo& entry : table)
    if (entry.name == name) return entry.id;
  return std::nullopt;
}

int llvm_major_version() { return ROCJIT_LLVM_VERSION_MAJOR; }

bool workaround_applies(Workaround w) {
  const WorkaroundInfo& entry = workaround_info(w);
  return ROCJIT_LLVM_VERSION_MAJOR >= entry.first_llvm && (entry.last_llvm == 0 || ROCJIT_LLVM_VERSION_MAJOR <= entry.last_llvm);
}

bool workaround_enabled(Workaround w, const Settings& settings) {
  return workaround_applies(w) && !settings.disabled_workarounds.contains(w);
}

}  // namespace rocjit

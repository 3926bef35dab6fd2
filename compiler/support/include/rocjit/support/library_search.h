// Where rocjit looks for a library of its own that it loads with dlopen (the compiler library,
// the simulator's HIP library): one list, written once.
#pragma once

#include <string>
#include <vector>

namespace rocjit::support {

// The directory holding librocjit.so (found with dladdr), with a trailing '/'; empty if unknown.
std::string own_directory();

// The paths to try for `file` (e.g. "librocjit-compiler.so"), in order: `chosen` (a setting) when
// set (and then only it, if `chosen_only`); `file` next to librocjit, so an installed librocjit
// never picks up the one of the tree it was built in; `build_path`; `install_path` (either may be
// null).
std::vector<std::string> own_library_candidates(const std::string& chosen, bool chosen_only, const char* file,
                                                const char* build_path, const char* install_path);

}  // namespace rocjit::support

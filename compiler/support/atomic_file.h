// Whole-file reads, and whole-file writes that readers never see half done: the bytes go to a temporary file in the
// target's directory, which is then renamed over the target (rename is atomic within one file
// system). Used by the kernel cache's entries and the ROCJIT_DUMP files.
#pragma once

#include <string>
#include <string_view>

namespace rocjit {

// Writes `bytes` to `path` through a temporary file ".<name>.tmp-XXXXXXXX" next to it (mode 0666
// less the umask, like an ordinary new file). Returns "" on success, else what failed (the
// temporary file is removed). The directory must exist.
std::string write_file_atomically(const std::string& path, std::string_view bytes);

// Reads the whole file at `path` into `bytes`. Returns "" on success, else what failed ("cannot
// open it: ..." or "cannot read it: ..."). The kernel cache's entries and bundle files.
std::string read_whole_file(const std::string& path, std::string& bytes);

}  // namespace rocjit

// write_file_atomically (see atomic_file.h), on LLVM's file-system support.
#include "support/atomic_file.h"

#include <fmt/format.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

namespace rocjit {

std::string write_file_atomically(const std::string& path, std::string_view bytes) {
  namespace fs = llvm::sys::fs;
  llvm::SmallString<256> model(llvm::sys::path::parent_path(path));
  llvm::sys::path::append(model, "." + llvm::sys::path::filename(path).str() + ".tmp-%%%%%%%%");
  llvm::SmallString<256> temp;
  int fd = -1;
  if (std::error_code ec = fs::createUniqueFile(model, fd, temp, fs::OF_None, 0666))
    return fmt::format("cannot create a temporary file for {}: {}", path, ec.message());
  std::string failure;
  {
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    out << llvm::StringRef(bytes.data(), bytes.size());
    out.close();
    if (out.has_error()) {
      failure = fmt::format("cannot write {}: {}", temp.str().str(), out.error().message());
      out.clear_error();  // or raw_fd_ostream's destructor aborts
    }
  }
  if (failure.empty()) {
    if (std::error_code ec = fs::rename(temp, path)) failure = fmt::format("cannot rename into {}: {}", path, ec.message());
  }
  if (!failure.empty()) fs::remove(temp);
  return failure;
}

}  // namespace rocjit

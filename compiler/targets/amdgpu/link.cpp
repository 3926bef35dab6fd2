// In-process lld: the object goes in through a memfd (nothing on disk); lld writes its output
// through a temporary file in a private directory, which is read back and removed.
#include "targets/amdgpu/link.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <lld/Common/Driver.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "rocjit/compiler/error.hpp"
#include "targets/codegen.h"

LLD_HAS_DRIVER(elf)

namespace rocjit::targets::amdgpu {
namespace {

struct FileDescriptor {
  int fd = -1;
  ~FileDescriptor() {
    if (fd >= 0) close(fd);
  }
};

struct TemporaryDirectory {
  llvm::SmallString<128> path;
  std::string output;
  ~TemporaryDirectory() {
    if (!output.empty()) llvm::sys::fs::remove(output);
    if (!path.empty()) llvm::sys::fs::remove(path);
  }
};

void write_all(int fd, const char* data, size_t size, const std::string& kernel) {
  while (size > 0) {
    ssize_t n = write(fd, data, size);
    if (n < 0) throw CompileError(fmt::format("kernel '{}': could not hand the object to the linker", kernel));
    data += n;
    size -= static_cast<size_t>(n);
  }
}

}  // namespace

std::vector<uint8_t> link(const llvm::SmallVectorImpl<char>& object, const std::string& kernel) {
  FileDescriptor input;
  input.fd = memfd_create("rocjit-object", MFD_CLOEXEC);
  if (input.fd < 0) throw CompileError(fmt::format("kernel '{}': memfd_create failed", kernel));
  write_all(input.fd, object.data(), object.size(), kernel);
  std::string input_path = fmt::format("/proc/self/fd/{}", input.fd);

  // A private directory under the system's temporary directory ($TMPDIR, else /tmp).
  TemporaryDirectory dir;
  if (std::error_code error = llvm::sys::fs::createUniqueDirectory("rocjit-link", dir.path)) {
    llvm::SmallString<128> base;
    llvm::sys::path::system_temp_directory(true, base);
    throw CompileError(fmt::format("kernel '{}': could not create a temporary directory for linking in {}: {}", kernel,
                                   base.str(), error.message()));
  }
  dir.output = (dir.path + "/code.hsaco").str();

  // One kernel's object is tiny: lld's thread pool costs more in wake-ups than it saves.
  std::vector<const char*> args = {"ld.lld", "-shared", "--no-undefined", "--threads=1", input_path.c_str(), "-o",
                                   dir.output.c_str()};
  std::string out, err;
  llvm::raw_string_ostream out_stream(out), err_stream(err);
  lld::Result result;
  // lld is not reentrant, and its driver resets LLVM's command-line options: one link at a time,
  // while no compile reads them.
  run_resetting_llvm_options([&] { result = lld::lldMain(args, out_stream, err_stream, {{lld::Gnu, &lld::elf::link}}); });
  if (result.retCode != 0)
    throw CompileError(fmt::format("kernel '{}': lld failed to link the code object: {}", kernel, err));
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> linked = llvm::MemoryBuffer::getFile(dir.output);
  if (!linked || (*linked)->getBufferSize() == 0)
    throw CompileError(fmt::format("kernel '{}': lld produced an empty code object", kernel));
  std::vector<uint8_t> bytes((*linked)->getBufferStart(), (*linked)->getBufferEnd());
  return bytes;
}

}  // namespace rocjit::targets::amdgpu

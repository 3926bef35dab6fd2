// In-process lld: the object goes in through a memfd and the code object comes out through a
// pipe, so linking touches no file system. lld buffers an output that is not a regular file in
// memory (llvm::FileOutputBuffer) and writes it to the pipe when done; a reader thread drains the
// pipe meanwhile, so any size fits. (The output used to go to a temporary file in a private
// directory: creating, reading and removing it cost about 0.5 ms of each link.)
#include "targets/link.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <lld/Common/Driver.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/TimeProfiler.h>
#include <llvm/Support/raw_ostream.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "rocjit/compiler/error.hpp"
#include "targets/codegen.h"

LLD_HAS_DRIVER(elf)

namespace rocjit::targets {
namespace {

struct FileDescriptor {
  int fd = -1;
  ~FileDescriptor() {
    if (fd >= 0) close(fd);
  }
};

// The code object's way out: lld writes to /proc/self/fd/<write end>; `reader` collects the bytes
// until every write end is closed.
struct OutputPipe {
  int read_end = -1, write_end = -1;
  std::vector<uint8_t> bytes;
  std::thread reader;
  void close_write_end() {
    if (write_end >= 0) close(write_end);
    write_end = -1;
  }
  ~OutputPipe() {
    close_write_end();
    if (reader.joinable()) reader.join();
    if (read_end >= 0) close(read_end);
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

std::vector<uint8_t> link(const llvm::SmallVectorImpl<char>& object, const std::string& kernel, LinkFor what) {
  FileDescriptor input;
  input.fd = memfd_create("rocjit-object", MFD_CLOEXEC);
  if (input.fd < 0) throw CompileError(fmt::format("kernel '{}': memfd_create failed", kernel));
  write_all(input.fd, object.data(), object.size(), kernel);
  std::string input_path = fmt::format("/proc/self/fd/{}", input.fd);

  OutputPipe output;
  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0)
    throw CompileError(fmt::format("kernel '{}': could not make a pipe for the linker's output: {}", kernel,
                                   std::strerror(errno)));
  output.read_end = ends[0];
  output.write_end = ends[1];
  output.reader = std::thread([&output] {
    uint8_t chunk[16384];
    for (;;) {
      ssize_t n = read(output.read_end, chunk, sizeof chunk);
      if (n > 0) output.bytes.insert(output.bytes.end(), chunk, chunk + n);
      else if (n == 0 || errno != EINTR) break;
    }
  });
  std::string output_path = fmt::format("/proc/self/fd/{}", output.write_end);

  // One kernel's object is tiny: lld's thread pool costs more in wake-ups than it saves.
  std::vector<const char*> args = {"ld.lld", "-shared", "--threads=1"};
  if (what == LinkFor::amdgpu) {
    args.push_back("--no-undefined");
  } else {
    // The kernel's own functions bind to themselves (no interposition through the process's
    // symbols), and its stack is not executable.
    args.insert(args.end(), {"-Bsymbolic", "-z", "noexecstack", "--hash-style=gnu"});
  }
  args.insert(args.end(), {input_path.c_str(), "-o", output_path.c_str()});
#ifdef ROCJIT_HOST_BUILTINS
  // The compiler-rt functions the kernel calls (an archive: only those members are linked in).
  if (what == LinkFor::host) args.push_back(ROCJIT_HOST_BUILTINS);
#endif
  std::string out, err;
  llvm::raw_string_ostream out_stream(out), err_stream(err);
  lld::Result result;
  // lld is not reentrant, and its driver resets LLVM's command-line options: one link at a time,
  // while no compile reads them. The link runs on a thread of its own: lld allocates its sections
  // and symbols from thread_local arenas (lld/Common/Memory.h, makeThreadLocal) that only the
  // thread's exit frees, so a link on the compiling thread kept ~2.3 KiB per kernel for the life
  // of the process (many-kernels-20000 measures it). Under ROCJIT_TIME_TRACE it stays on the
  // compiling thread, whose LLVM profiler (thread-local too) records lld's events in the link phase.
  run_resetting_llvm_options([&] {
    auto run = [&] { result = lld::lldMain(args, out_stream, err_stream, {{lld::Gnu, &lld::elf::link}}); };
    if (llvm::timeTraceProfilerEnabled()) {
      run();
    } else {
      std::thread linker(run);
      linker.join();
    }
  });
  if (result.retCode != 0)
    throw CompileError(fmt::format("kernel '{}': lld failed to link the {}: {}", kernel,
                                   what == LinkFor::amdgpu ? "code object" : "host shared object", err));
  output.close_write_end();  // lld has closed its own: the reader sees the end
  output.reader.join();
  if (output.bytes.empty()) throw CompileError(fmt::format("kernel '{}': lld produced an empty code object", kernel));
  return std::move(output.bytes);
}

}  // namespace rocjit::targets

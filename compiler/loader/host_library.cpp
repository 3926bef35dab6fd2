// Host kernels' shared objects go into the process through a memfd: written there and opened with
// dlopen, so no kernel code is written to a file system (nor needs an exec-allowed /tmp).
//
// glibc's dlopen returns an object already loaded under the same name without looking at the file,
// and a closed memfd's number is reused, so "/proc/self/fd/<n>" cannot be the name. Each kernel is
// opened through a symbolic link of its own, "<private dir>/k<serial>" -> /proc/self/fd/<n>, in a
// directory made once per process (mode 0700, under $TMPDIR or /tmp) and removed at exit; the link
// goes as soon as the object is loaded. Without a usable directory, a name still held by a loaded
// kernel (RTLD_NOLOAD finds it) is replaced by a duplicate descriptor's, whose number differs.
#include "loader/host_library.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <vector>

#include "rocjit/compiler/error.hpp"

namespace rocjit::loader {
namespace {

// Set when the process exits: kernels are then left loaded (a CPU device's worker may still be
// running one while the kernel cache's statics are destroyed; the code goes with the process).
std::atomic<bool> process_exiting{false};

struct Library {
  void* handle = nullptr;
  ~Library() {
    if (handle && !process_exiting.load(std::memory_order_relaxed)) dlclose(handle);
  }
};

// The per-process directory of the kernels' links, or "" when none can be made.
const std::string& link_directory() {
  static const std::string dir = [] {
    std::error_code error;
    const std::filesystem::path base = std::filesystem::temp_directory_path(error);  // $TMPDIR, else /tmp
    if (error) return std::string();
    std::string pattern = (base / "rocjit-kernels-XXXXXX").string();
    if (!mkdtemp(pattern.data())) return std::string();
    static std::string made;
    made = pattern;
    std::atexit([] { rmdir(made.c_str()); });
    return pattern;
  }();
  return dir;
}

std::string last_dl_error() {
  const char* e = dlerror();
  return e ? e : "unknown dlopen error";
}

}  // namespace

std::shared_ptr<void> load_host_library(const std::string& kernel, std::string_view shared_object,
                                        const std::string& symbol, HostGroupFunction& entry) {
  static std::once_flag exit_hook;
  std::call_once(exit_hook, [] { std::atexit([] { process_exiting = true; }); });

  std::vector<int> fds;  // every descriptor opened here, closed on the way out
  struct Closer {
    std::vector<int>& fds;
    ~Closer() {
      for (int fd : fds) close(fd);
    }
  } closer{fds};
  const int fd = memfd_create("rocjit-kernel", MFD_CLOEXEC);
  if (fd < 0)
    throw CompileError(fmt::format("kernel '{}': cannot load its host code: memfd_create failed: {}", kernel,
                                   std::strerror(errno)));
  fds.push_back(fd);
  for (size_t done = 0; done < shared_object.size();) {
    const ssize_t n = write(fd, shared_object.data() + done, shared_object.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw CompileError(fmt::format("kernel '{}': cannot load its host code: writing the memfd failed: {}", kernel,
                                     std::strerror(errno)));
    done += static_cast<size_t>(n);
  }
  // dlopen's name check and the open itself happen under one lock, so two threads cannot both
  // find a name free and load different objects under it.
  static std::mutex names;
  std::lock_guard<std::mutex> guard(names);
  std::string path = fmt::format("/proc/self/fd/{}", fd);
  std::string link;
  if (const std::string& dir = link_directory(); !dir.empty()) {
    static uint64_t serial = 0;  // under `names`
    std::string name = fmt::format("{}/k{}", dir, serial++);
    if (symlink(path.c_str(), name.c_str()) == 0) link = std::move(name);
  }
  struct Unlink {
    const std::string& link;
    ~Unlink() {
      if (!link.empty()) unlink(link.c_str());
    }
  } unlink_after{link};
  if (!link.empty()) path = link;
  while (link.empty()) {
    void* loaded = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (!loaded) break;
    dlclose(loaded);  // the reference RTLD_NOLOAD took
    const int other = dup(fd);
    if (other < 0)
      throw CompileError(fmt::format("kernel '{}': cannot load its host code: dup failed: {}", kernel,
                                     std::strerror(errno)));
    fds.push_back(other);
    path = fmt::format("/proc/self/fd/{}", other);
  }
  auto library = std::make_shared<Library>();
  library->handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library->handle)
    throw CompileError(fmt::format("kernel '{}': the host code did not load: {}", kernel, last_dl_error()));
  void* address = dlsym(library->handle, symbol.c_str());
  if (!address)
    throw CompileError(fmt::format("kernel '{}': the host code does not define its entry point '{}': {}", kernel,
                                   symbol, last_dl_error()));
  entry = reinterpret_cast<HostGroupFunction>(address);
  return library;
}

}  // namespace rocjit::loader

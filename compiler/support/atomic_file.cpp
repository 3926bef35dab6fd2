// write_file_atomically and read_whole_file (see atomic_file.h), on POSIX calls: the kernel cache writes entries
// without LLVM.
#include "support/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

namespace rocjit {

std::string write_file_atomically(const std::string& path, std::string_view bytes) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  static std::atomic<uint64_t> counter{0};
  thread_local std::mt19937_64 random{std::random_device{}()};
  std::string temp;
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 64; ++attempt) {
    temp = fmt::format("{}.{}.tmp-{:08x}", dir, name, static_cast<uint32_t>(random() ^ counter.fetch_add(1)));
    fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);  // 0666 less the umask
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) return fmt::format("cannot create a temporary file for {}: {}", path, std::strerror(errno));
  std::string failure;
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      failure = fmt::format("cannot write {}: {}", temp, n < 0 ? std::strerror(errno) : "nothing written");
      break;
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0 && failure.empty()) failure = fmt::format("cannot write {}: {}", temp, std::strerror(errno));
  if (failure.empty() && std::rename(temp.c_str(), path.c_str()) != 0)
    failure = fmt::format("cannot rename into {}: {}", path, std::strerror(errno));
  if (!failure.empty()) unlink(temp.c_str());
  return failure;
}

std::string read_whole_file(const std::string& path, std::string& bytes) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fmt::format("cannot open it: {}", std::strerror(errno));
  bytes.clear();
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      close(fd);
      return fmt::format("cannot read it: {}", std::strerror(e));
    }
    if (n == 0) break;
    bytes.append(chunk, static_cast<size_t>(n));
  }
  close(fd);
  return {};
}

}  // namespace rocjit

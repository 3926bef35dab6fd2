// Kernel bundles (rocjit/compiler/bundle.hpp, cache/bundle.h) and clang-offload-bundler fat
// binaries.
//
// A bundle file: magic "RJBUNDL1", u32 format (1), the identity of the rocjit that wrote it
// (cache::portable_identity(): version, LLVM version, cache entry format), u32 entry count, then
// per entry its key, extension (".rjco" or ".rjho"), kernel name, Target::str(), the XXH3-64
// checksum of its payload and the payload, which is exactly what the disk cache's entry of that
// key holds. Nothing here needs LLVM.
//
// A fat binary (clang-offload-bundler's uncompressed format, as HIP's runtime reads it): magic
// "__CLANG_OFFLOAD_BUNDLE__", u64 entry count, per entry u64 offset, u64 size, u64 id length and
// the id, then the entries' bytes (here each at a 4096-byte boundary, as hipcc's are).
#include "cache/bundle.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "cache/kernel_cache.h"
#include "rocjit/compiler/bundle.hpp"
#include "rocjit/compiler/error.hpp"
#include "rocjit/support/bytes.h"
#include "rocjit/support/log.h"
#include "rocjit/support/text.h"
#include "support/atomic_file.h"

namespace rocjit {
namespace {

constexpr char bundle_magic[8] = {'R', 'J', 'B', 'U', 'N', 'D', 'L', '1'};
constexpr uint32_t bundle_format = 1;
constexpr std::string_view fat_magic = "__CLANG_OFFLOAD_BUNDLE__";
constexpr uint64_t fat_alignment = 4096;

struct StoredEntry {
  std::string key, extension, kernel, target;
  uint64_t checksum = 0;
  std::string payload;
};

// The file's bytes; throws Error naming it.
std::string read_whole(const std::string& path) {
  std::string bytes;
  if (std::string failed = read_whole_file(path, bytes); !failed.empty())
    throw Error(fmt::format("bundle '{}': {}", path, failed));
  return bytes;
}

// The entries of a bundle's bytes; throws Error naming `path`. An empty file is an empty bundle
// (a recorder's first open).
std::vector<StoredEntry> parse(const std::string& bytes, const std::string& path) {
  std::vector<StoredEntry> out;
  if (bytes.empty()) return out;
  support::ByteReader r(bytes);
  const std::string_view magic = r.bytes(sizeof bundle_magic);
  if (!r.ok() || std::memcmp(magic.data(), bundle_magic, sizeof bundle_magic) != 0)
    throw Error(fmt::format("bundle '{}': not a rocjit kernel bundle (no RJBUNDL1 magic)", path));
  const uint32_t format = r.get<uint32_t>();
  const std::string identity = r.text<uint32_t>();
  if (!r.ok() || format != bundle_format || identity != cache::portable_identity())
    throw Error(fmt::format("bundle '{}': written by {} (bundle format {}); this is {} (bundle format {})", path,
                            identity.empty() ? "an unknown rocjit" : identity, format, cache::portable_identity(),
                            bundle_format));
  const uint32_t count = r.get<uint32_t>();
  for (uint32_t i = 0; i < count && r.ok(); ++i) {
    StoredEntry e;
    e.key = r.text<uint32_t>();
    e.extension = r.text<uint32_t>();
    e.kernel = r.text<uint32_t>();
    e.target = r.text<uint32_t>();
    e.checksum = r.get<uint64_t>();
    e.payload = r.text<uint64_t>();
    out.push_back(std::move(e));
  }
  if (!r.whole()) throw Error(fmt::format("bundle '{}': truncated or malformed", path));
  return out;
}

std::string serialize(const std::vector<StoredEntry>& entries) {
  std::string out;
  support::ByteWriter w(out);
  w.bytes(std::string_view(bundle_magic, sizeof bundle_magic));
  w.put<uint32_t>(bundle_format);
  w.text<uint32_t>(cache::portable_identity());
  w.put<uint32_t>(static_cast<uint32_t>(entries.size()));
  for (const StoredEntry& e : entries) {
    w.text<uint32_t>(e.key);
    w.text<uint32_t>(e.extension);
    w.text<uint32_t>(e.kernel);
    w.text<uint32_t>(e.target);
    w.put<uint64_t>(e.checksum);
    w.text<uint64_t>(e.payload);
  }
  return out;
}

// ---- Mounted bundles -------------------------------------------------------------------------

struct Mounted {
  std::string path;
  std::string failure;  // why it is not used, or empty
  std::vector<StoredEntry> entries;
  std::map<std::string, size_t> index;  // key + extension -> entry
};

std::mutex mount_lock;
// Every bundle any settings mounted, by path: opened once per process.
std::map<std::string, std::shared_ptr<const Mounted>> mounted_paths;

std::vector<std::string> split_paths(const std::string& list) {
  std::vector<std::string> out;
  support::for_each_list_item(list, ':', [&](std::string_view path) {
    if (!path.empty()) out.emplace_back(path);
  });
  return out;
}

std::vector<std::shared_ptr<const Mounted>> mounts(const Settings& settings) {
  std::vector<std::shared_ptr<const Mounted>> out;
  if (settings.bundles.empty()) return out;
  std::lock_guard<std::mutex> g(mount_lock);
  for (const std::string& path : split_paths(settings.bundles)) {
    std::shared_ptr<const Mounted>& m = mounted_paths[path];
    if (!m) {
      auto fresh = std::make_shared<Mounted>();
      fresh->path = path;
      try {
        fresh->entries = parse(read_whole(path), path);
        for (size_t i = 0; i < fresh->entries.size(); ++i)
          fresh->index.emplace(fresh->entries[i].key + fresh->entries[i].extension, i);
      } catch (const Error& e) {
        fresh->failure = e.what();
        fresh->entries.clear();
        support::log(LogLevel::warning, "ROCJIT_BUNDLE: {}; not used", e.what());
      }
      m = std::move(fresh);
    }
    out.push_back(m);
  }
  return out;
}

std::string target_list(const std::set<std::string>& targets) { return fmt::format("{}", fmt::join(targets, ", ")); }

// "gfx942" of "amdgpu:gfx942:xnack-"; empty for other targets.
std::string processor_of(const std::string& target) {
  if (target.rfind("amdgpu:", 0) != 0) return {};
  std::string rest = target.substr(7);
  return rest.substr(0, rest.find(':'));
}

}  // namespace

namespace cache {

std::optional<std::string> bundled(const std::string& key, const char* extension, const Settings& settings) {
  for (const auto& m : mounts(settings)) {
    auto it = m->index.find(key + extension);
    if (it == m->index.end()) continue;
    const StoredEntry& e = m->entries[it->second];
    if (cache::payload_checksum(e.payload) != e.checksum) {
      support::log(LogLevel::warning, "ROCJIT_BUNDLE: bundle '{}': the entry of kernel '{}' for {} is corrupt; not used",
                   m->path, e.kernel, e.target);
      continue;
    }
    return e.payload;
  }
  return std::nullopt;
}

bool in_bundles(const std::string& key, const char* extension, const Settings& settings) {
  for (const auto& m : mounts(settings))
    if (m->index.count(key + extension)) return true;
  return false;
}

void record(const Settings& settings, const std::string& key, const char* extension, const EntryLabel& label,
            const std::string& payload) {
  const std::string& path = settings.bundle_record;
  if (path.empty()) return;
  // Keys this process has recorded already: most lookups of a running program are repeats.
  static std::mutex lock;
  static std::set<std::string> done;
  std::lock_guard<std::mutex> g(lock);
  const std::string id = path + "\n" + key + extension;
  if (done.count(id)) return;
  static bool warned = false;
  auto fail = [&](const std::string& why) {
    if (!warned) support::log(LogLevel::warning, "ROCJIT_BUNDLE_RECORD: cannot add kernel '{}' to '{}': {}",
                              label.kernel, path, why);
    warned = true;
  };
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) return fail(std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { close(fd); }  // also releases the lock
  } closer{fd};
  while (flock(fd, LOCK_EX) != 0)
    if (errno != EINTR) return fail(std::strerror(errno));
  try {
    std::vector<StoredEntry> entries = parse(read_whole(path), path);
    const bool held = std::any_of(entries.begin(), entries.end(),
                                  [&](const StoredEntry& e) { return e.key == key && e.extension == extension; });
    if (!held) {
      entries.push_back({key, extension, label.kernel, label.target, cache::payload_checksum(payload), payload});
      const std::string bytes = serialize(entries);
      // In place, under the lock: other recorders wait for it; a rename would leave them holding
      // the lock of a file no longer in place.
      if (ftruncate(fd, 0) != 0) return fail(std::strerror(errno));
      for (size_t at = 0; at < bytes.size();) {
        const ssize_t n = pwrite(fd, bytes.data() + at, bytes.size() - at, static_cast<off_t>(at));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return fail(std::strerror(errno));
        at += static_cast<size_t>(n);
      }
    }
    done.insert(id);
  } catch (const Error& e) {
    fail(e.what());
  }
}

std::string bundle_holdings(const std::string& kernel, const Settings& settings) {
  std::vector<std::shared_ptr<const Mounted>> ms = mounts(settings);
  if (ms.empty()) return "no bundle is mounted (ROCJIT_BUNDLE)";
  std::vector<std::string> parts;
  for (const auto& m : ms) {
    if (!m->failure.empty()) {
      parts.push_back(fmt::format("'{}' is not used ({})", m->path, m->failure));
      continue;
    }
    std::set<std::string> targets;
    for (const StoredEntry& e : m->entries)
      if (e.kernel == kernel) targets.insert(e.target);
    parts.push_back(targets.empty() ? fmt::format("'{}' holds no kernel '{}' ({} entries)", m->path, kernel,
                                                  m->entries.size())
                                    : fmt::format("'{}' holds kernel '{}' for {} (none with this target, options "
                                                  "and IR)",
                                                  m->path, kernel, target_list(targets)));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace cache

namespace bundle {

std::vector<Entry> list(const std::string& path) {
  std::vector<Entry> out;
  for (StoredEntry& e : parse(read_whole(path), path))
    out.push_back({e.kernel, e.target, e.key, e.extension == ".rjho", e.payload.size()});
  return out;
}

void merge(const std::string& output, const std::vector<std::string>& inputs) {
  std::vector<StoredEntry> all;
  std::set<std::string> keys;
  for (const std::string& in : inputs)
    for (StoredEntry& e : parse(read_whole(in), in))
      if (keys.insert(e.key + e.extension).second) {
        if (cache::payload_checksum(e.payload) != e.checksum)
          throw Error(fmt::format("bundle '{}': the entry of kernel '{}' for {} is corrupt", in, e.kernel, e.target));
        all.push_back(std::move(e));
      }
  if (std::string failure = write_file_atomically(output, serialize(all)); !failure.empty())
    throw Error(fmt::format("bundle '{}': {}", output, failure));
}

std::vector<uint8_t> fat_binary(const std::string& path, const std::string& kernel, const std::string& key) {
  std::map<std::string, const StoredEntry*> by_processor;
  std::vector<StoredEntry> entries = parse(read_whole(path), path);
  std::set<std::string> kernels;
  for (const StoredEntry& e : entries) {
    if (e.extension != ".rjco") continue;
    kernels.insert(e.kernel);
    if (e.kernel != kernel || e.key.rfind(key, 0) != 0) continue;
    const StoredEntry*& slot = by_processor[processor_of(e.target)];
    if (slot)
      throw Error(fmt::format("bundle '{}': kernel '{}' has two code objects for {} (keys {} and {}); name one "
                              "with its key",
                              path, kernel, processor_of(e.target), slot->key, e.key));
    slot = &e;
  }
  if (by_processor.empty())
    throw Error(fmt::format("bundle '{}' holds no AMDGPU code object of kernel '{}'{} (it holds code objects of: {})",
                            path, kernel, key.empty() ? "" : fmt::format(" with key {}...", key),
                            kernels.empty() ? "none" : fmt::format("{}", fmt::join(kernels, ", "))));
  std::vector<std::pair<std::string, std::vector<uint8_t>>> code_objects;
  for (const auto& [processor, e] : by_processor) {
    std::optional<std::vector<uint8_t>> elf = cache::code_object_elf(e->payload);
    if (!elf || cache::payload_checksum(e->payload) != e->checksum)
      throw Error(fmt::format("bundle '{}': the entry of kernel '{}' for {} is corrupt", path, kernel, e->target));
    code_objects.emplace_back(processor, std::move(*elf));
  }
  return fat_binary_of(code_objects);
}

std::vector<uint8_t> fat_binary_of(const std::vector<std::pair<std::string, std::vector<uint8_t>>>& code_objects) {
  struct Part {
    std::string id;
    const std::vector<uint8_t>* bytes;
  };
  const std::vector<uint8_t> none;
  std::vector<Part> parts{{"host-x86_64-unknown-linux-gnu-", &none}};
  for (const auto& [processor, elf] : code_objects) parts.push_back({"hipv4-amdgcn-amd-amdhsa--" + processor, &elf});
  uint64_t header = fat_magic.size() + 8;
  for (const Part& p : parts) header += 24 + p.id.size();
  std::string out;
  support::ByteWriter w(out);
  w.bytes(fat_magic);
  w.put<uint64_t>(parts.size());
  uint64_t at = header;
  std::vector<uint64_t> offsets;
  for (const Part& p : parts) {
    if (!p.bytes->empty()) at = (at + fat_alignment - 1) / fat_alignment * fat_alignment;
    offsets.push_back(at);
    w.put<uint64_t>(at);
    w.put<uint64_t>(p.bytes->size());
    w.text<uint64_t>(p.id);
    at += p.bytes->size();
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    out.resize(offsets[i], '\0');
    out.append(reinterpret_cast<const char*>(parts[i].bytes->data()), parts[i].bytes->size());
  }
  return std::vector<uint8_t>(out.begin(), out.end());
}

bool is_fat_binary(const void* image, size_t size) {
  return image && size >= fat_magic.size() && std::memcmp(image, fat_magic.data(), fat_magic.size()) == 0;
}

std::vector<uint8_t> fat_binary_entry(const void* image, size_t size, const std::string& processor) {
  if (!is_fat_binary(image, size)) throw Error("not a clang-offload-bundler fat binary (no __CLANG_OFFLOAD_BUNDLE__)");
  support::ByteReader r(std::string_view(static_cast<const char*>(image), size), fat_magic.size());
  const uint64_t count = r.get<uint64_t>();
  std::vector<std::string> ids;
  for (uint64_t i = 0; i < count && r.ok(); ++i) {
    const uint64_t offset = r.get<uint64_t>(), bytes = r.get<uint64_t>();
    const std::string id = r.text<uint64_t>();
    if (!r.ok()) break;
    if (offset > size || bytes > size - offset)
      throw Error(fmt::format("fat binary entry '{}' lies outside the image ({} bytes at {}, image {} bytes)", id, bytes,
                              offset, size));
    ids.push_back(id);
    // "<kind>-amdgcn-amd-amdhsa-<environment>-<target id>", the environment usually empty and the
    // target id "gfx90a" or "gfx90a:sramecc+:xnack-".
    constexpr std::string_view triple = "amdgcn-amd-amdhsa-";
    const size_t t = id.find(triple);
    const size_t dash = t == std::string::npos ? std::string::npos : id.find('-', t + triple.size());
    const std::string target_id = dash == std::string::npos ? std::string() : id.substr(dash + 1);
    if (!target_id.empty() && target_id.substr(0, target_id.find(':')) == processor) {
      const auto* p = static_cast<const uint8_t*>(image) + offset;
      return std::vector<uint8_t>(p, p + bytes);
    }
  }
  if (!r.ok()) throw Error("fat binary header is truncated");
  throw Error(fmt::format("the fat binary has no code object for {}; its entries: {}", processor,
                          ids.empty() ? "none" : fmt::format("{}", fmt::join(ids, ", "))));
}

}  // namespace bundle
}  // namespace rocjit

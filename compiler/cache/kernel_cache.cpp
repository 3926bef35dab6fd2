// In-memory and on-disk kernel cache.
//
// Disk entries: <dir>/<key>.rjco (AMDGPU code objects) and <key>.rjho (host objects), written
// to a temporary file and renamed into place (write_file_atomically). Header: magic "RJCACHE1",
// format version, the 32-hex-digit key, payload length and an XXH3-64 checksum of the payload;
// anything that does not verify (including entries of format 1, whose keys and checksums were
// FNV-1a) is ignored and replaced. Keys are XXH3-128 hashes (xxHash). Nothing here uses LLVM: a
// cache hit needs no compiler. The directory is
// bounded by Settings::cache_max_mb (ROCJIT_CACHE_MAX_MB, default 512) with least-recently-used
// eviction (a hit refreshes the entry's modification time). The memory level holds at most
// Settings::cache_memory_entries (ROCJIT_CACHE_MEMORY_ENTRIES, default 1024) code objects and as
// many host kernels, least recently used forgotten first. Each lookup takes these, and the
// directory, from the settings of the compile that asks.
#include "cache/kernel_cache.h"

#include "cache/bundle.h"
#include "loader/compiler.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <utime.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <future>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <type_traits>
#include <unordered_map>
#include <vector>

// XXH3 (libxxhash-dev's header, inlined: nothing to link).
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "rocjit/compiler/cache.hpp"
#include "rocjit/compiler/device_print.hpp"
#include "rocjit/compiler/printer.hpp"
#include "rocjit/compiler/time_trace.hpp"
#include "support/atomic_file.h"
#include "rocjit/support/bytes.h"
#include "rocjit/support/log.h"
#include "rocjit/support/settings.h"

namespace rocjit {
namespace {

namespace fs = std::filesystem;

constexpr char magic[8] = {'R', 'J', 'C', 'A', 'C', 'H', 'E', '1'};
// 1: FNV-1a keys and checksums; 2: XXH3-128 keys, XXH3-64 checksums; 3: code-object entries carry
// the kernel's print table and host entries its print table too; 4: host entries hold a shared
// object (loaded with dlopen) instead of a relocatable object for ORC, and code-object entries the
// kernels' metadata (read without LLVM, not from the ELF's note); 5: race-checked host entries
// list the array parameters a launch may leave unchecked (HostRaceArray); 6: ... with group and
// local dimensions and a bound per index position, and the shared arrays whose reads go unchecked
// once written (HostRaceShared).
constexpr uint32_t format_version = 6;

struct Header {
  char magic[8];
  uint32_t version;
  uint32_t reserved;
  char key[32];
  uint64_t payload_bytes;
  uint64_t checksum;
};

struct Counters {
  std::atomic<uint64_t> memory_hits{0}, disk_hits{0}, bundle_hits{0}, misses{0}, disk_writes{0}, disk_rejected{0};
};
Counters counters;

// The in-memory level: at most Settings::cache_memory_entries values per kind, least recently
// used forgotten first. A forgotten host kernel that is still in use elsewhere (a device holds it)
// stays findable through `alive`: its JIT'd code is loaded once, and loading its object again
// under the same symbol would clash.

template <class V>
struct Level {
  struct Entry {
    std::shared_future<V> value;
    std::list<std::string>::iterator order;
    uint64_t serial;  // tells a failed build's own entry from a later one under the same key
  };
  std::unordered_map<std::string, Entry> entries;
  std::list<std::string> order;  // most recently used first
  std::unordered_map<std::string, std::weak_ptr<const void>> alive;  // host kernels only
  size_t alive_sweep_at = 64;
  uint64_t next_serial = 0;

  // Moves the oldest entries out (the caller destroys them after releasing memory_lock: a host
  // kernel's destructor removes its code from the JIT).
  void trim(std::vector<std::shared_future<V>>& forgotten, size_t limit) {
    while (entries.size() > limit) {
      auto victim = entries.find(order.back());
      if constexpr (std::is_same_v<V, std::shared_ptr<const void>>) remember_alive(victim->first, victim->second.value);
      forgotten.push_back(std::move(victim->second.value));
      entries.erase(victim);
      order.pop_back();
    }
  }
  void remember_alive(const std::string& key, const std::shared_future<V>& value) {
    if (value.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;  // still building
    try {
      alive[key] = value.get();
    } catch (...) {  // a failed build: nothing to remember
    }
    if (alive.size() >= alive_sweep_at) {
      std::erase_if(alive, [](const auto& a) { return a.second.expired(); });
      alive_sweep_at = std::max<size_t>(64, 2 * alive.size());
    }
  }
};

std::mutex memory_lock;
Level<CodeObject> memory;
Level<std::shared_ptr<const void>> lasting;
uint64_t memory_evictions = 0;  // under memory_lock

void reject(const std::string& path) {
  ++counters.disk_rejected;
  std::error_code ec;
  fs::remove(path, ec);
}

void warn_once(const std::string& what) {
  static std::atomic<bool> said{false};
  if (!said.exchange(true)) support::log(LogLevel::warning, "kernel disk cache disabled for now: {}", what);
}

// Payload: code object version (u32), each kernel's metadata (write_metadata), the print table
// (write_print_table), the ELF (u64 length + bytes); little-endian.
void write_metadata(support::ByteWriter& w, const KernelMetadata& k) {
  w.text(k.name);
  w.text(k.symbol);
  for (uint64_t v : {k.kernarg_segment_size, k.kernarg_segment_align, k.group_segment_fixed_size,
                     k.private_segment_fixed_size})
    w.put<uint64_t>(v);
  for (uint32_t v : {k.vgpr_count, k.sgpr_count, k.agpr_count, k.vgpr_spill_count, k.sgpr_spill_count,
                     k.wavefront_size, k.max_flat_workgroup_size})
    w.put<uint32_t>(v);
  w.put<uint32_t>(static_cast<uint32_t>(k.args.size()));
  for (const KernelArgument& a : k.args) {
    w.text(a.name);
    w.put<uint64_t>(a.offset);
    w.put<uint64_t>(a.size);
    w.text(a.value_kind);
  }
}

bool read_metadata(support::ByteReader& r, KernelMetadata& k) {
  k.name = r.text();
  k.symbol = r.text();
  for (uint64_t* v : {&k.kernarg_segment_size, &k.kernarg_segment_align, &k.group_segment_fixed_size,
                      &k.private_segment_fixed_size})
    *v = r.get<uint64_t>();
  for (uint32_t* v : {&k.vgpr_count, &k.sgpr_count, &k.agpr_count, &k.vgpr_spill_count, &k.sgpr_spill_count,
                      &k.wavefront_size, &k.max_flat_workgroup_size})
    *v = r.get<uint32_t>();
  const uint32_t args = r.get<uint32_t>();
  if (!r.ok() || args > 65536) return false;
  k.args.resize(args);
  for (KernelArgument& a : k.args) {
    a.name = r.text();
    a.offset = r.get<uint64_t>();
    a.size = r.get<uint64_t>();
    a.value_kind = r.text();
  }
  return r.ok();
}

std::string serialize(const CodeObject& co) {
  std::string out;
  support::ByteWriter w(out);
  w.put<uint32_t>(static_cast<uint32_t>(co.code_object_version));
  w.put<uint32_t>(static_cast<uint32_t>(co.kernels.size()));
  for (const KernelMetadata& k : co.kernels) write_metadata(w, k);
  write_print_table(out, co.prints ? *co.prints : PrintTable{});
  w.text(std::string_view(reinterpret_cast<const char*>(co.elf.data()), co.elf.size()));
  return out;
}

bool deserialize(const std::string& in, const Target& target, CodeObject& co) {
  support::ByteReader r(in);
  const uint32_t version = r.get<uint32_t>(), count = r.get<uint32_t>();
  if (!r.ok() || count > 4096) return false;
  std::vector<KernelMetadata> kernels(count);
  for (KernelMetadata& k : kernels)
    if (!read_metadata(r, k)) return false;
  size_t at = r.offset();
  auto prints = std::make_shared<PrintTable>();
  if (!read_print_table(in, at, *prints)) return false;
  support::ByteReader rest(in, at);
  const std::string_view elf = rest.bytes(rest.get<uint64_t>());
  if (!rest.whole()) return false;
  co.target = target;
  co.code_object_version = static_cast<int>(version);
  co.elf.assign(elf.begin(), elf.end());
  co.prints = std::move(prints);
  co.kernels = std::move(kernels);
  return true;
}

bool ensure_directory(const std::string& dir) {
  std::error_code ec;
  if (fs::is_directory(dir, ec)) return true;
  fs::create_directories(fs::path(dir).parent_path(), ec);
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    warn_once(fmt::format("cannot create {}: {}", dir, std::strerror(errno)));
    return false;
  }
  return true;
}

// The payload of a verified entry, or nullopt (a bad entry is counted and removed: the fresh
// compile replaces it).
std::optional<std::string> read_entry(const std::string& path, const std::string& key) {
  std::string bytes;
  if (!read_whole_file(path, bytes).empty()) return std::nullopt;
  Header h{};
  bool ok = bytes.size() >= sizeof h;
  if (ok) std::memcpy(&h, bytes.data(), sizeof h);
  ok = ok && std::memcmp(h.magic, magic, sizeof magic) == 0 && h.version == format_version &&
       std::memcmp(h.key, key.data(), 32) == 0 && h.payload_bytes == bytes.size() - sizeof h;
  std::string payload = ok ? bytes.substr(sizeof h) : std::string();
  if (!ok || cache::payload_checksum(payload) != h.checksum) {
    reject(path);
    return std::nullopt;
  }
  utime(path.c_str(), nullptr);  // most recently used
  return payload;
}

// What this process knows of a directory's size under one bound: the total its last scan found
// after evicting, plus what it wrote since. A scan (a stat of every entry) is made by the first
// write under a (directory, bound), and then only when this estimate passes the bound or this
// process has written a sixteenth of it since the last scan, so the files other processes write
// are counted at the latest then: together they may pass the bound by that much per process
// until the next scan.
struct DirectoryEstimate {
  uint64_t total = 0, written_since_scan = 0;
};
std::mutex estimates_lock;
std::map<std::pair<std::string, uint64_t>, DirectoryEstimate> estimates;  // under estimates_lock

void evict(const std::string& dir, uint64_t limit, uint64_t written) {
  {
    std::lock_guard<std::mutex> g(estimates_lock);
    auto found = estimates.find({dir, limit});
    if (found != estimates.end()) {
      DirectoryEstimate& e = found->second;
      e.total += written;
      e.written_since_scan += written;
      if (e.total <= limit && e.written_since_scan <= limit / 16) return;
    }
  }
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> entries;
  uint64_t total = 0;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".rjco" && e.path().extension() != ".rjho") continue;
    total += e.file_size(ec);
    entries.emplace_back(e.last_write_time(ec), e.path());
  }
  if (total > limit) {
    std::sort(entries.begin(), entries.end());
    for (const auto& [time, path] : entries) {
      if (total <= limit) break;
      uint64_t size = fs::file_size(path, ec);
      if (fs::remove(path, ec)) total -= size;
    }
  }
  std::lock_guard<std::mutex> g(estimates_lock);
  estimates[{dir, limit}] = DirectoryEstimate{total, 0};
}

void write_entry(const std::string& dir, const std::string& key, const char* extension, const std::string& payload,
                 uint64_t max_bytes) {
  Header h{};
  std::memcpy(h.magic, magic, sizeof magic);
  h.version = format_version;
  std::memcpy(h.key, key.data(), 32);
  h.payload_bytes = payload.size();
  h.checksum = cache::payload_checksum(payload);
  std::string bytes(reinterpret_cast<const char*>(&h), sizeof h);
  bytes += payload;
  if (std::string failure = write_file_atomically(fmt::format("{}/{}{}", dir, key, extension), bytes); !failure.empty()) {
    warn_once(failure);
    return;
  }
  ++counters.disk_writes;
  evict(dir, max_bytes, bytes.size());
}

// Memory (`level`; concurrent callers of one key wait for the first), then <dir>/<key><extension>
// (`decode` gives nullopt for a payload it cannot use: the entry is rejected), then `build`,
// which returns the value and the payload to store. A failed build is not remembered: the next
// call reports the error again.
template <class V>
V two_levels(Level<V>& level, const std::string& key, const char* extension, const Settings& settings,
             const cache::EntryLabel& label, const std::function<std::optional<V>(const std::string&)>& decode,
             const std::function<std::pair<V, std::string>()>& build) {
  std::optional<time_trace::Phase> lookup_phase(std::in_place, "cache lookup");
  std::promise<V> promise;
  std::shared_future<V> future;
  bool owner = false;
  uint64_t serial = 0;
  std::vector<std::shared_future<V>> forgotten;  // destroyed after the lock is released
  {
    std::lock_guard<std::mutex> g(memory_lock);
    auto it = level.entries.find(key);
    if (it != level.entries.end()) {
      future = it->second.value;
      level.order.splice(level.order.begin(), level.order, it->second.order);
    } else {
      if constexpr (std::is_same_v<V, std::shared_ptr<const void>>) {
        // Forgotten by the cache but still in use: take it back instead of loading it twice.
        if (auto a = level.alive.find(key); a != level.alive.end()) {
          if (std::shared_ptr<const void> value = a->second.lock()) {
            std::promise<V> ready;
            ready.set_value(value);
            future = ready.get_future().share();
          }
          level.alive.erase(a);
        }
      }
      owner = !future.valid();
      if (owner) future = promise.get_future().share();
      level.order.push_front(key);
      serial = level.next_serial++;
      level.entries.emplace(key, typename Level<V>::Entry{future, level.order.begin(), serial});
      const size_t before = level.entries.size();
      level.trim(forgotten, settings.cache_memory_entries);
      memory_evictions += before - level.entries.size();
    }
  }
  if (!owner) {  // another call builds (or built) this key: wait for its result
    ++counters.memory_hits;
    V value = future.get();
    lookup_phase.reset();
    time_trace::current_record_cache("memory");
    return value;
  }
  lookup_phase.reset();
  try {
    std::optional<V> value;
    // Bundles (read-only, keyed by `key` itself), then the disk cache (named by the key and this
    // binary's identity), then the build.
    if (!settings.bundles.empty()) {
      time_trace::Phase phase("load");
      if (std::optional<std::string> payload = cache::bundled(key, extension, settings)) {
        value = decode(*payload);
        if (value) {
          ++counters.bundle_hits;
          time_trace::current_record_cache("bundle");
          cache::record(settings, key, extension, label, *payload);
        }
      }
    }
    const std::string dir = value ? std::string() : cache::directory(settings);
    const std::string name = dir.empty() ? std::string() : cache::disk_name(key);
    const std::string path = dir.empty() ? std::string() : fmt::format("{}/{}{}", dir, name, extension);
    if (!dir.empty()) {
      time_trace::Phase phase("load");
      if (std::optional<std::string> payload = read_entry(path, name)) {
        value = decode(*payload);
        if (!value) reject(path);
        else {
          ++counters.disk_hits;
          time_trace::current_record_cache("disk");
          cache::record(settings, key, extension, label, *payload);
        }
      }
    }
    if (!value) {
      ++counters.misses;
      time_trace::current_record_cache("miss");
      auto [built, payload] = build();
      value = std::move(built);
      if (!dir.empty() && ensure_directory(dir)) write_entry(dir, name, extension, payload, settings.cache_max_mb << 20);
      cache::record(settings, key, extension, label, payload);
    }
    promise.set_value(*value);
    return *value;
  } catch (...) {
    promise.set_exception(std::current_exception());
    std::lock_guard<std::mutex> g(memory_lock);
    auto it = level.entries.find(key);
    if (it != level.entries.end() && it->second.serial == serial) {  // not forgotten and replaced meanwhile
      level.order.erase(it->second.order);
      level.entries.erase(it);
    }
    throw;
  }
}

}  // namespace

CacheStats cache_stats() {
  CacheStats stats{counters.memory_hits, counters.disk_hits, counters.misses, counters.disk_writes,
                   counters.disk_rejected};
  std::lock_guard<std::mutex> g(memory_lock);
  stats.memory_code_objects = memory.entries.size();
  stats.memory_host_kernels = lasting.entries.size();
  stats.memory_evictions = memory_evictions;
  stats.bundle_hits = counters.bundle_hits;
  return stats;
}

size_t memory_cache_limit() { return support::current_settings()->cache_memory_entries; }

void clear_memory_cache() {
  std::vector<std::shared_future<CodeObject>> code_objects;  // destroyed after the lock is released
  std::vector<std::shared_future<std::shared_ptr<const void>>> host_kernels;
  std::lock_guard<std::mutex> g(memory_lock);
  memory.trim(code_objects, 0);
  lasting.trim(host_kernels, 0);
}

std::string cache_directory() { return cache::directory(*support::current_settings()); }

namespace cache {

std::string directory(const Settings& settings) {
  if (!settings.disk_cache) return {};
  return settings.cache_dir.empty() ? support::default_cache_directory() : settings.cache_dir;
}

std::string ir_fingerprint(const ir::Kernel& kernel) {
  ir::PrintOptions no_locations;
  no_locations.locations = false;
  return hash_key(ir::print(kernel, no_locations));
}

const std::string& portable_identity() {
  static const std::string identity =
      fmt::format("rocjit {}|LLVM {}|cache format {}", ROCJIT_VERSION, ROCJIT_LLVM_VERSION, format_version);
  return identity;
}

std::string disk_name(const std::string& key) { return hash_key(build_identity() + "|" + key); }

std::optional<std::vector<uint8_t>> code_object_elf(const std::string& payload) {
  CodeObject co;
  if (!deserialize(payload, Target{}, co)) return std::nullopt;
  return std::move(co.elf);
}

std::string key(const std::string& ir_fingerprint, const std::string& target_identity, const CompileOptions& options) {
  const std::string block = options.block ? fmt::format("{}x{}x{}", options.block->x, options.block->y, options.block->z)
                                          : std::string("any");
  return hash_key(fmt::format("{}|{}|cov{}|O{}|block {}|{}{}{}{}", portable_identity(), target_identity,
                              options.code_object_version, options.opt_level, block,
                              options.bounds_check ? "checked|" : "", options.check_races ? "races|" : "",
                              options.fast_math ? "fast|" : "", ir_fingerprint));
}

CodeObject lookup_or_compile(const std::string& key, const Target& target, const Settings& settings,
                             const EntryLabel& label, const std::function<CodeObject()>& compile) {
  return two_levels<CodeObject>(
      memory, key, ".rjco", settings, label,
      [&](const std::string& payload) -> std::optional<CodeObject> {
        CodeObject co;
        if (!deserialize(payload, target, co)) return std::nullopt;
        return co;
      },
      [&] {
        CodeObject co = compile();
        std::string payload = serialize(co);
        return std::make_pair(std::move(co), std::move(payload));
      });
}

const std::string& build_identity() {
  static const std::string identity = [] {
    std::string id = fmt::format("rocjit {}|LLVM {}", ROCJIT_VERSION, ROCJIT_LLVM_VERSION);
    Dl_info info{};
    struct stat st {};
    if (dladdr(reinterpret_cast<void*>(&build_identity), &info) && info.dli_fname && stat(info.dli_fname, &st) == 0)
      id += fmt::format("|{} bytes, modified {}.{:09}", st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    // The code comes from the compiler library, which may be rebuilt alone.
    return id + "|compiler " + loader::compiler_file_identity();
  }();
  return identity;
}

uint64_t payload_checksum(std::string_view payload) { return XXH3_64bits(payload.data(), payload.size()); }

std::string hash_key(const std::string& text) {
  const XXH128_hash_t h = XXH3_128bits(text.data(), text.size());
  return fmt::format("{:016x}{:016x}", h.high64, h.low64);
}

namespace {

bool on_disk(const std::string& key, const char* extension, const Settings& settings) {
  if (in_bundles(key, extension, settings)) return true;
  const std::string dir = directory(settings);
  if (dir.empty()) return false;
  std::error_code ignored;
  return std::filesystem::is_regular_file(fmt::format("{}/{}{}", dir, disk_name(key), extension), ignored);
}

template <class V>
bool ready_in(const Level<V>& level, const std::string& key) {
  auto it = level.entries.find(key);
  return it != level.entries.end() && it->second.value.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

}  // namespace

bool cached(const std::string& key, const char* extension, const Settings& settings) {
  {
    std::lock_guard<std::mutex> g(memory_lock);
    if (ready_in(lasting, key)) return true;
    if (auto a = lasting.alive.find(key); a != lasting.alive.end() && !a->second.expired()) return true;
  }
  return on_disk(key, extension, settings);
}

bool code_object_cached(const std::string& key, const Settings& settings) {
  {
    std::lock_guard<std::mutex> g(memory_lock);
    if (ready_in(memory, key)) return true;
  }
  return on_disk(key, ".rjco", settings);
}

AnyValue lookup_or_build(const std::string& key, const char* extension, const Settings& settings,
                         const EntryLabel& label, const std::function<AnyValue(const std::string& payload)>& decode,
                         const std::function<std::pair<AnyValue, std::string>()>& build) {
  return two_levels<AnyValue>(
      lasting, key, extension, settings, label,
      [&](const std::string& payload) -> std::optional<AnyValue> {
        AnyValue value = decode(payload);
        if (!value) return std::nullopt;
        return value;
      },
      build);
}

}  // namespace cache
}  // namespace rocjit

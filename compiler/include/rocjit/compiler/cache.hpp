// The kernel cache: compiled AMDGPU code objects and host-JIT objects, keyed by a content hash
// of the kernel IR, the target (for the host: triple, CPU and features), the options and the
// compiler's version; in memory and on disk (<key>.rjco, <key>.rjho).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace rocjit {

/// Counters of the kernel cache since the process started (cache_stats()).
struct CacheStats {
  /// Compiles answered from memory.
  uint64_t memory_hits = 0;
  /// Compiles answered from the on-disk cache.
  uint64_t disk_hits = 0;
  uint64_t misses = 0;         ///< compiled
  /// Entries written to the on-disk cache.
  uint64_t disk_writes = 0;
  uint64_t disk_rejected = 0;  ///< corrupt, truncated, foreign or wrong-version entries ignored
  /// The memory level now: entries held (each at most memory_cache_limit()) and how many
  /// least-recently-used entries it has forgotten so far.
  uint64_t memory_code_objects = 0;
  /// Host kernels held in memory now.
  uint64_t memory_host_kernels = 0;
  /// Entries the memory level has forgotten so far (least recently used first).
  uint64_t memory_evictions = 0;
  /// Compiles answered from a mounted bundle (Settings::bundles, ROCJIT_BUNDLE).
  uint64_t bundle_hits = 0;
};

/// The cache's counters and sizes now.
CacheStats cache_stats();
/// How many AMDGPU code objects, and separately how many host kernels, the memory level keeps:
/// Settings::cache_memory_entries (ROCJIT_CACHE_MEMORY_ENTRIES, default 1024) now. The least
/// recently used go first; a forgotten host kernel's JIT'd code is freed when nothing else (a
/// device, a HostKernel) holds it.
size_t memory_cache_limit();
/// Forgets the in-memory code objects and host kernels (the on-disk cache stays). Host kernels
/// still held elsewhere stay in the process and are found again by later compiles.
void clear_memory_cache();
/// The on-disk cache directory the settings in force give: Settings::cache_dir
/// (ROCJIT_CACHE_DIR), else $XDG_CACHE_HOME/rocjit, else ~/.cache/rocjit; empty when
/// Settings::disk_cache is off (ROCJIT_CACHE=0).
std::string cache_directory();

}  // namespace rocjit

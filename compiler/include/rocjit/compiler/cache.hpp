// The kernel cache: compiled AMDGPU code objects and host-JIT objects, keyed by a content hash
// of the kernel IR, the target (for the host: triple, CPU and features), the options and the
// compiler's version; in memory and on disk (<key>.rjco, <key>.rjho).
#pragma once

#include <cstdint>
#include <string>

namespace rocjit {

struct CacheStats {
  uint64_t memory_hits = 0;
  uint64_t disk_hits = 0;
  uint64_t misses = 0;         // compiled
  uint64_t disk_writes = 0;
  uint64_t disk_rejected = 0;  // corrupt, truncated, foreign or wrong-version entries ignored
};

CacheStats cache_stats();
// Forgets the in-memory code objects (the on-disk cache stays). Host kernels stay: their JIT'd
// code lives as long as the process.
void clear_memory_cache();
// The on-disk cache directory in use: $ROCJIT_CACHE_DIR, else $XDG_CACHE_HOME/rocjit, else
// ~/.cache/rocjit; empty when ROCJIT_CACHE=0 disables the disk cache.
std::string cache_directory();

}  // namespace rocjit

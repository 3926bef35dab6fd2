// One interface per kind of target. compile() (compiler/loader/compile.cpp) runs the one pipeline:
// settings snapshot, the options the settings add (bounds checking), the backend's option checks,
// verification and the IR fingerprint, dumps, the cache policy and key, then the backend's build
// (lower, optimise, emit, link or load) or its cached form. A backend decides only what differs
// by target: what identifies the machine the code runs on, which options and limits it accepts,
// how a kernel is built, and how a built kernel is stored in and read back from the cache.
//
// The backends live in librocjit (loader/backends.cpp) and need no LLVM: identity, checks and the
// cache are theirs; building a kernel is the compiler library's (loader/compiler.h), loaded on
// the first build.
#pragma once

#include <string>

#include "rocjit/compiler/compile.hpp"
#include "rocjit/settings.hpp"

namespace rocjit::targets {

// One compile as the pipeline hands it to a backend: the options are final (the settings'
// additions applied, the texts a dump needs requested).
struct Job {
  const ir::Kernel& kernel;
  const Target& target;
  const CompileOptions& options;
  const Settings& settings;
  const CompileOptions& requested;  // the caller's options, before the pipeline's additions
};

class Backend {
 public:
  virtual ~Backend() = default;
  // What the code is made for, in cache keys: Target::str() and the math library for AMDGPU;
  // the triple, CPU and features for the host.
  virtual std::string identity(const Job& job) const = 0;
  // Throws CompileError for options and kernels this target cannot compile (opt level, code
  // object version, work-group shape, shared and private memory limits). Before anything else.
  virtual void check(const Job& job) const = 0;
  // Compiles afresh, outside the cache.
  virtual CodeObject build(const Job& job) const = 0;
  // Through the kernel cache under `key` (cache::key): memory, disk, else build and store.
  virtual CodeObject build_cached(const Job& job, const std::string& key) const = 0;
  // Whether build_cached would find `key` without building.
  virtual bool cached(const Job& job, const std::string& key) const = 0;
};

// The backend of `target.kind`.
const Backend& backend_for(const Target& target);

// The backends (loader/backends.cpp).
const Backend& amdgpu_backend();
const Backend& host_backend();

// The checks an AMDGPU compile makes before the cache is asked (code object version, O-level,
// LDS); the processor and its features are the compiler's to check (check_target), when it builds.
void check_amdgpu(const Job& job);

}  // namespace rocjit::targets

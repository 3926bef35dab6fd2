// The kernel cache's read-only level and its recorder: bundles (rocjit/compiler/bundle.hpp).
#pragma once

#include <optional>
#include <string>

#include "rocjit/settings.hpp"

namespace rocjit::cache {

// What a cache entry holds, for bundles' listings and errors.
struct EntryLabel {
  std::string kernel;  // the kernel's name
  std::string target;  // Target::str()
};

// The payload stored under `key` with `extension` (".rjco", ".rjho") in the first of the bundles
// `settings` mount (Settings::bundles) that holds it and whose checksum verifies, or nullopt.
// Bundles are opened on first use and kept for the process (a bundle that does not read is
// warned about once and skipped).
std::optional<std::string> bundled(const std::string& key, const char* extension, const Settings& settings);
// Whether bundled() would find it (checksums are not verified here).
bool in_bundles(const std::string& key, const char* extension, const Settings& settings);

// Adds the entry to Settings::bundle_record's file (created if missing; a key it holds already is
// left alone). Under an exclusive lock of the file, so processes may record into one bundle.
// Failures are warned about once; the compile itself goes on.
void record(const Settings& settings, const std::string& key, const char* extension, const EntryLabel& label,
            const std::string& payload);

// For the error of a kernel nothing holds: the mounted bundles and which targets each holds
// `kernel` for ("no bundle is mounted (ROCJIT_BUNDLE)" when none).
std::string bundle_holdings(const std::string& kernel, const Settings& settings);

}  // namespace rocjit::cache

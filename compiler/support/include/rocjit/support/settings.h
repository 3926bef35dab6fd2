// The settings in force, as the library reads them (rocjit/settings.hpp is the public side).
// support/settings.cpp is the one place in the library that reads environment variables.
#pragma once

#include <memory>
#include <string>

#include "rocjit/settings.hpp"

namespace rocjit::support {

// The settings in force, shared rather than copied: a compile or launch takes them once when it
// starts and passes them on. Reads the environment on the first call.
std::shared_ptr<const Settings> current_settings();

// Where the on-disk cache is when Settings::cache_dir is empty: $XDG_CACHE_HOME/rocjit, else
// $HOME/.cache/rocjit, else the password database's home directory + /.cache/rocjit, as the
// environment was when the settings were first read; empty when there is no home directory.
const std::string& default_cache_directory();

}  // namespace rocjit::support

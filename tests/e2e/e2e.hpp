// Shared by the end-to-end tests: the device under test (chosen on the command line).
#pragma once

#include <rocjit/rocjit.hpp>

namespace rocjit::testing {
Device& test_device();
// The wave size of the kernels the device under test runs, read back from a kernel.
int device_wave_size();
}

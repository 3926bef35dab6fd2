// Shared by the end-to-end tests: the device under test (chosen on the command line).
#pragma once

#include <rocjit/rocjit.hpp>

namespace rocjit::testing {
Device& test_device();
}

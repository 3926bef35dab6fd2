// Runs the end-to-end tests on one device: `rocjit-e2e --device=cpu|interp|hip[:N]|sim[:<processor>] [catch options]`.
// Exits with 77 (reported by ctest as skipped, never as passed) when the device is absent.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "e2e.hpp"

namespace rocjit::testing {
Device& test_device() {
  static Device d;
  return d;
}

int device_wave_size() {
  using namespace rocjit::dsl;
  Kernel k = kernel("wave_size_probe", [](Array<int32_t> out) { out(global_id(0)) = wave_size(); });
  auto d = device_array<int32_t>({1});
  k[{1, 1}](d);
  return d.copy_to_host().to_vector()[0];
}
}  // namespace rocjit::testing

int main(int argc, char** argv) {
  std::string id = "cpu";
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--device=", 9) == 0)
      id = argv[i] + 9;
    else
      rest.push_back(argv[i]);
  }
  // A test filter that matches nothing fails the run (Catch2 otherwise passes it: "No tests ran").
  static char warn[] = "--warn", no_tests[] = "NoTests";
  rest.insert(rest.begin() + 1, {warn, no_tests});
  try {
    rocjit::testing::test_device() = rocjit::get_device(id);
  } catch (const rocjit::DeviceError& e) {
    std::printf("SKIPPED: no device '%s': %s\n", id.c_str(), e.what());
    return 77;
  }
  rocjit::set_default_device(rocjit::testing::test_device());
  std::printf("end-to-end tests on %s (%s, target %s)\n", id.c_str(), rocjit::testing::test_device().name().c_str(),
              rocjit::testing::test_device().target().c_str());
  return Catch::Session().run(static_cast<int>(rest.size()), rest.data());
}

// Prebuilt code objects: kernels written in OpenCL C, compiled by clang-22 at build time
// (prebuilt_kernels.cl), loaded and launched by name on the device under test.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numeric>

#include "e2e.hpp"

using namespace rocjit;
using Catch::Matchers::Contains;
using rocjit::testing::test_device;

namespace {
std::string object_for(const std::string& processor) {
  return std::string(ROCJIT_PREBUILT_DIR) + "/prebuilt_kernels-" + processor + ".hsaco";
}
}  // namespace

TEST_CASE("prebuilt code objects: a clang-compiled OpenCL C kernel runs with checked arguments") {
  const Device d = test_device();
  if (d.kind() == "cpu" || d.kind() == "interp") {
    CHECK_THROWS_AS(load_code_object_file(object_for("gfx942"), d), DeviceError);
    CHECK_THROWS_WITH(load_code_object_file(object_for("gfx942"), d), Contains("not AMDGPU code objects"));
    return;
  }
  const std::string path = object_for(d.processor());
  if (!std::filesystem::exists(path)) {
    WARN("no prebuilt object for " << d.processor() << " (the build compiles them for gfx942, gfx90a, gfx1100)");
    return;
  }
  Module m = load_code_object_file(path, d);
  CHECK(m.device() == d);
  CHECK(m.code().target.processor == d.processor());
  std::vector<std::string> names = m.kernel_names();
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"saxpy", "scale_long"});

  PrebuiltKernel saxpy = m.kernel("saxpy");
  CHECK(saxpy.metadata().max_flat_workgroup_size == 64);
  std::vector<const KernelArgument*> explicit_args;
  for (const KernelArgument& a : saxpy.metadata().args)
    if (a.value_kind.rfind("hidden_", 0) != 0) explicit_args.push_back(&a);
  REQUIRE(explicit_args.size() == 4);
  CHECK(explicit_args[0]->value_kind == "by_value");
  CHECK(explicit_args[0]->size == 4);
  CHECK(explicit_args[1]->value_kind == "global_buffer");

  const int n = 1000;
  std::vector<float> xs(n), ones(n, 1.0f);
  std::iota(xs.begin(), xs.end(), 0.0f);
  auto x = to_device(xs), y = to_device(ones);
  const int64_t groups = (n + 63) / 64;
  saxpy[{{groups}, {64}}](2.0f, x, y, n);
  HostArray<float> h = y.copy_to_host();
  for (int i = 0; i < n; ++i) REQUIRE(h(i) == 2.0f * i + 1.0f);

  // On a stream, with an integer narrowed to the kernel's uchar (its value fits).
  PrebuiltKernel scale = m.kernel("scale_long");
  std::vector<int64_t> vs(64);
  std::iota(vs.begin(), vs.end(), int64_t(1));
  auto v = to_device(vs);
  Stream s = stream(d);
  scale[{{1}, {64}, s}](v, int64_t(3), 2);
  HostArray<int64_t> hv = v.copy_to_host(s);
  s.synchronize();
  for (int i = 0; i < 64; ++i) REQUIRE(hv(i) == (int64_t(i + 1) * 3) << 2);

  // Bad launches are LaunchErrors naming the kernel and the argument; nothing runs.
  CHECK_THROWS_WITH(m.kernel("nope"), Contains("has no kernel 'nope'") && Contains("saxpy, scale_long"));
  CHECK_THROWS_WITH((saxpy[{{groups}, {64}}](2.0f, x, y)), Contains("'saxpy'") && Contains("takes 4 arguments"));
  CHECK_THROWS_WITH((saxpy[{{groups}, {64}}](2.0, x, y, n)),
                    Contains("argument 0") && Contains("cannot take a scalar f64 (8 bytes)"));
  CHECK_THROWS_WITH((saxpy[{{groups}, {64}}](x, x, y, n)), Contains("takes a scalar, but a DeviceArray<f32>"));
  CHECK_THROWS_WITH((saxpy[{{groups}, {64}}](2.0f, 1, y, n)), Contains("argument 1") && Contains("takes a DeviceArray"));
  CHECK_THROWS_WITH((scale[{{1}, {64}}](v, int64_t(3), 300)), Contains("argument 2") && Contains("1 bytes"));
  CHECK_THROWS_AS((saxpy[{{groups}, {128}}](2.0f, x, y, n)), LaunchError);
  CHECK(y.copy_to_host().to_vector() == h.to_vector());

  // Loading errors: not a code object, another processor, a missing file.
  CHECK_THROWS_WITH(load_code_object(std::vector<uint8_t>(64, 7), d), Contains("not a usable AMDGPU code object"));
  const std::string other = d.processor() == "gfx90a" ? "gfx942" : "gfx90a";
  CHECK_THROWS_WITH(load_code_object_file(object_for(other), d),
                    Contains("is for " + other) && Contains("is " + d.processor()));
  CHECK_THROWS_WITH(load_code_object_file("/nonexistent/k.hsaco", d), Contains("cannot open '/nonexistent/k.hsaco'"));
}

TEST_CASE("prebuilt code objects: a fat binary loads the entry for the device's processor") {
  const Device d = test_device();
  if (d.kind() == "cpu" || d.kind() == "interp") return;  // no code objects there (above)
  std::vector<std::pair<std::string, std::vector<uint8_t>>> objects;
  for (const char* processor : {"gfx90a", "gfx942", "gfx1100"}) {
    std::ifstream in(object_for(processor), std::ios::binary);
    if (in) objects.emplace_back(processor, std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {}));
  }
  const bool present = std::any_of(objects.begin(), objects.end(), [&](const auto& o) { return o.first == d.processor(); });
  if (!present) {
    WARN("no prebuilt object for " << d.processor());
    return;
  }
  const std::vector<uint8_t> fat = bundle::fat_binary_of(objects);
  Module m = load_code_object(fat, d, "the fat binary");
  CHECK(m.code().target.processor == d.processor());
  PrebuiltKernel saxpy = m.kernel("saxpy");
  const int n = 300;
  std::vector<float> xs(n), ones(n, 1.0f);
  std::iota(xs.begin(), xs.end(), 0.0f);
  auto x = to_device(xs), y = to_device(ones);
  saxpy[{{(n + 63) / 64}, {64}}](3.0f, x, y, n);
  HostArray<float> h = y.copy_to_host();
  for (int i = 0; i < n; ++i) REQUIRE(h(i) == 3.0f * i + 1.0f);

  // Without an entry for this processor: an error listing what the fat binary holds.
  std::vector<std::pair<std::string, std::vector<uint8_t>>> others;
  for (auto& o : objects)
    if (o.first != d.processor()) others.push_back(o);
  CHECK_THROWS_WITH(load_code_object(bundle::fat_binary_of(others), d, "the fat binary"),
                    Contains("the fat binary") && Contains("no code object for " + d.processor()) &&
                        Contains("host-x86_64-unknown-linux-gnu-"));
}

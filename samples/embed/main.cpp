// An application embedding rocjit: traces a kernel from a C++ lambda, runs it on the default
// device (the first AMD GPU, else the CPU; ROCJIT_DEVICE=cpu|hip:N overrides) and checks the
// result on the host. Prints PASS, or FAIL with what went wrong and exits 1.
#include <cmath>
#include <cstdio>
#include <vector>

#include <rocjit/rocjit.hpp>

int main() {
  using namespace rocjit;
  using namespace rocjit::dsl;
  try {
    // out(i) = x(i) * x(i) + offset, one work-item per element.
    Kernel square_plus = kernel("square_plus", [](Array<float> x, Array<float> out, Float offset) {
      Int i = global_id(0);
      If(i < x.shape(0), [&] { out(i) = x(i) * x(i) + offset; });
    }, {.param_names = {"x", "out", "offset"}});

    const int n = 1000;
    std::vector<float> x(n);
    for (int i = 0; i < n; ++i) x[i] = 0.5f * float(i % 41) - 10.0f;
    DeviceArray<float> dx = to_device(x);
    DeviceArray<float> dout = device_array<float>({n});
    square_plus[{(n + 255) / 256, 256}](dx, dout, 3.0f);
    HostArray<float> out = dout.copy_to_host();

    Device d = default_device();
    std::printf("embed: %s on %s (%s)\n", square_plus.signature().c_str(), d.id().c_str(), d.name().c_str());
    for (int i = 0; i < n; ++i) {
      float want = x[i] * x[i] + 3.0f;
      if (std::fabs(out.data()[i] - want) > 1e-6f * std::fabs(want)) {
        std::printf("FAIL out[%d] = %g, expected %g\n", i, out.data()[i], want);
        return 1;
      }
    }
  } catch (const Error& e) {
    std::printf("FAIL %s\n", e.what());
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}

// sample-smartarray: SmartArray keeps a host array and its device mirror and copies only when
// the other side changed (Numba's SmartArray). Launching saxpy over and over moves x and y to
// the device once; reading y on the host copies it back once; writing the host side and saying
// so with mark_changed() makes the next launch copy it to the device again. The transfer counts
// are printed and checked along with the values.
#include <string>
#include <tuple>

#include "common.hpp"
#include "sample_kernels.hpp"

using namespace rocjit;
using namespace rocjit::samples;

namespace {

struct Transfers {
  uint64_t to_device, to_host;
  bool operator==(const Transfers&) const = default;
};

template <class T>
Transfers transfers(const SmartArray<T>& s) {
  return {s.host_to_device_copies(), s.device_to_host_copies()};
}

std::string describe(const char* name, Transfers t) {
  return std::string(name) + ": host->device " + std::to_string(t.to_device) + ", device->host " +
         std::to_string(t.to_host);
}

}  // namespace

int main(int argc, char** argv) {
  const SampleInfo info{"smartarray", "SmartArray: saxpy launched repeatedly, copies only when needed", "elements",
                        1 << 20};
  Options options = parse_options(argc, argv, info);
  return run_sample(info, options, [](Options& o) {
    const int64_t n = o.size;
    const float a = 2.0f;
    // Small integers: y0 + k * a * x stays exact in float, so values compare exactly.
    std::vector<float> x0(n), y0(n);
    for (int64_t i = 0; i < n; ++i) x0[i] = float(i % 10), y0[i] = float(i % 7);
    SmartArray<float> x(x0), y(y0);  // on the default device, which run_sample() set

    Kernel k = saxpy();
    const Dim3 grid(groups_for(n, BLOCK)), block(BLOCK);
    Outcome out;
    auto keep_first_failure = [&](const std::string& what) {
      if (out.failure.empty()) out.failure = what;
    };
    // Prints the transfer counts at this point and records a failure if they are not `want`.
    auto expect = [&](const char* when, Transfers got_x, Transfers want_x, Transfers got_y, Transfers want_y) {
      std::printf("smartarray: %-28s %s; %s\n", when, describe("x", got_x).c_str(), describe("y", got_y).c_str());
      for (auto [name, got, want] : {std::tuple{"x", got_x, want_x}, std::tuple{"y", got_y, want_y}})
        if (!(got == want))
          keep_first_failure(std::string(when) + " " + describe(name, got) + ", expected " + describe(name, want));
    };

    // 1 + repeat launches (the first one, untimed, includes the compile and the first copies).
    // The launcher hands each SmartArray's device side to the kernel and marks it as changed
    // there: nothing is copied back until the host side is asked for.
    for (int run = 0; run <= o.repeat; ++run) {
      double ms = time_on_stream(Stream(), [&] { k[{grid, block}](a, x, y); });
      if (run > 0) out.ms.push_back(ms);
    }
    expect("after the launches:", transfers(x), {1, 0}, transfers(y), {1, 0});

    const float launches = float(o.repeat + 1);
    std::vector<float> want(n);
    for (int64_t i = 0; i < n; ++i) want[i] = y0[i] + launches * a * x0[i];
    HostArray<float>& host_y = y.host();  // copies y back: the device side changed
    keep_first_failure(compare(host_y.to_vector(), want));
    y.host();  // already up to date: no copy
    expect("after reading y twice:", transfers(x), {1, 0}, transfers(y), {1, 1});

    // Write the host side and say so: the next launch copies y (and only y) to the device.
    for (int64_t i = 0; i < n; ++i) host_y.data()[i] = 1.0f;
    y.mark_changed(Where::host);
    k[{grid, block}](a, x, y);
    for (int64_t i = 0; i < n; ++i) want[i] = 1.0f + a * x0[i];
    keep_first_failure(compare(y.host().to_vector(), want));
    expect("after a host write + launch:", transfers(x), {1, 0}, transfers(y), {2, 2});
    return out;
  });
}

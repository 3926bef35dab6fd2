// What identifies this machine's CPU in host kernels' cache keys, without LLVM: the processor's
// own description of itself (x86: the CPUID leaves LLVM reads to choose the CPU and its features,
// and the state the OS enables; elsewhere the kernel's /proc/cpuinfo without its changing fields).
// Two machines with the same identity get the same code from LLVM's host detection.
#include "loader/host_identity.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <string>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace rocjit::loader {
namespace {

std::string describe_processor() {
  std::string text;
#if defined(__x86_64__) || defined(__i386__)
  auto leaf = [&](unsigned l, unsigned sub) {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid_count(l, sub, &a, &b, &c, &d)) text += fmt::format("{:x}.{:x}:{:x},{:x},{:x},{:x};", l, sub, a, b, c, d);
  };
  unsigned max_leaf = __get_cpuid_max(0, nullptr), max_extended = __get_cpuid_max(0x80000000, nullptr);
  leaf(0, 0);  // vendor
  leaf(1, 0);  // family, model, stepping, features (the APIC id in ebx[31:24] masked below)
  if (max_leaf >= 7) {
    leaf(7, 0);
    leaf(7, 1);
  }
  if (max_leaf >= 0xd) leaf(0xd, 1);
  if (max_leaf >= 0x14) leaf(0x14, 0);
  if (max_leaf >= 0x19) leaf(0x19, 0);
  if (max_leaf >= 0x24) leaf(0x24, 0);
  for (unsigned l = 0x80000001; l <= std::min(max_extended, 0x80000008u); ++l) leaf(l, 0);
  // Leaf 1's ebx holds this core's APIC id: mask it so every core gives the same text.
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d)) {
    const std::string with = fmt::format("1.0:{:x},{:x},{:x},{:x};", a, b, c, d);
    const std::string without = fmt::format("1.0:{:x},{:x},{:x},{:x};", a, b & 0x00ffffffu, c, d);
    if (size_t at = text.find(with); at != std::string::npos) text.replace(at, with.size(), without);
  }
  // What the OS saves across context switches (AVX, AVX-512, AMX state): LLVM's feature check.
  if ((c & (1u << 27)) != 0) {  // OSXSAVE
    unsigned lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    text += fmt::format("xcr0:{:x}{:08x};", hi, lo);
  }
#else
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.empty()) break;  // the first processor only
    if (line.rfind("processor", 0) == 0 || line.rfind("BogoMIPS", 0) == 0 || line.rfind("bogomips", 0) == 0 ||
        line.rfind("cpu MHz", 0) == 0)
      continue;
    text += line + ";";
  }
#endif
  return text;
}

}  // namespace

const std::string& host_identity() {
  static const std::string identity = [] {
    const std::string text = describe_processor();
    const XXH128_hash_t h = XXH3_128bits(text.data(), text.size());
#if defined(__x86_64__)
    const char* arch = "x86_64";
#elif defined(__aarch64__)
    const char* arch = "aarch64";
#else
    const char* arch = "other";
#endif
    return fmt::format("host {} cpu {:016x}{:016x}", arch, h.high64, h.low64);
  }();
  return identity;
}

}  // namespace rocjit::loader

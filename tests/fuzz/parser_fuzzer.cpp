// Fuzz target for the .rjir parser (libFuzzer entry point; see scripts/fuzz.sh).
//
// Properties checked on every input:
//  - ir::parse_all either returns kernels or throws rocjit::Error; any other exception, crash,
//    sanitizer report or hang is a bug.
//  - Every parsed kernel has passed ir::verify, so printing it must succeed, and the printed
//    text must parse again and print identically (print -> parse -> print is the identity).
//
// The same function runs without libFuzzer in rocjit-parser-replay (replay.cpp), which the test
// suite uses to keep every input that once crashed as a regression.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "rocjit/compiler/error.hpp"
#include "rocjit/compiler/ir.hpp"
#include "rocjit/compiler/parser.hpp"
#include "rocjit/compiler/printer.hpp"
#include "rocjit/compiler/verifier.hpp"

namespace {

[[noreturn]] void property_failed(const char* what, const std::string& detail) {
  std::fprintf(stderr, "rocjit parser fuzz: %s\n%s\n", what, detail.c_str());
  std::abort();
}

void check_round_trip(const rocjit::ir::Kernel& kernel) {
  for (bool locations : {true, false}) {
    const std::string first = rocjit::ir::print(kernel, {.locations = locations});
    rocjit::ir::Kernel again;
    try {
      again = rocjit::ir::parse(first, "<printed>");
    } catch (const rocjit::Error& e) {
      property_failed("a printed kernel does not parse again", std::string(e.what()) + "\n--- printed:\n" + first);
    }
    const std::string second = rocjit::ir::print(again, {.locations = locations});
    if (first != second)
      property_failed("print -> parse -> print changed the text", "--- first:\n" + first + "--- second:\n" + second);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<rocjit::ir::Kernel> kernels;
  try {
    kernels = rocjit::ir::parse_all(text, "<fuzz>");
  } catch (const rocjit::Error&) {
    return 0;  // rejected with a message: what the parser should do with bad input
  }
  for (const rocjit::ir::Kernel& k : kernels) {
    try {
      rocjit::ir::verify(k);
    } catch (const rocjit::Error& e) {
      property_failed("parse_all returned a kernel that ir::verify rejects", e.what());
    }
    check_round_trip(k);
  }
  return 0;
}

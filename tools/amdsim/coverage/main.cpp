// amdsim-coverage: which AMDGPU instructions a set of kernels uses, per processor, and whether
// the simulator implements each. Inputs are .rjir files or folders of them (compiled here with
// rocjit for every processor) and code objects (.hsaco/.co/.o ELF files, for their own
// processor). Exit status 1 when a used instruction is not implemented, so the test suite keeps
// the simulator complete for everything rocjit emits.
//
//   amdsim-coverage [--processor=gfx942,...] [--list] INPUT...
#include <amdsim/amdsim.hpp>
#include <rocjit/compiler/compile.hpp>
#include <rocjit/compiler/error.hpp>
#include <rocjit/compiler/parser.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace amdsim {
std::vector<std::string> implemented_names();
}

namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

bool is_elf(const std::string& bytes) { return bytes.size() > 4 && std::memcmp(bytes.data(), "\x7f" "ELF", 4) == 0; }

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      if (i > start) out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> processors = amdsim::Processor::supported();
  bool list = false;
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--processor=", 0) == 0) {
      processors = split(a.substr(12), ',');
    } else if (a == "--list") {
      list = true;
    } else if (a == "-h" || a == "--help") {
      std::printf("usage: amdsim-coverage [--processor=gfx942,gfx90a,gfx1100] [--list] INPUT...\n"
                  "  INPUT: .rjir files, folders of them, or AMDGPU code objects\n"
                  "  --list: print every used instruction, not only the missing ones\n");
      return 0;
    } else {
      inputs.push_back(a);
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "amdsim-coverage: no input (see --help)\n");
    return 2;
  }
  std::vector<fs::path> files;
  for (const auto& in : inputs) {
    if (fs::is_directory(in)) {
      for (const auto& e : fs::recursive_directory_iterator(in))
        if (e.is_regular_file()) files.push_back(e.path());
    } else if (fs::exists(in)) {
      files.push_back(in);
    } else {
      std::fprintf(stderr, "amdsim-coverage: %s does not exist\n", in.c_str());
      return 2;
    }
  }
  std::sort(files.begin(), files.end());
  auto implemented_list = amdsim::implemented_names();
  std::set<std::string> implemented(implemented_list.begin(), implemented_list.end());
  // processor -> instruction -> first kernel that uses it
  std::map<std::string, std::map<std::string, std::string>> used;
  size_t kernels = 0, code_objects = 0;
  auto record = [&](const std::string& processor, const std::string& bytes, const std::string& where) {
    auto program = amdsim::Program::load(
        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
        amdsim::Processor::get(processor));
    ++code_objects;
    for (const auto& n : program->instruction_names()) used[processor].try_emplace(n, where);
  };
  for (const auto& f : files) {
    std::string bytes = read_file(f);
    if (is_elf(bytes)) {
      bool loaded = false;
      for (const auto& p : processors) {
        try {
          record(p, bytes, f.string());
          loaded = true;
          break;
        } catch (const amdsim::Error&) {
        }
      }
      if (!loaded) std::fprintf(stderr, "amdsim-coverage: %s is not a code object for %s\n", f.c_str(), "these processors");
      continue;
    }
    if (f.extension() != ".rjir" && f.extension() != ".ir") continue;
    std::vector<rocjit::ir::Kernel> parsed;
    try {
      parsed = rocjit::ir::parse_all(bytes, f.string());
    } catch (const rocjit::Error&) {
      continue;  // error-case inputs of the corpus
    }
    for (const auto& k : parsed) {
      ++kernels;
      for (const auto& p : processors) {
        try {
          rocjit::CodeObject co = rocjit::compile(k, rocjit::Target::amdgpu(p));
          record(p, std::string(co.elf.begin(), co.elf.end()), f.string() + ":" + k.name);
        } catch (const rocjit::Error&) {
          // refused by the compiler (limits): nothing to simulate
        }
      }
    }
  }
  int missing = 0;
  for (const auto& [processor, names] : used) {
    size_t have = 0;
    for (const auto& [n, where] : names) have += implemented.count(n);
    std::printf("%s: %zu instructions used, %zu implemented\n", processor.c_str(), names.size(), have);
    for (const auto& [n, where] : names) {
      bool ok = implemented.count(n) != 0;
      if (!ok) ++missing;
      if (list || !ok) std::printf("  %-32s %s%s\n", n.c_str(), ok ? "implemented" : "MISSING, used by ",
                                   ok ? "" : where.c_str());
    }
  }
  std::printf("amdsim-coverage: %zu kernels, %zu code objects, %zu instructions implemented by amdsim, %d used but "
              "missing\n",
              kernels, code_objects, implemented.size(), missing);
  return missing ? 1 : 0;
}

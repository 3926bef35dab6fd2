// rocjit-bundle: kernel bundles for deployments without a compiler (rocjit/compiler/bundle.hpp).
//
//   rocjit-bundle record -o OUT.rjb [--targets=T1,T2,...] -- PROGRAM [ARGS...]
//       Runs PROGRAM with ROCJIT_BUNDLE_RECORD=OUT.rjb, so every kernel it compiles or loads is
//       added to OUT.rjb. With --targets, once per target: a processor (gfx942) runs on its
//       simulator (sim:gfx942), `host` on the CPU device (cpu); ROCJIT_DEVICE is set to that
//       device, and {device} in ARGS is replaced by it. Stops at the first run that fails.
//   rocjit-bundle list BUNDLE...            kernel, target, kind, size and key of every entry
//   rocjit-bundle merge -o OUT.rjb IN.rjb...
//   rocjit-bundle fatbin -o OUT BUNDLE KERNEL [--key=PREFIX]
//       KERNEL's AMDGPU code objects as a clang-offload-bundler fat binary (hipModuleLoadData,
//       rocjit::load_code_object_file).
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "rocjit/compiler/bundle.hpp"
#include "rocjit/compiler/error.hpp"
#include "rocjit/support/text.h"

namespace {

int usage(const char* why) {
  std::fprintf(stderr,
               "rocjit-bundle: %s\n"
               "usage: rocjit-bundle record -o OUT.rjb [--targets=gfx942,gfx90a,gfx1100,host] -- PROGRAM [ARGS...]\n"
               "       rocjit-bundle list BUNDLE...\n"
               "       rocjit-bundle merge -o OUT.rjb IN.rjb...\n"
               "       rocjit-bundle fatbin -o OUT BUNDLE KERNEL [--key=PREFIX]\n",
               why);
  return 2;
}

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  rocjit::support::for_each_list_item(list, ',', [&](std::string_view item) {
    if (!item.empty()) out.emplace_back(item);
  });
  return out;
}

std::string replace_all(std::string s, std::string_view from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

// Runs `argv` with the environment additions; returns its exit status (or 128 + signal).
int run(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env) {
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("rocjit-bundle: fork");
    return 1;
  }
  if (pid == 0) {
    for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "rocjit-bundle: cannot run '%s': %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return 1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int record(const std::vector<std::string>& args) {
  std::string out, targets;
  size_t i = 0;
  for (; i < args.size() && args[i] != "--"; ++i) {
    if (args[i] == "-o" && i + 1 < args.size()) out = args[++i];
    else if (args[i].starts_with("--targets=")) targets = args[i].substr(10);
    else return usage(fmt::format("record: unknown argument '{}'", args[i]).c_str());
  }
  if (out.empty()) return usage("record: -o OUT.rjb is required");
  if (i + 1 >= args.size()) return usage("record: the program to run follows `--`");
  const std::vector<std::string> program(args.begin() + static_cast<long>(i) + 1, args.end());
  std::vector<std::string> devices;
  for (const std::string& t : split(targets)) devices.push_back(t == "host" || t == "cpu" ? "cpu" : "sim:" + t);
  if (devices.empty()) devices.push_back("");  // once, as is
  for (const std::string& device : devices) {
    std::vector<std::string> argv;
    for (const std::string& a : program) argv.push_back(device.empty() ? a : replace_all(a, "{device}", device));
    std::vector<std::pair<std::string, std::string>> env{{"ROCJIT_BUNDLE_RECORD", out}};
    if (!device.empty()) env.emplace_back("ROCJIT_DEVICE", device);
    std::fprintf(stderr, "rocjit-bundle: recording %s%s\n", argv[0].c_str(),
                 device.empty() ? "" : fmt::format(" on {}", device).c_str());
    if (int status = run(argv, env); status != 0) {
      std::fprintf(stderr, "rocjit-bundle: %s failed (status %d)%s\n", argv[0].c_str(), status,
                   device.empty() ? "" : fmt::format(" on {}", device).c_str());
      return 1;
    }
  }
  std::printf("%s: %zu entries\n", out.c_str(), rocjit::bundle::list(out).size());
  return 0;
}

int list(const std::vector<std::string>& args) {
  if (args.empty()) return usage("list: name a bundle");
  for (const std::string& path : args) {
    std::vector<rocjit::bundle::Entry> entries = rocjit::bundle::list(path);
    std::printf("%s: %zu entries\n", path.c_str(), entries.size());
    for (const auto& e : entries)
      std::printf("  %-24s %-28s %-11s %9llu bytes  %s\n", e.kernel.c_str(), e.target.c_str(),
                  e.host ? "host kernel" : "code object", static_cast<unsigned long long>(e.bytes), e.key.c_str());
  }
  return 0;
}

int merge(const std::vector<std::string>& args) {
  std::string out;
  std::vector<std::string> inputs;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-o" && i + 1 < args.size()) out = args[++i];
    else inputs.push_back(args[i]);
  }
  if (out.empty() || inputs.empty()) return usage("merge: -o OUT.rjb and at least one input are required");
  rocjit::bundle::merge(out, inputs);
  std::printf("%s: %zu entries\n", out.c_str(), rocjit::bundle::list(out).size());
  return 0;
}

int fatbin(const std::vector<std::string>& args) {
  std::string out, key;
  std::vector<std::string> rest;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-o" && i + 1 < args.size()) out = args[++i];
    else if (args[i].starts_with("--key=")) key = args[i].substr(6);
    else rest.push_back(args[i]);
  }
  if (out.empty() || rest.size() != 2) return usage("fatbin: -o OUT, a bundle and a kernel name are required");
  const std::vector<uint8_t> bytes = rocjit::bundle::fat_binary(rest[0], rest[1], key);
  std::ofstream f(out, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!f) {
    std::fprintf(stderr, "rocjit-bundle: cannot write '%s'\n", out.c_str());
    return 1;
  }
  std::printf("%s: %zu bytes\n", out.c_str(), bytes.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage("name a command");
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  try {
    if (command == "record") return record(args);
    if (command == "list") return list(args);
    if (command == "merge") return merge(args);
    if (command == "fatbin") return fatbin(args);
    if (command == "--help" || command == "-h") {
      usage("kernel bundles for deployments without a compiler");
      return 0;
    }
  } catch (const rocjit::Error& e) {
    std::fprintf(stderr, "rocjit-bundle: %s\n", e.what());
    return 1;
  }
  return usage(fmt::format("unknown command '{}'", command).c_str());
}

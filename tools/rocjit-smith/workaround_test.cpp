// rocjit-smith --workaround-test=NAME (ctest workaround-<name>): the on/off test of one entry of
// the workaround table (include/rocjit/workarounds.def). Its regression checks run in child
// processes of this program (`--regressions --only=...`): on each executor of the entry's
// shows_on with ROCJIT_DISABLE_WORKAROUNDS=NAME, where they must fail (a failed check, or the
// process dying: some bugs abort LLVM), and on all of them with every workaround enabled, where
// they must pass. Exit status: 0 when both hold, 1 when not, 77 (ctest's skip) when the entry
// does not apply to the running LLVM or cannot be shown on a machine without a GPU, 2 for a
// usage error.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rocjit/workarounds.hpp>

extern char** environ;

namespace smith {

namespace {

std::vector<std::string> split(std::string_view list) {
  std::vector<std::string> items;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) items.emplace_back(item);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return items;
}

// How a child ended: its exit status, or 128 + the signal that killed it.
struct Outcome {
  int status = -1;
  std::string said;  // "exit status 1", "killed by signal 6"
};

// Runs this program with `args` in the environment of this process, minus the variables that
// would change what the regression checks compile, plus `disabled` as ROCJIT_DISABLE_WORKAROUNDS.
Outcome run_child(const std::vector<std::string>& args, const std::string& disabled) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string_view v = *e;
    if (v.starts_with("ROCJIT_DISABLE_WORKAROUNDS=") || v.starts_with("ROCJIT_CPU_TIERING=") ||
        v.starts_with("ROCJIT_CACHE=") || v.starts_with("ROCJIT_LLVM_ARGS="))
      continue;
    env.emplace_back(v);
  }
  env.push_back("ROCJIT_CPU_TIERING=0");  // the CPU's O3 code at once (the loop vectorizer runs there)
  env.push_back("ROCJIT_CACHE=0");        // compiled afresh, not an object compiled with other settings
  if (!disabled.empty()) env.push_back("ROCJIT_DISABLE_WORKAROUNDS=" + disabled);
  std::vector<char*> envp, argv;
  for (std::string& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> all = args;
  all.insert(all.begin(), "/proc/self/exe");
  for (std::string& s : all) argv.push_back(s.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  pid_t pid = 0;
  if (int error = posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv.data(), envp.data()); error != 0)
    return {-1, std::string("could not start: ") + std::strerror(error)};
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0)
    if (errno != EINTR) return {-1, std::string("waitpid: ") + std::strerror(errno)};
  if (WIFEXITED(wstatus)) return {WEXITSTATUS(wstatus), "exit status " + std::to_string(WEXITSTATUS(wstatus))};
  if (WIFSIGNALED(wstatus))
    return {128 + WTERMSIG(wstatus), "killed by signal " + std::to_string(WTERMSIG(wstatus)) + " (" +
                                         strsignal(WTERMSIG(wstatus)) + ")"};
  return {-1, "ended strangely"};
}

}  // namespace

int run_workaround_test(const std::string& name) {
  const std::optional<rocjit::Workaround> found = rocjit::workaround_named(name);
  if (!found) {
    std::printf("rocjit-smith: --workaround-test: no workaround is called '%s'; the workarounds are:", name.c_str());
    for (const rocjit::WorkaroundInfo& e : rocjit::workaround_table()) std::printf(" %.*s", int(e.name.size()), e.name.data());
    std::printf("\n");
    return 2;
  }
  const rocjit::WorkaroundInfo& e = rocjit::workaround_info(*found);
  auto str = [](std::string_view v) { return std::string(v); };
  const std::string versions = std::to_string(e.first_llvm) + (e.last_llvm == 0 ? " and later (no fixed release known)"
                                                                                : " to " + std::to_string(e.last_llvm));
  std::printf("workaround %s: %s\n  LLVM component: %s\n  LLVM versions: %s\n  reproducer: tests/smith/known-external/%s\n"
              "  regression checks: %s\n  shown on: %s\n",
              name.c_str(), str(e.what).c_str(), str(e.component).c_str(), versions.c_str(), str(e.reproducer).c_str(),
              str(e.regression).c_str(), e.shows_on.empty() ? "(nothing without a GPU)" : str(e.shows_on).c_str());
  if (!rocjit::workaround_applies(*found)) {
    std::printf("SKIPPED: this entry applies to LLVM %s; rocjit runs LLVM %d, so no compile applies it and there is "
                "nothing to test\n",
                versions.c_str(), rocjit::llvm_major_version());
    return 77;
  }
  if (e.shows_on.empty()) {
    std::printf("SKIPPED: NOT TESTED: its regression checks do not fail without it on any executor of this machine "
                "(the simulators, the CPU), so this test could only pass vacuously; tests/smith/known-external.md says "
                "why and how to check the bug with its reproducer\n");
    return 77;
  }
  const std::string only = "--only=" + str(e.regression);
  bool ok = true;
  for (const std::string& executor : split(e.shows_on)) {
    std::printf("\n--- %s, ROCJIT_DISABLE_WORKAROUNDS=%s: must fail ---\n", executor.c_str(), name.c_str());
    const Outcome off = run_child({"--regressions", only, "--executors=" + executor}, name);
    // 2 is a usage error of the child (an unknown check name), not the bug showing.
    const bool failed = off.status != 0 && off.status != 2 && off.status != -1;
    std::printf("--- %s: %s\n", off.said.c_str(), failed ? "failed, as it must (the bug shows)" : "DID NOT FAIL");
    ok = ok && failed;
  }
  std::printf("\n--- %s, every workaround enabled: must pass ---\n", str(e.shows_on).c_str());
  const Outcome on = run_child({"--regressions", only, "--executors=" + str(e.shows_on)}, "");
  std::printf("--- %s: %s\n", on.said.c_str(), on.status == 0 ? "passed, as it must" : "DID NOT PASS");
  ok = ok && on.status == 0;
  std::printf("\nworkaround %s: %s\n", name.c_str(),
              ok ? "its regression checks fail without it and pass with it" : "FAILED (see above)");
  return ok ? 0 : 1;
}

}  // namespace smith

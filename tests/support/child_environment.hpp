// The environment of a child process a test starts (posix_spawn): the test's own, with some
// variables set or removed. Tests configure rocjit in their own process through the settings API;
// a child reads its settings from the environment it is given, like any program.
#pragma once

#include <unistd.h>

#include <string>
#include <vector>

namespace rocjit::testing {

class ChildEnvironment {
 public:
  ChildEnvironment() {
    for (char** e = environ; *e; ++e) entries_.emplace_back(*e);
  }
  ChildEnvironment& set(const std::string& name, const std::string& value) {
    unset(name);
    entries_.push_back(name + "=" + value);
    return *this;
  }
  ChildEnvironment& unset(const std::string& name) {
    std::erase_if(entries_, [&](const std::string& e) { return e.compare(0, name.size() + 1, name + "=") == 0; });
    return *this;
  }
  // For posix_spawn's envp; valid until the next change.
  char** data() {
    pointers_.clear();
    for (std::string& e : entries_) pointers_.push_back(e.data());
    pointers_.push_back(nullptr);
    return pointers_.data();
  }

 private:
  std::vector<std::string> entries_;
  std::vector<char*> pointers_;
};

}  // namespace rocjit::testing

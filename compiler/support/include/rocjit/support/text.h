// Small text helpers shared by the settings reader, the bundle mounts and rocjit-bundle.
#pragma once

#include <string_view>

namespace rocjit::support {

// Calls `item` with each entry of a list separated by `separator`, spaces and tabs around it
// trimmed; empty entries are passed too (the caller decides whether they are errors).
template <class F>
void for_each_list_item(std::string_view rest, char separator, F&& item) {
  while (true) {
    const size_t end = rest.find(separator);
    std::string_view one = rest.substr(0, end);
    while (!one.empty() && (one.front() == ' ' || one.front() == '\t')) one.remove_prefix(1);
    while (!one.empty() && (one.back() == ' ' || one.back() == '\t')) one.remove_suffix(1);
    item(one);
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
}

}  // namespace rocjit::support

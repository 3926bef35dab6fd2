// Test helper: builds the argument array run_host() takes from host buffers, in the order the
// kernel's parameters are declared (array: pointer then one i32 extent per dimension).
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <vector>

#include <rocjit/rocjit.hpp>

namespace rocjit::testing {

class HostArgs {
 public:
  template <class T>
  HostArgs& array(T* data, std::initializer_list<int32_t> shape) {
    push(static_cast<void*>(data));
    for (int32_t e : shape) push(e);
    return *this;
  }
  template <class T>
  HostArgs& array(std::vector<T>& v) {
    return array(v.data(), {static_cast<int32_t>(v.size())});
  }
  template <class T>
  HostArgs& scalar(T value) {
    push(value);
    return *this;
  }
  const void* const* data() const { return pointers_.data(); }

 private:
  template <class T>
  void push(T value) {
    auto cell = std::make_unique<std::byte[]>(sizeof(T));
    std::memcpy(cell.get(), &value, sizeof(T));
    pointers_.push_back(cell.get());
    cells_.push_back(std::move(cell));
  }
  std::vector<std::unique_ptr<std::byte[]>> cells_;
  std::vector<const void*> pointers_;
};

inline void run(const Kernel& k, Dim3 grid, Dim3 block, const HostArgs& args, HostCompileOptions options = {}) {
  run_host(compile_host(k.ir(), options), grid, block, args.data());
}

}  // namespace rocjit::testing

// rocjit's exception hierarchy: every user mistake surfaces as one of these.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace rocjit {

/// Base of every error rocjit raises for bad input. The message says what was wrong, where
/// (kernel, parameter, file:line of the DSL call) and what is allowed.
class Error : public std::runtime_error {
 public:
  /// An error with `message` as its what().
  explicit Error(const std::string& message) : std::runtime_error(message) {}
  // Defined in librocjit (compiler/support/error.cpp): the classes' type information lives there
  // once, so an error thrown by the compiler library (loaded with dlopen) is caught as itself.
  ~Error() override;
};

/// Tracing, verification, lowering or code generation rejected a kernel.
class CompileError : public Error {
 public:
  /// An error with `message` as its what().
  using Error::Error;
  ~CompileError() override;
};

/// A launch was refused: arguments or geometry do not match the kernel or the device.
class LaunchError : public Error {
 public:
  /// An error with `message` as its what().
  using Error::Error;
  ~LaunchError() override;
};

/// A dsl::device_assert failed in a kernel: raised by the host at the stream's next
/// synchronisation (the default stream: when the launch returns). The device stays usable. The
/// message names the kernel, the assert's file:line, the first failing work-item and the
/// formatted message; the fields say the same.
class DeviceAssertion : public LaunchError {
 public:
  /// An error with `message` as its what().
  using LaunchError::LaunchError;
  ~DeviceAssertion() override;
  std::string kernel;                  ///< the kernel's name
  std::string file;                    ///< the assert's source file
  uint32_t line = 0;                   ///< and line
  std::array<uint32_t, 3> group{};     ///< the first failing work-item's group
  std::array<uint32_t, 3> item{};      ///< and local id
  std::string text;                    ///< its formatted message
  uint64_t failures = 0;               ///< failing work-items of the launch
};

/// An allocation or copy was refused.
class MemoryError : public Error {
 public:
  /// An error with `message` as its what().
  using Error::Error;
  ~MemoryError() override;
};

/// A device could not be found, opened or used.
class DeviceError : public Error {
 public:
  /// An error with `message` as its what().
  using Error::Error;
  ~DeviceError() override;
};

}  // namespace rocjit

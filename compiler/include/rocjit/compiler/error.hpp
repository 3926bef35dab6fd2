// rocjit's exception hierarchy: every user mistake surfaces as one of these.
#pragma once

#include <stdexcept>
#include <string>

namespace rocjit {

/// Base of every error rocjit raises for bad input. The message says what was wrong, where
/// (kernel, parameter, file:line of the DSL call) and what is allowed.
class Error : public std::runtime_error {
 public:
  /// An error with `message` as its what().
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

/// Tracing, verification, lowering or code generation rejected a kernel.
class CompileError : public Error {
 public:
  /// An error with `message` as its what().
  using Error::Error;
};

/// A launch was refused: arguments or geometry do not match the kernel or the device.
class LaunchError : public Error {
 public:
  /// An error with `message` as its what().
  using Error::Error;
};

/// An allocation or copy was refused.
class MemoryError : public Error {
 public:
  /// An error with `message` as its what().
  using Error::Error;
};

/// A device could not be found, opened or used.
class DeviceError : public Error {
 public:
  /// An error with `message` as its what().
  using Error::Error;
};

}  // namespace rocjit

// The error classes' key functions (rocjit/compiler/error.hpp): their vtables and type
// information are emitted here, in librocjit, and nowhere else.
#include "rocjit/compiler/error.hpp"

namespace rocjit {

Error::~Error() = default;
CompileError::~CompileError() = default;
LaunchError::~LaunchError() = default;
DeviceAssertion::~DeviceAssertion() = default;
MemoryError::~MemoryError() = default;
DeviceError::~DeviceError() = default;

}  // namespace rocjit

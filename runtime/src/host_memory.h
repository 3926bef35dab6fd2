// Host memory used by kernels in place (issue 39, item 4): host arrays passed to launches, and
// the host-accessible arrays of mapped_array() and managed_array(). Internal.
#pragma once

#include <functional>
#include <memory>
#include <vector>
#include <string>

#include "rocjit/runtime/launch.hpp"
#include "src/backend.hpp"

namespace rocjit::runtime {

// The launch arguments `given`, with the host memory passed in place (an argument's `host`,
// `host_layout` and `host_storage`) replaced by views of that memory for `device`'s kernels, which
// keep the host storage alive: `given` itself when there is none, else `resolved`, whose arrays
// point into `mapped` (both must outlive the result). Host memory `device` cannot reach calls
// `refuse(index, what)` (which throws), `what` describing the memory, why, and what to do instead.
const std::vector<LaunchArgument>& resolve_host_arguments(
    const std::shared_ptr<DeviceImpl>& device, const std::vector<LaunchArgument>& given,
    std::vector<DeviceArrayBase>& mapped, std::vector<LaunchArgument>& resolved,
    const std::function<void(size_t, const std::string&)>& refuse);

}  // namespace rocjit::runtime

// The guard of host tasks (host_task.cpp): a controller called from inside one is refused.
#pragma once
#include <string>

namespace ctrl::detail {

// Throws the UsageError for `what` ("wait") on `controller` when the calling thread is running a
// host task; nothing otherwise.
void refuse_inside_host_task(const char* what, const std::string& controller);

}  // namespace ctrl::detail

// Which ZeroMQ endpoints stay on this machine. Plaintext (no CURVE) is only
// allowed where nothing leaves the host, so the gateway asks this before it
// binds or connects without encryption.
#pragma once

#include <string_view>

namespace kaisha::transport {

// True for tcp:// on a loopback address (127.0.0.0/8, ::1, localhost) and for
// ipc:// and inproc://. False for wildcards ("*", 0.0.0.0, ::), interface
// names and every other host, since those may be reachable from the network.
bool is_local_endpoint(std::string_view endpoint);

}  // namespace kaisha::transport

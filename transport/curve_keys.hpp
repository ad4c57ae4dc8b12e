// CURVE key pairs for node authentication (CurveZMQ). Keys travel as Z85 text
// (40 characters for 32 bytes) because that is what zmq socket options and
// humans copying keys between machines both handle well. `kaisha keygen`
// writes a key file with save_curve_keys(); a node loads its own pair with
// load_curve_keys() and lists its peers' public keys in its configuration.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "runtime/core/result.hpp"

namespace kaisha::transport {

struct CurveKeyPair {
  std::string public_key;  // Z85, 40 characters; safe to share
  std::string secret_key;  // Z85, 40 characters; never leaves the node
};

// A fresh key pair from libzmq's CSPRNG. Fails only when libzmq was built
// without CURVE support, which is worth a clear message rather than a crash.
Result<CurveKeyPair> generate_curve_keypair();

// True if `key` is 40 characters of the Z85 alphabet (a 32-byte key).
bool is_z85_key(std::string_view key);

// The 32 raw bytes behind a Z85 key, or an Error naming `what` (e.g.
// "peer 'b' public key") so a typo in a config file is easy to locate.
Result<std::array<unsigned char, 32>> decode_z85_key(std::string_view key, std::string_view what);

// Derives the public key from a secret key (used to check key files).
Result<std::string> curve_public_from_secret(std::string_view secret_key);

// Key file format, one `name: value` per line, '#' starts a comment:
//   # kaisha node key (CurveZMQ, Z85). Keep this file private.
//   public: <40 chars>
//   secret: <40 chars>
// load_curve_keys() checks both keys are well formed and belong together.
Result<CurveKeyPair> load_curve_keys(const std::string& path);

// Writes the file readable by its owner only (0600): it holds a secret.
Status save_curve_keys(const std::string& path, const CurveKeyPair& keys);

}  // namespace kaisha::transport

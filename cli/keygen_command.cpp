// kaisha keygen: a CurveZMQ key pair for a node (or a submit client). The
// file keeps the secret (mode 0600); the public key printed on stdout goes
// into cluster.yaml (nodes.NAME.public_key or cluster.authorised_keys) as is:
// double-quoted, since Z85 uses characters YAML reads specially ('[', '{',
// '&', '*', '!', ...); neither '"' nor '\' is in Z85, so the quotes need no
// escapes. The loader reads keys verbatim ('$' needs no escaping either).
#include <filesystem>
#include <iostream>

#include "cli/command_registry.hpp"
#include "transport/curve_keys.hpp"

namespace kaisha::cli {
namespace {

struct KeygenOptions {
  std::string out;
  bool force = false;
};

int keygen(const KeygenOptions& o) {
  if (std::filesystem::exists(o.out) && !o.force) {
    std::cerr << "kaisha keygen: " << o.out
              << " exists; pass --force to replace it (its nodes then need the new key)\n";
    return 2;
  }
  auto keys = transport::generate_curve_keypair();
  if (!keys.ok()) {
    std::cerr << "kaisha keygen: " << keys.error().message << "\n";
    return 1;
  }
  if (Status s = transport::save_curve_keys(o.out, *keys); !s.ok()) {
    std::cerr << "kaisha keygen: " << s.error().message << "\n";
    return 1;
  }
  std::cout << '"' << keys->public_key << '"' << std::endl;
  std::cerr << "wrote " << o.out << " (secret, mode 0600); public key above\n";
  return 0;
}

const bool keygen_command_registered =
    register_command("keygen", "create a CurveZMQ key pair for a cluster node", [](CLI::App* cmd) {
      auto o = std::make_shared<KeygenOptions>();
      cmd->add_option("--out", o->out, "key file to write")->required();
      cmd->add_flag("--force", o->force, "replace an existing file");
      return [o] { return keygen(*o); };
    });

}  // namespace
}  // namespace kaisha::cli

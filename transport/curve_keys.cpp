#include "transport/curve_keys.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <zmq.h>

namespace kaisha::transport {

namespace {

constexpr std::string_view kZ85Alphabet =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
  return std::string(s.substr(b, e - b));
}

}  // namespace

Result<CurveKeyPair> generate_curve_keypair() {
  char pub[41] = {};
  char sec[41] = {};
  if (zmq_curve_keypair(pub, sec) != 0)
    return Error{"curve", std::string("cannot generate a CURVE key pair: ") + zmq_strerror(errno) +
                              " (is libzmq built with CURVE support?)"};
  return CurveKeyPair{pub, sec};
}

bool is_z85_key(std::string_view key) {
  if (key.size() != 40) return false;
  for (char c : key)
    if (kZ85Alphabet.find(c) == std::string_view::npos) return false;
  return true;
}

Result<std::array<unsigned char, 32>> decode_z85_key(std::string_view key, std::string_view what) {
  if (!is_z85_key(key))
    return Error{"curve", std::string(what) + ": expected a 40-character Z85 key, got " + std::to_string(key.size()) +
                              " characters"};
  std::array<unsigned char, 32> out{};
  std::string z(key);  // zmq_z85_decode needs a NUL-terminated string
  if (zmq_z85_decode(out.data(), z.c_str()) == nullptr)
    return Error{"curve", std::string(what) + ": not a valid Z85 key"};
  return out;
}

Result<std::string> curve_public_from_secret(std::string_view secret_key) {
  if (!is_z85_key(secret_key)) return Error{"curve", "secret key: expected a 40-character Z85 key"};
  char pub[41] = {};
  std::string sec(secret_key);
  if (zmq_curve_public(pub, sec.c_str()) != 0)
    return Error{"curve", std::string("cannot derive the public key: ") + zmq_strerror(errno)};
  return std::string(pub);
}

Result<CurveKeyPair> load_curve_keys(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error{"curve", "cannot read key file " + path + ": " + std::strerror(errno)};
  CurveKeyPair keys;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    auto colon = t.find(':');
    if (colon == std::string::npos)
      return Error{"curve", path + ":" + std::to_string(lineno) + ": expected 'public: <key>' or 'secret: <key>'"};
    std::string name = trim(std::string_view(t).substr(0, colon));
    std::string value = trim(std::string_view(t).substr(colon + 1));
    // Z85 may contain ':' but keys are the last thing on the line, so split once.
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
      value = value.substr(1, value.size() - 2);
    std::string where = path + ":" + std::to_string(lineno);
    if (name == "public") {
      if (!is_z85_key(value)) return Error{"curve", where + ": public key is not a 40-character Z85 key"};
      keys.public_key = value;
    } else if (name == "secret") {
      if (!is_z85_key(value)) return Error{"curve", where + ": secret key is not a 40-character Z85 key"};
      keys.secret_key = value;
    } else {
      return Error{"curve", where + ": unknown field '" + name + "' (expected public or secret)"};
    }
  }
  if (keys.secret_key.empty()) return Error{"curve", path + ": no 'secret:' key"};
  auto derived = curve_public_from_secret(keys.secret_key);
  if (!derived.ok()) return Error{"curve", path + ": " + derived.error().message};
  if (keys.public_key.empty()) {
    keys.public_key = *derived;
  } else if (keys.public_key != *derived) {
    return Error{"curve", path + ": public key does not belong to the secret key"};
  }
  return keys;
}

Status save_curve_keys(const std::string& path, const CurveKeyPair& keys) {
  if (!is_z85_key(keys.public_key) || !is_z85_key(keys.secret_key))
    return Error{"curve", "refusing to write " + path + ": keys are not 40-character Z85 keys"};
  // open() with 0600 rather than ofstream so the secret is never world-readable,
  // not even between creation and a later chmod.
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Error{"curve", "cannot write key file " + path + ": " + std::strerror(errno)};
  std::string text =
      "# kaisha node key (CurveZMQ, Z85). Keep this file private; share only the public key.\n"
      "public: " +
      keys.public_key + "\nsecret: " + keys.secret_key + "\n";
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::string why = std::strerror(errno);
      ::close(fd);
      return Error{"curve", "cannot write key file " + path + ": " + why};
    }
    done += static_cast<size_t>(n);
  }
  ::fchmod(fd, 0600);  // O_CREAT's mode does not apply to an existing file
  if (::close(fd) != 0) return Error{"curve", "cannot write key file " + path + ": " + std::strerror(errno)};
  return Status::Ok();
}

}  // namespace kaisha::transport

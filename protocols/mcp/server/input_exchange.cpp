#include "protocols/mcp/server/input_exchange.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <array>

#include "protocols/mcp/wire/mcp_protocol.hpp"

namespace kaisha::mcp {

namespace {

// The sealing key: random, made once per process.
const std::array<unsigned char, 32>& state_key() {
  static const std::array<unsigned char, 32> key = [] {
    std::array<unsigned char, 32> k{};
    if (RAND_bytes(k.data(), static_cast<int>(k.size())) != 1) throw std::runtime_error("RAND_bytes failed");
    return k;
  }();
  return key;
}

std::string mac_hex(const std::string& text) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), state_key().data(), static_cast<int>(state_key().size()),
       reinterpret_cast<const unsigned char*>(text.data()), text.size(), mac, &len);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(hex[mac[i] >> 4]);
    out.push_back(hex[mac[i] & 0xF]);
  }
  return out;
}

std::string base64(const std::string& in) {
  std::string out(4 * ((in.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

std::optional<std::string> unbase64(const std::string& in) {
  if (in.size() % 4 != 0) return std::nullopt;
  std::string out(in.size() / 4 * 3, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
  if (n < 0) return std::nullopt;
  size_t pad = (!in.empty() && in.back() == '=') + (in.size() > 1 && in[in.size() - 2] == '=');
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

Error invalid(std::string message) { return Error{"invalid_params", std::move(message)}; }

}  // namespace

bool ends_the_call(const Error& error) {
  return error.code == kInputRequired || error.code == std::to_string(kMissingRequiredClientCapability);
}

std::string capability_for(const std::string& method) {
  if (method == "sampling/createMessage") return "sampling";
  if (method == "elicitation/create") return "elicitation";
  if (method == "roots/list") return "roots";
  return "";
}

std::string seal_state(const json& state) {
  std::string body = base64(state.dump());
  return body + "." + mac_hex(body);
}

std::optional<json> open_state(const std::string& sealed) {
  auto dot = sealed.rfind('.');
  if (dot == std::string::npos) return std::nullopt;
  const std::string body = sealed.substr(0, dot), mac = sealed.substr(dot + 1);
  const std::string expected = mac_hex(body);
  if (mac.size() != expected.size() || CRYPTO_memcmp(mac.data(), expected.data(), mac.size()) != 0) return std::nullopt;
  auto text = unbase64(body);
  if (!text) return std::nullopt;
  json state = json::parse(*text, nullptr, false);
  if (state.is_discarded()) return std::nullopt;
  return state;
}

Result<InputExchange> InputExchange::from_params(const json& params) {
  InputExchange x;
  if (!params.is_object()) return x;
  if (auto it = params.find("inputResponses"); it != params.end()) {
    if (!it->is_object())
      return invalid(
          "Invalid params: params.inputResponses must be an object mapping each inputRequests key to "
          "the client's result, got " +
          std::string(it->type_name()));
    for (auto r = it->begin(); r != it->end(); ++r)
      if (!r.value().is_object())
        return invalid("Invalid params: params.inputResponses['" + r.key() +
                       "'] must be the client's result object (ElicitResult, CreateMessageResult or "
                       "ListRootsResult), got " +
                       std::string(r.value().type_name()));
    x.responses_ = *it;
  }
  if (auto it = params.find("requestState"); it != params.end() && !it->is_null()) {
    if (!it->is_string())
      return invalid("Invalid params: params.requestState must be the string the server sent, got " +
                     std::string(it->type_name()));
    auto state = open_state(it->get<std::string>());
    if (!state)
      return invalid(
          "Invalid params: params.requestState failed its integrity check (altered, or not issued by "
          "this server process); retry the request without it to start over");
    x.state_ = std::move(*state);
  }
  return x;
}

const json* InputExchange::response(const std::string& key) const {
  auto it = responses_.find(key);
  return it == responses_.end() ? nullptr : &*it;
}

Result<json> InputExchange::ask(const json& requests, const json& state) {
  json answers = json::object();
  json missing = json::object();
  for (auto it = requests.begin(); it != requests.end(); ++it) {
    if (const json* r = response(it.key()))
      answers[it.key()] = *r;
    else
      missing[it.key()] = it.value();
  }
  if (missing.empty()) return answers;
  // What was asked and not answered is asked again, in full: the client
  // retries with every answer of one round together.
  needed_ = requests;
  next_state_ = state;
  return Error{kInputRequired, "the client has not answered: " + missing.dump()};
}

json InputExchange::input_required_result() const {
  json r{{"resultType", "input_required"}, {"inputRequests", needed_}};
  r["requestState"] = seal_state(next_state_.is_null() ? json::object() : next_state_);
  return r;
}

}  // namespace kaisha::mcp

#include "runtime/provider/model_resolver.hpp"

#include <cctype>

#include "runtime/core/ascii_case.hpp"

namespace kaisha::provider {
namespace {

// The host part of an absolute URL ("http://user@host:port/path"), lower-case,
// IPv6 brackets removed.
std::string url_host(std::string_view url) {
  auto scheme = url.find("://");
  if (scheme != std::string_view::npos) url.remove_prefix(scheme + 3);
  url = url.substr(0, url.find_first_of("/?#"));
  if (auto at = url.rfind('@'); at != std::string_view::npos) url.remove_prefix(at + 1);
  if (url.starts_with("[")) {
    auto close = url.find(']');
    return ascii_lower(url.substr(1, close == std::string_view::npos ? std::string_view::npos : close - 1));
  }
  return ascii_lower(url.substr(0, url.find(':')));
}

// The environment variable the config loader reads the key of a built-in
// provider from.
std::string key_env_var(std::string_view provider_name) {
  if (provider_name == "openai") return "OPENAI_API_KEY";
  if (provider_name == "gemini") return "GEMINI_API_KEY";
  if (provider_name == "anthropic") return "ANTHROPIC_API_KEY";
  return "";
}

// 127.0.0.0/8 written as a dotted quad; "127.example.com" is not loopback.
bool is_ipv4_loopback(std::string_view host) {
  if (!host.starts_with("127.")) return false;
  int dots = 0;
  for (char c : host) {
    if (c == '.')
      ++dots;
    else if (!std::isdigit(static_cast<unsigned char>(c)))
      return false;
  }
  return dots == 3;
}

}  // namespace

bool is_loopback_url(std::string_view url) {
  const std::string host = url_host(url);
  return host == "localhost" || host.ends_with(".localhost") || is_ipv4_loopback(host) || host == "::1" ||
         host == "0:0:0:0:0:0:0:1";
}

bool needs_api_key(const config::ProviderConfig& p, std::string_view dialect) {
  if (dialect == "ollama") return false;
  if (dialect == "openai") return !is_loopback_url(p.base_url);
  return true;  // gemini, anthropic: hosted APIs only
}

Result<ResolvedModel> resolve_model(const config::Config& cfg, std::string_view model_ref) {
  auto parsed = llm::parse_model_ref(model_ref);
  if (!parsed) return parsed.error();
  ResolvedModel out;
  out.ref = std::move(parsed).value();
  out.text = llm::to_string(out.ref);
  const std::string where = "model ref '" + out.text + "'";
  const std::string in_config = cfg.source.empty() ? std::string() : " (config " + cfg.source + ")";

  auto it = cfg.providers.find(out.ref.provider);
  if (it == cfg.providers.end()) {
    std::string known;
    for (const auto& [name, p] : cfg.providers) known += (known.empty() ? "" : ", ") + name;
    return Error{"config", "unknown provider '" + out.ref.provider + "' in " + where +
                               (known.empty() ? " (no providers are configured" + in_config + ")"
                                              : " (configured providers: " + known + ")")};
  }
  out.provider = &it->second;
  const std::string dialect_name = out.provider->dialect.empty() ? it->first : out.provider->dialect;
  out.dialect = llm::find_dialect(dialect_name);
  if (!out.dialect) {
    return Error{"config", "provider '" + it->first + "' used by " + where + " has unknown dialect '" + dialect_name +
                               "' (known: openai, ollama, gemini, anthropic)" + in_config};
  }
  if (out.provider->base_url.empty()) {
    return Error{"config", "provider '" + it->first + "' used by " + where + " has no base_url" + in_config};
  }
  if (out.provider->api_key.empty() && needs_api_key(*out.provider, dialect_name)) {
    const std::string env = key_env_var(it->first);
    return Error{"config", "provider '" + it->first + "' (" + dialect_name + " at " + out.provider->base_url +
                               ") used by " + where + " needs an API key: set " + (env.empty() ? "" : env + " or ") +
                               "providers." + it->first + ".api_key in the config" + in_config};
  }
  out.endpoint.base_url = out.provider->base_url;
  out.endpoint.api_key = out.provider->api_key;
  out.endpoint.headers = out.provider->headers;
  return out;
}

}  // namespace kaisha::provider

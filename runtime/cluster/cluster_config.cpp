#include "runtime/cluster/cluster_config.hpp"

#include <filesystem>
#include <set>

#include "runtime/config/yaml/yaml_reader.hpp"
#include "runtime/core/data_paths.hpp"

namespace kaisha::cluster {

namespace {

using config::YamlReader;

bool is_tcp_address(const std::string& a) {
  if (a.rfind("tcp://", 0) != 0) return false;
  const size_t colon = a.rfind(':');
  return colon > 6 && colon + 1 < a.size();
}

// HOST:PORT with a port from 1 to 65535 ([::1]:PORT for IPv6).
bool is_host_port(const std::string& a) {
  const size_t colon = a.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 >= a.size() || a.size() - colon > 6) return false;
  int port = 0;
  for (size_t i = colon + 1; i < a.size(); ++i) {
    if (a[i] < '0' || a[i] > '9') return false;
    port = port * 10 + (a[i] - '0');
  }
  const std::string host = a.substr(0, colon);
  const bool bracketed = host.front() == '[' && host.back() == ']' && host.size() > 2;
  return port >= 1 && port <= 65535 && (bracketed || host.find(':') == std::string::npos);
}

class Parser {
 public:
  Parser(const std::string& source, ClusterConfig& out) : r_(source), c_(out) {}

  Status parse(const YAML::Node& root) {
    if (!YamlReader::present(root))
      return Error{"config", r_.source() + ": the cluster file is empty; it needs a 'nodes' section"};
    if (Status s = r_.expect_section(root, "", {"company", "cluster", "nodes"}); !s) return s;
    if (Status s = r_.optional_string(root, "", "company", c_.company_config); !s) return s;
    if (Status s = cluster(root["cluster"]); !s) return s;
    return nodes(root["nodes"], root);
  }

 private:
  Status millis(const YAML::Node& map, const std::string& path, const char* key, int64_t& out) {
    YAML::Node n = map[key];
    if (!YamlReader::present(n)) return Status::Ok();
    auto v = r_.read_int(n, YamlReader::join(path, key));
    if (!v) return v.error();
    if (*v <= 0)
      return r_.error_at(n, YamlReader::join(path, key), "expected milliseconds > 0, got " + std::to_string(*v));
    out = *v;
    return Status::Ok();
  }

  Status key(const YAML::Node& n, const std::string& path, const std::string& value) {
    if (value.size() != 40)
      return r_.error_at(n, path,
                         "expected a 40-character Z85 public key (kaisha keygen prints one), got " +
                             std::to_string(value.size()) + " characters");
    return Status::Ok();
  }

  // Keys are read as written, without ${VAR} substitution: Z85 uses '$', '{'
  // and '}', so about 1 key in 100 holds a "${" or "$$" that substitution
  // would mangle or refuse.
  Result<std::string> verbatim(const YAML::Node& n, const std::string& path) {
    if (!n.IsScalar()) return r_.error_at(n, path, "expected a public key (a string)");
    return n.Scalar();
  }
  Status verbatim_key(const YAML::Node& map, const std::string& path, const char* name, std::string& out) {
    const YAML::Node n = map[name];
    if (!YamlReader::present(n)) return Status::Ok();
    const std::string p = YamlReader::join(path, name);
    auto v = verbatim(n, p);
    if (!v) return v.error();
    if (Status s = key(n, p, *v); !s) return s;
    out = *v;
    return Status::Ok();
  }
  Status verbatim_keys(const YAML::Node& map, const std::string& path, const char* name,
                       std::vector<std::string>& out) {
    const YAML::Node n = map[name];
    if (!YamlReader::present(n)) return Status::Ok();
    const std::string p = YamlReader::join(path, name);
    if (!n.IsSequence()) return r_.error_at(n, p, "expected a list of public keys");
    for (size_t i = 0; i < n.size(); ++i) {
      const std::string ip = p + "[" + std::to_string(i) + "]";
      auto v = verbatim(n[i], ip);
      if (!v) return v.error();
      if (Status s = key(n[i], ip, *v); !s) return s;
      out.push_back(*v);
    }
    return Status::Ok();
  }

  Status cluster(const YAML::Node& n) {
    if (!YamlReader::present(n)) return Status::Ok();
    const std::string p = "cluster";
    if (Status s = r_.expect_section(
            n, p,
            {"seeds", "heartbeat_ms", "suspect_after_ms", "down_after_ms", "rehire_lost_agents", "allow_plaintext",
             "authorised_keys", "operator_keys", "max_frame_bytes", "max_clients", "max_waiting_tasks"});
        !s)
      return s;
    if (Status s = millis(n, p, "heartbeat_ms", c_.timeouts.heartbeat_ms); !s) return s;
    if (Status s = millis(n, p, "suspect_after_ms", c_.timeouts.suspect_after_ms); !s) return s;
    if (Status s = millis(n, p, "down_after_ms", c_.timeouts.down_after_ms); !s) return s;
    const Timeouts& t = c_.timeouts;
    if (!(t.heartbeat_ms < t.suspect_after_ms && t.suspect_after_ms < t.down_after_ms))
      return r_.error_at(n, p,
                         "expected heartbeat_ms < suspect_after_ms < down_after_ms, got " +
                             std::to_string(t.heartbeat_ms) + " / " + std::to_string(t.suspect_after_ms) + " / " +
                             std::to_string(t.down_after_ms));
    if (Status s = r_.optional_bool(n, p, "rehire_lost_agents", c_.rehire_lost_agents); !s) return s;
    if (Status s = r_.optional_bool(n, p, "allow_plaintext", c_.allow_plaintext); !s) return s;
    if (Status s = verbatim_keys(n, p, "authorised_keys", c_.client_keys); !s) return s;
    if (Status s = verbatim_keys(n, p, "operator_keys", c_.operator_keys); !s) return s;
    keys_node_ = n;
    int64_t frame = static_cast<int64_t>(c_.max_frame_bytes);
    if (Status s = r_.optional_int(n, p, "max_frame_bytes", frame, kMinFrameBytes, kMaxFrameBytes); !s) return s;
    c_.max_frame_bytes = static_cast<size_t>(frame);
    int64_t clients = c_.max_clients;
    if (Status s = r_.optional_int(n, p, "max_clients", clients, 1, 100000); !s) return s;
    c_.max_clients = static_cast<int>(clients);
    int64_t waiting = static_cast<int64_t>(c_.max_waiting_tasks);
    if (Status s = r_.optional_int(n, p, "max_waiting_tasks", waiting, 1, 100000); !s) return s;
    c_.max_waiting_tasks = static_cast<size_t>(waiting);
    YAML::Node seeds = n["seeds"];
    if (!YamlReader::present(seeds)) return Status::Ok();
    if (!seeds.IsSequence()) return r_.error_at(seeds, p + ".seeds", "expected a list of addresses");
    for (size_t i = 0; i < seeds.size(); ++i) {
      const std::string sp = p + ".seeds[" + std::to_string(i) + "]";
      Seed seed;
      if (seeds[i].IsMap()) {
        if (Status s = r_.expect_section(seeds[i], sp, {"address", "public_key"}); !s) return s;
        if (Status s = r_.optional_string(seeds[i], sp, "address", seed.address); !s) return s;
        if (Status s = verbatim_key(seeds[i], sp, "public_key", seed.public_key); !s) return s;
      } else {
        auto v = r_.read_string(seeds[i], sp);
        if (!v) return v.error();
        seed.address = *v;
      }
      if (!is_tcp_address(seed.address))
        return r_.error_at(seeds[i], sp, "expected an address like tcp://10.0.0.1:7101, got \"" + seed.address + "\"");
      c_.seeds.push_back(seed);
    }
    return Status::Ok();
  }

  Status nodes(const YAML::Node& n, const YAML::Node& root) {
    if (!YamlReader::present(n)) return r_.error_at(root, "", "missing 'nodes': list every node with its bind address");
    if (Status s = r_.expect_map(n, "nodes"); !s) return s;
    std::set<std::string> names;
    int ceos = 0;
    for (auto it = n.begin(); it != n.end(); ++it) {
      NodeConfig node;
      node.name = it->first.Scalar();
      const std::string p = "nodes." + node.name;
      const YAML::Node v = it->second;  // a copy: it-> returns a temporary proxy
      if (Status s = r_.expect_section(
              v, p, {"bind", "advertise", "key_file", "public_key", "ceo", "models", "tags", "resource_units", "http"});
          !s)
        return s;
      if (Status s = r_.optional_string(v, p, "bind", node.bind); !s) return s;
      if (node.bind.empty()) return r_.error_at(v, p, "missing 'bind' (e.g. tcp://127.0.0.1:7101)");
      if (!is_tcp_address(node.bind))
        return r_.error_at(v["bind"], p + ".bind",
                           "expected an address like tcp://127.0.0.1:7101, got \"" + node.bind + "\"");
      if (Status s = r_.optional_string(v, p, "advertise", node.advertise); !s) return s;
      if (node.advertise.empty()) node.advertise = node.bind;
      if (node.advertise.find("://0.0.0.0:") != std::string::npos || node.advertise.find("://*:") != std::string::npos)
        return r_.error_at(v, p, "binds a wildcard address: set 'advertise' to the address other nodes reach it at");
      if (Status s = r_.optional_string(v, p, "key_file", node.key_file); !s) return s;
      if (Status s = r_.optional_string(v, p, "http", node.http); !s) return s;
      if (!node.http.empty() && !is_host_port(node.http))
        return r_.error_at(v["http"], p + ".http", "expected HOST:PORT like 127.0.0.1:9464, got \"" + node.http + "\"");
      if (Status s = verbatim_key(v, p, "public_key", node.public_key); !s) return s;
      if (Status s = r_.optional_bool(v, p, "ceo", node.capabilities.ceo); !s) return s;
      if (Status s = r_.optional_strings(v, p, "models", node.capabilities.models); !s) return s;
      if (Status s = r_.optional_strings(v, p, "tags", node.capabilities.tags); !s) return s;
      if (YamlReader::present(v["resource_units"])) {
        auto u = r_.read_number(v["resource_units"], p + ".resource_units");
        if (!u) return u.error();
        if (*u < 0) return r_.error_at(v["resource_units"], p + ".resource_units", "expected a number >= 0");
        node.capabilities.resource_units = *u;
      }
      if (!c_.allow_plaintext && node.public_key.empty())
        return r_.error_at(v, p,
                           "no public_key: without allow_plaintext every node needs a CURVE key "
                           "(create one with 'kaisha keygen --out " +
                               node.name + ".key')");
      if (!node.key_file.empty()) node.key_file = resolve(node.key_file);
      // A key names exactly one node: the gateway binds the name to it.
      for (const auto& other : c_.nodes)
        if (!node.public_key.empty() && other.public_key == node.public_key)
          return r_.error_at(v["public_key"], p + ".public_key",
                             "the same key as node '" + other.name + "'; each node needs its own (kaisha keygen)");
      names.insert(node.name);
      if (node.capabilities.ceo) ++ceos;
      if (!node.public_key.empty()) c_.authorised_keys.push_back(node.public_key);
      c_.nodes.push_back(std::move(node));
    }
    if (c_.nodes.empty()) return r_.error_at(n, "nodes", "no nodes listed");
    if (ceos != 1)
      return r_.error_at(n, "nodes",
                         "exactly one node must have 'ceo: true' (it runs the CEO and holds the "
                         "expense ledger), found " +
                             std::to_string(ceos));
    // One key, one identity: a node's key listed as a client's would let the
    // node submit, and an operator's listed as a client's would be both.
    for (const auto& k : c_.operator_keys) {
      for (const auto& other : c_.nodes)
        if (other.public_key == k)
          return r_.error_at(
              keys_node_["operator_keys"], "cluster.operator_keys",
              "holds the key of node '" + other.name + "'; an operator needs its own key (kaisha keygen)");
      for (const auto& c : c_.client_keys)
        if (c == k)
          return r_.error_at(keys_node_["operator_keys"], "cluster.operator_keys",
                             "holds a key also listed in cluster.authorised_keys; a key is one identity");
    }
    // A node's key listed here too stays that node's (the gateway binds it
    // to the node's name): listed once.
    for (const auto& k : c_.client_keys) {
      bool node_key = false;
      for (const auto& other : c_.nodes) node_key = node_key || other.public_key == k;
      if (!node_key) c_.authorised_keys.push_back(k);
    }
    for (const auto& k : c_.operator_keys) c_.authorised_keys.push_back(k);
    return Status::Ok();
  }

  std::string resolve(const std::string& p) const {
    std::filesystem::path path(p);
    if (path.is_absolute()) return p;
    return (std::filesystem::path(r_.source()).parent_path() / path).string();
  }

 public:
  std::string resolve_path(const std::string& p) const { return resolve(p); }

 private:
  YamlReader r_;
  ClusterConfig& c_;
  YAML::Node keys_node_;  // the `cluster` section, for errors about its key lists
};

}  // namespace

Result<NodeConfig> ClusterConfig::node(const std::string& name) const {
  std::string known;
  for (const auto& n : nodes) {
    if (n.name == name) return n;
    known += (known.empty() ? "" : ", ") + n.name;
  }
  return Error{"config", source + ": no node named '" + name + "' under 'nodes' (known: " + known + ")"};
}

const NodeConfig* ClusterConfig::find(const std::string& name) const {
  for (const auto& n : nodes)
    if (n.name == name) return &n;
  return nullptr;
}

const NodeConfig* ClusterConfig::ceo_node() const {
  for (const auto& n : nodes)
    if (n.capabilities.ceo) return &n;
  return nullptr;
}

std::string ClusterConfig::seed_key(const Seed& seed) const {
  if (!seed.public_key.empty()) return seed.public_key;
  for (const auto& n : nodes)
    if (n.advertise == seed.address) return n.public_key;
  return {};
}

std::string ClusterConfig::http_address(const NodeConfig& node) const {
  if (node.http.empty()) return "";
  const size_t colon = node.http.rfind(':');
  const std::string host = node.http.substr(0, colon);
  if (host != "0.0.0.0" && host != "[::]" && host != "*") return node.http;
  // tcp://HOST:PORT: the host other nodes reach this one at.
  const std::string& a = node.advertise;
  const size_t from = a.find("://") + 3, to = a.rfind(':');
  return a.substr(from, to - from) + node.http.substr(colon);
}

namespace {

Result<ClusterConfig> read_cluster_config(const std::string& yaml_text, const std::string& source_name) {
  auto doc = config::parse_yaml(yaml_text, source_name);
  if (!doc) return doc.error();
  ClusterConfig c;
  c.source = source_name;
  Parser parser(source_name, c);
  if (Status s = parser.parse(*doc); !s) return s.error();
  if (!c.company_config.empty()) c.company_config = parser.resolve_path(c.company_config);
  return c;
}

}  // namespace

Result<ClusterConfig> parse_cluster_config(const std::string& yaml_text, const std::string& source_name) {
  return config::guard_yaml(source_name, [&] { return read_cluster_config(yaml_text, source_name); });
}

Result<ClusterConfig> load_cluster_config(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return Error{"config", "cluster config: " + text.error().message};
  return parse_cluster_config(*text, path);
}

}  // namespace kaisha::cluster

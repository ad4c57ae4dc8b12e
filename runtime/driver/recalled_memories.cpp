#include "runtime/driver/recalled_memories.hpp"

namespace kaisha::driver {
namespace {

std::string text_of(const json& payload, const char* key) {
  auto it = payload.find(key);
  return it != payload.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

RecalledMemories read_recalled(const json& payload) {
  RecalledMemories r;
  if (!payload.is_object()) return r;
  if (auto e = payload.find("error"); e != payload.end()) r.error = e->is_string() ? e->get<std::string>() : e->dump();
  if (auto m = payload.find("memories"); m != payload.end() && m->is_array()) r.memories = *m;
  r.injection = text_of(payload, "injection");
  r.transcript = text_of(payload, "transcript");
  return r;
}

}  // namespace kaisha::driver

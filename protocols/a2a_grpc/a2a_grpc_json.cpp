#include "protocols/a2a_grpc/a2a_grpc_json.hpp"

#include <google/protobuf/util/json_util.h>

namespace kaisha::a2a {

json params_of(const google::protobuf::Message& request) {
  std::string text;
  google::protobuf::util::JsonPrintOptions options;  // camelCase names, defaults left out
  // A message that came off the wire always prints: its strings were
  // checked as UTF-8 when it was parsed.
  if (!google::protobuf::util::MessageToJsonString(request, &text, options).ok()) return json::object();
  json params = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return params.is_object() ? params : json::object();
}

Status fill_from_json(const json& result, google::protobuf::Message& out) {
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  auto st = google::protobuf::util::JsonStringToMessage(result.dump(), &out, options);
  if (!st.ok())
    return Error{"internal", "the " + out.GetDescriptor()->name() +
                                 " the service answered does not fit a2a.proto: " + std::string(st.message())};
  return Status::Ok();
}

}  // namespace kaisha::a2a

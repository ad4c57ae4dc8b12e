#include "protocols/a2a_grpc/a2a_grpc_service.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <utility>

#include "a2a.grpc.pb.h"
#include "protocols/a2a/a2a_wire.hpp"
#include "protocols/a2a_grpc/a2a_grpc_event_queue.hpp"
#include "protocols/a2a_grpc/a2a_grpc_json.hpp"
#include "protocols/a2a_grpc/a2a_grpc_status.hpp"
#include "protocols/http/bind_policy.hpp"

namespace kaisha::a2a {
namespace {

namespace pb = lf::a2a::v1;

// How often a stream waiting for its next event checks that its peer is
// still there (a cancelled call, a server shutting down).
constexpr std::chrono::milliseconds kStreamTick{200};

// The first value of a metadata key (keys arrive lowercased).
std::string metadata(const grpc::ServerContext& ctx, const std::string& key) {
  const auto& md = ctx.client_metadata();
  auto it = md.find(key);
  return it == md.end() ? std::string() : std::string(it->second.data(), it->second.size());
}

class GrpcBinding final : public pb::A2AService::Service {
 public:
  GrpcBinding(std::shared_ptr<A2aService> service, A2aGrpcServiceOptions options)
      : service_(std::move(service)), options_(std::move(options)) {}

  grpc::Status SendMessage(grpc::ServerContext* ctx, const pb::SendMessageRequest* req,
                           pb::SendMessageResponse* out) override {
    return unary(*ctx, "SendMessage", *req, *out);
  }
  grpc::Status GetTask(grpc::ServerContext* ctx, const pb::GetTaskRequest* req, pb::Task* out) override {
    return unary(*ctx, "GetTask", *req, *out);
  }
  grpc::Status ListTasks(grpc::ServerContext* ctx, const pb::ListTasksRequest* req,
                         pb::ListTasksResponse* out) override {
    return unary(*ctx, "ListTasks", *req, *out);
  }
  grpc::Status CancelTask(grpc::ServerContext* ctx, const pb::CancelTaskRequest* req, pb::Task* out) override {
    return unary(*ctx, "CancelTask", *req, *out);
  }
  grpc::Status CreateTaskPushNotificationConfig(grpc::ServerContext* ctx, const pb::TaskPushNotificationConfig* req,
                                                pb::TaskPushNotificationConfig* out) override {
    return unary(*ctx, "CreateTaskPushNotificationConfig", *req, *out);
  }
  grpc::Status GetTaskPushNotificationConfig(grpc::ServerContext* ctx,
                                             const pb::GetTaskPushNotificationConfigRequest* req,
                                             pb::TaskPushNotificationConfig* out) override {
    return unary(*ctx, "GetTaskPushNotificationConfig", *req, *out);
  }
  grpc::Status ListTaskPushNotificationConfigs(grpc::ServerContext* ctx,
                                               const pb::ListTaskPushNotificationConfigsRequest* req,
                                               pb::ListTaskPushNotificationConfigsResponse* out) override {
    return unary(*ctx, "ListTaskPushNotificationConfigs", *req, *out);
  }
  grpc::Status DeleteTaskPushNotificationConfig(grpc::ServerContext* ctx,
                                                const pb::DeleteTaskPushNotificationConfigRequest* req,
                                                google::protobuf::Empty* out) override {
    return unary(*ctx, "DeleteTaskPushNotificationConfig", *req, *out);
  }
  grpc::Status GetExtendedAgentCard(grpc::ServerContext* ctx, const pb::GetExtendedAgentCardRequest* req,
                                    pb::AgentCard* out) override {
    return unary(*ctx, "GetExtendedAgentCard", *req, *out);
  }

  grpc::Status SendStreamingMessage(grpc::ServerContext* ctx, const pb::SendMessageRequest* req,
                                    grpc::ServerWriter<pb::StreamResponse>* writer) override {
    return streaming(*ctx, "SendStreamingMessage", *req, *writer);
  }
  grpc::Status SubscribeToTask(grpc::ServerContext* ctx, const pb::SubscribeToTaskRequest* req,
                               grpc::ServerWriter<pb::StreamResponse>* writer) override {
    return streaming(*ctx, "SubscribeToTask", *req, *writer);
  }

 private:
  // The service parameters every call checks first.
  grpc::Status admit(const grpc::ServerContext& ctx) const {
    if (!options_.bearer_token.empty() &&
        !protocols::bearer_matches(metadata(ctx, "authorization"), options_.bearer_token))
      return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                          "this server requires `authorization: Bearer <token>` metadata");
    const std::string version = metadata(ctx, "a2a-version");
    if (!version.empty()) {
      auto v = parse_version_header(version);
      if (!v.ok()) return grpc_status(code::kVersionNotSupported, v.error().message);
      if (*v != WireVersion::v1_0)
        return grpc_status(code::kVersionNotSupported,
                           "A2A version '" + version + "' is not supported on the gRPC binding, which speaks 1.0");
    }
    return grpc::Status::OK;
  }

  template <class Response>
  grpc::Status unary(const grpc::ServerContext& ctx, const char* method, const google::protobuf::Message& req,
                     Response& out) {
    if (grpc::Status s = admit(ctx); !s.ok()) return s;
    const jsonrpc::Request r{method, params_of(req), 1, false};
    std::optional<json> response;
    service_->dispatcher().dispatch(r, jsonrpc::Context{}, [&](std::optional<json> o) { response = std::move(o); });
    // Every A2A handler is synchronous, so the answer is here by now.
    if (!response) return grpc::Status(grpc::StatusCode::INTERNAL, std::string("no answer from ") + method);
    if (auto e = response->find("error"); e != response->end()) return grpc_status(*e);
    return written(fill_from_json(response->value("result", json::object()), out));
  }

  static grpc::Status written(const Status& s) {
    return s.ok() ? grpc::Status::OK : grpc::Status(grpc::StatusCode::INTERNAL, s.error().message);
  }

  grpc::Status streaming(grpc::ServerContext& ctx, const char* method, const google::protobuf::Message& req,
                         grpc::ServerWriter<pb::StreamResponse>& writer) {
    if (grpc::Status s = admit(ctx); !s.ok()) return s;
    auto queue = std::make_shared<GrpcEventQueue>(options_.max_queued_events);
    const jsonrpc::Request r{method, params_of(req), 1, false};
    // The service's first event arrives before stream() returns; the rest
    // from the agent's threads, which only queue them.
    auto stop = service_->stream(
        r, [queue](const json& event) { return queue->push(event); }, [queue] { queue->close(); });
    grpc::Status status = grpc::Status::OK;
    while (true) {
      if (ctx.IsCancelled()) {
        status = grpc::Status(grpc::StatusCode::CANCELLED, "the call was cancelled");
        break;
      }
      std::optional<json> event = queue->pop(kStreamTick);
      if (!event) {
        if (!queue->drained()) continue;
        if (queue->overflowed())
          status = grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                                "the stream's reader fell " + std::to_string(options_.max_queued_events) +
                                    " events behind; read faster or use GetTask");
        break;
      }
      if (auto e = event->find("error"); e != event->end()) {
        status = grpc_status(*e);
        break;
      }
      pb::StreamResponse message;
      status = written(fill_from_json(event->value("result", json::object()), message));
      if (!status.ok()) break;
      if (!writer.Write(message)) {
        status = grpc::Status(grpc::StatusCode::CANCELLED, "the peer went away");
        break;
      }
    }
    stop();  // releases the task subscription when we stopped first
    return status;
  }

  std::shared_ptr<A2aService> service_;
  A2aGrpcServiceOptions options_;
};

}  // namespace

std::unique_ptr<grpc::Service> make_a2a_grpc_service(std::shared_ptr<A2aService> service,
                                                     A2aGrpcServiceOptions options) {
  return std::make_unique<GrpcBinding>(std::move(service), std::move(options));
}

}  // namespace kaisha::a2a

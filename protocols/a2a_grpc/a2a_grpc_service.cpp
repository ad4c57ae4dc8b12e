#include "protocols/a2a_grpc/a2a_grpc_service.hpp"

#include <grpcpp/support/method_handler.h>

#include <chrono>
#include <deque>
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
          status = grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, "the stream's reader fell " +
                                                                          std::to_string(options_.max_queued_events) +
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

// Protobuf's parser refuses a request whose string field is not valid UTF-8
// (or whose bytes are malformed) before any handler runs, and gRPC answers
// that INTERNAL, as if the server had failed. Around gRPC's own handler,
// this one answers it INVALID_ARGUMENT, naming the request's type.
class RequestCheck final : public grpc::internal::MethodHandler {
 public:
  RequestCheck(grpc::internal::MethodHandler* inner, std::string type) : inner_(inner), type_(std::move(type)) {}

  void RunHandler(const HandlerParameter& param) override { inner_->RunHandler(param); }

  void* Deserialize(grpc_call* call, grpc_byte_buffer* req, grpc::Status* status, void** handler_data) override {
    void* request = inner_->Deserialize(call, req, status, handler_data);
    if (!status->ok() && status->error_code() == grpc::StatusCode::INTERNAL)
      *status = grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                             "request: not a valid " + type_ +
                                 ": a string field holds text that is not valid UTF-8, or the message's bytes are "
                                 "malformed");
    return request;
  }

 private:
  std::unique_ptr<grpc::internal::MethodHandler> inner_;
  const std::string type_;
};

// What is registered with gRPC: the A2AService's methods, each calling
// GrpcBinding's (the generated service's signatures, checked by `override`)
// through RequestCheck. The generated service registers its methods with
// gRPC's plain handlers, which cannot be wrapped, so this is done here.
class Registration final : public grpc::Service {
 public:
  explicit Registration(std::unique_ptr<GrpcBinding> binding) : binding_(std::move(binding)) {
    unary("SendMessage", &GrpcBinding::SendMessage);
    streaming("SendStreamingMessage", &GrpcBinding::SendStreamingMessage);
    unary("GetTask", &GrpcBinding::GetTask);
    unary("ListTasks", &GrpcBinding::ListTasks);
    unary("CancelTask", &GrpcBinding::CancelTask);
    streaming("SubscribeToTask", &GrpcBinding::SubscribeToTask);
    unary("CreateTaskPushNotificationConfig", &GrpcBinding::CreateTaskPushNotificationConfig);
    unary("GetTaskPushNotificationConfig", &GrpcBinding::GetTaskPushNotificationConfig);
    unary("ListTaskPushNotificationConfigs", &GrpcBinding::ListTaskPushNotificationConfigs);
    unary("GetExtendedAgentCard", &GrpcBinding::GetExtendedAgentCard);
    unary("DeleteTaskPushNotificationConfig", &GrpcBinding::DeleteTaskPushNotificationConfig);
  }

 private:
  template <class Req, class Resp>
  void unary(const char* method, grpc::Status (GrpcBinding::*fn)(grpc::ServerContext*, const Req*, Resp*)) {
    add(method, grpc::internal::RpcMethod::NORMAL_RPC,
        new grpc::internal::RpcMethodHandler<GrpcBinding, Req, Resp>(
            [fn](GrpcBinding* b, grpc::ServerContext* ctx, const Req* req, Resp* res) {
              return (b->*fn)(ctx, req, res);
            },
            binding_.get()),
        Req::descriptor()->full_name());
  }

  template <class Req, class Resp>
  void streaming(const char* method,
                 grpc::Status (GrpcBinding::*fn)(grpc::ServerContext*, const Req*, grpc::ServerWriter<Resp>*)) {
    add(method, grpc::internal::RpcMethod::SERVER_STREAMING,
        new grpc::internal::ServerStreamingHandler<GrpcBinding, Req, Resp>(
            [fn](GrpcBinding* b, grpc::ServerContext* ctx, const Req* req, grpc::ServerWriter<Resp>* w) {
              return (b->*fn)(ctx, req, w);
            },
            binding_.get()),
        Req::descriptor()->full_name());
  }

  void add(const char* method, grpc::internal::RpcMethod::RpcType type, grpc::internal::MethodHandler* handler,
           const std::string& request_type) {
    names_.push_back("/" + std::string(pb::A2AService::service_full_name()) + "/" + method);
    AddMethod(
        new grpc::internal::RpcServiceMethod(names_.back().c_str(), type, new RequestCheck(handler, request_type)));
  }

  std::unique_ptr<GrpcBinding> binding_;
  std::deque<std::string> names_;  // gRPC keeps pointers to the method names
};

}  // namespace

std::unique_ptr<grpc::Service> make_a2a_grpc_service(std::shared_ptr<A2aService> service,
                                                     A2aGrpcServiceOptions options) {
  return std::make_unique<Registration>(std::make_unique<GrpcBinding>(std::move(service), std::move(options)));
}

}  // namespace kaisha::a2a

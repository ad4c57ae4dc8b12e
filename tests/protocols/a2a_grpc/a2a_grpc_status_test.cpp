// A2A errors as gRPC statuses: the codes of the specification's table and
// the ErrorInfo the details carry.
#include "protocols/a2a_grpc/a2a_grpc_status.hpp"

#include <gtest/gtest.h>

#include "google_rpc_status.pb.h"

namespace kaisha::a2a {
namespace {

google::rpc::Status details_of(const grpc::Status& s) {
  google::rpc::Status d;
  EXPECT_TRUE(d.ParseFromString(s.error_details()));
  return d;
}

TEST(A2aGrpcStatus, A2aErrorsMapToTheSpecificationsCodes) {
  EXPECT_EQ(grpc_code(-32001), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(grpc_code(-32002), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(grpc_code(-32003), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(grpc_code(-32004), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(grpc_code(-32005), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(grpc_code(-32006), grpc::StatusCode::INTERNAL);
  EXPECT_EQ(grpc_code(-32007), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(grpc_code(-32008), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(grpc_code(-32009), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(grpc_code(-32602), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(grpc_code(-32700), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(grpc_code(-32603), grpc::StatusCode::INTERNAL);
  EXPECT_EQ(grpc_code(-32050), grpc::StatusCode::RESOURCE_EXHAUSTED);  // a limit of kaisha serve
}

TEST(A2aGrpcStatus, AnA2aErrorCarriesErrorInfoWithItsData) {
  const grpc::Status s =
      grpc_status(json{{"code", -32001}, {"message", "Task not found: t1"}, {"data", {{"taskId", "t1"}}}});
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(s.error_message(), "Task not found: t1");
  const google::rpc::Status d = details_of(s);
  EXPECT_EQ(d.code(), static_cast<int>(grpc::StatusCode::NOT_FOUND));
  ASSERT_EQ(d.details_size(), 1);
  EXPECT_EQ(d.details(0).type_url(), "type.googleapis.com/google.rpc.ErrorInfo");
  google::rpc::ErrorInfo info;
  ASSERT_TRUE(d.details(0).UnpackTo(&info));
  EXPECT_EQ(info.reason(), "TASK_NOT_FOUND");
  EXPECT_EQ(info.domain(), "a2a-protocol.org");
  EXPECT_EQ(info.metadata().at("taskId"), "t1");
}

TEST(A2aGrpcStatus, AMalformedRequestNamesTheFieldOfTheRequestWithoutDetails) {
  const grpc::Status s = grpc_status(-32602, "params.message.parts: at least one part is required");
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(s.error_message(), "message.parts: at least one part is required");
  EXPECT_TRUE(s.error_details().empty());
}

}  // namespace
}  // namespace kaisha::a2a

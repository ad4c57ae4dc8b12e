#include "transport/endpoint.hpp"

#include <gtest/gtest.h>

namespace kaisha::transport {
namespace {

TEST(Endpoint, LoopbackAndLocalTransportsAreLocal) {
  EXPECT_TRUE(is_local_endpoint("tcp://127.0.0.1:0"));
  EXPECT_TRUE(is_local_endpoint("tcp://127.0.0.1:*"));
  EXPECT_TRUE(is_local_endpoint("tcp://127.1.2.3:5555"));
  EXPECT_TRUE(is_local_endpoint("tcp://localhost:5555"));
  EXPECT_TRUE(is_local_endpoint("tcp://[::1]:5555"));
  EXPECT_TRUE(is_local_endpoint("tcp://10.0.0.1:1;127.0.0.1:5555"));
  EXPECT_TRUE(is_local_endpoint("ipc:///tmp/kaisha.sock"));
  EXPECT_TRUE(is_local_endpoint("inproc://x"));
}

TEST(Endpoint, WildcardsAndNetworkAddressesAreNot) {
  EXPECT_FALSE(is_local_endpoint("tcp://*:5555"));
  EXPECT_FALSE(is_local_endpoint("tcp://0.0.0.0:5555"));
  EXPECT_FALSE(is_local_endpoint("tcp://[::]:5555"));
  EXPECT_FALSE(is_local_endpoint("tcp://eth0:5555"));
  EXPECT_FALSE(is_local_endpoint("tcp://192.168.1.4:5555"));
  EXPECT_FALSE(is_local_endpoint("tcp://127.example.com:5555"));
  EXPECT_FALSE(is_local_endpoint("tcp://127.0.0.1:1;10.0.0.1:5555"));
  EXPECT_FALSE(is_local_endpoint("udp://127.0.0.1:5555"));
  EXPECT_FALSE(is_local_endpoint("tcp://127.0.0.1"));
}

}  // namespace
}  // namespace kaisha::transport

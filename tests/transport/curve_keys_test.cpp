#include "transport/curve_keys.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

namespace kaisha::transport {
namespace {

std::string temp_path(const char* name) {
  return std::string(::testing::TempDir()) + "/kaisha_" + name + "_" + std::to_string(::getpid());
}

TEST(CurveKeys, GeneratesDistinctWellFormedPairs) {
  auto a = generate_curve_keypair();
  auto b = generate_curve_keypair();
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(is_z85_key(a->public_key));
  EXPECT_TRUE(is_z85_key(a->secret_key));
  EXPECT_NE(a->secret_key, b->secret_key);
  auto pub = curve_public_from_secret(a->secret_key);
  ASSERT_TRUE(pub.ok());
  EXPECT_EQ(*pub, a->public_key);
}

TEST(CurveKeys, SaveThenLoadRoundTripsWithPrivatePermissions) {
  auto keys = generate_curve_keypair();
  ASSERT_TRUE(keys.ok());
  std::string path = temp_path("keys_roundtrip");
  ASSERT_TRUE(save_curve_keys(path, *keys).ok());
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto loaded = load_curve_keys(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ(loaded->public_key, keys->public_key);
  EXPECT_EQ(loaded->secret_key, keys->secret_key);
  std::remove(path.c_str());
}

TEST(CurveKeys, LoadRejectsMismatchedAndMalformedFilesWithLocation) {
  auto a = generate_curve_keypair();
  auto b = generate_curve_keypair();
  std::string path = temp_path("keys_bad");
  {
    std::ofstream out(path);
    out << "public: " << b->public_key << "\nsecret: " << a->secret_key << "\n";
  }
  auto r = load_curve_keys(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("does not belong"), std::string::npos) << r.error().message;
  {
    std::ofstream out(path);
    out << "# comment\nsecret: short\n";
  }
  r = load_curve_keys(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find(path + ":2"), std::string::npos) << r.error().message;
  {
    std::ofstream out(path);
    out << "colour: blue\n";
  }
  r = load_curve_keys(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("unknown field 'colour'"), std::string::npos);
  std::remove(path.c_str());
  r = load_curve_keys(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("cannot read key file"), std::string::npos);
}

TEST(CurveKeys, SecretOnlyFileDerivesThePublicKey) {
  auto a = generate_curve_keypair();
  std::string path = temp_path("keys_secret_only");
  {
    std::ofstream out(path);
    out << "secret: \"" << a->secret_key << "\"\n";
  }
  auto r = load_curve_keys(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->public_key, a->public_key);
  std::remove(path.c_str());
}

TEST(CurveKeys, DecodeNamesTheBadKey) {
  auto r = decode_z85_key("abc", "peer 'b' public key");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("peer 'b' public key"), std::string::npos);
}

}  // namespace
}  // namespace kaisha::transport

#include "runtime/halo/replies/agent_roles.hpp"

#include <gtest/gtest.h>

#include "runtime/core/utf8.hpp"
#include "tests/runtime/halo/replies/malformed_replies.hpp"

namespace kaisha::halo {
namespace {

using Roles = std::vector<std::string>;

TEST(AgentRoles, ReadsTheList) {
  Parsed<Roles> p = parse_agent_roles(R"({"agent roles": ["Data Cleaning", " Data Normalization "]})");
  EXPECT_EQ(p.value, (Roles{"Data Cleaning", "Data Normalization"}));
  EXPECT_FALSE(p.defaulted);
  EXPECT_EQ(p.problem, std::nullopt);
}

// The reference iterated its string fallback character by character.
TEST(AgentRoles, ABareStringIsOneRole) {
  Parsed<Roles> p = parse_agent_roles(R"({"agent roles": "Number Theorist"})");
  EXPECT_EQ(p.value, (Roles{"Number Theorist"}));
  EXPECT_FALSE(p.defaulted);
  EXPECT_EQ(*p.problem, "role designer reply: key \"agent roles\" is a string, expected a list; read as one role");
}

TEST(AgentRoles, SkipsWhatIsNotARoleAndSaysSo) {
  Parsed<Roles> p =
      parse_agent_roles(R"({"agent roles": ["Coder", 7, null, {"name": "x"}, "  ", "coder", "Tester\n", "a\tb"]})");
  EXPECT_EQ(p.value, (Roles{"Coder", "Tester", "a b"}));
  EXPECT_FALSE(p.defaulted);
  EXPECT_EQ(*p.problem,
            "role designer reply: skipped 3 entries that are not strings; dropped 1 blank role; dropped 1 repeated "
            "role");
}

TEST(AgentRoles, CutsLongNamesAtACodePoint) {
  std::string long_name = "R";
  for (int i = 0; i < 100; ++i) long_name += "\xE6\x97\xA5";  // 日, 3 bytes: 301 bytes in all
  Parsed<Roles> p = parse_agent_roles(R"({"agent roles": [")" + long_name + R"("]})", RoleLimits{5, 200});
  ASSERT_EQ(p.value.size(), 1u);
  EXPECT_EQ(p.value[0].size(), 199u);  // 1 + 66 * 3: the 67th character would pass 200
  EXPECT_TRUE(utf8::valid(p.value[0]));
  EXPECT_EQ(*p.problem, "role designer reply: cut 1 role to 200 bytes");
}

TEST(AgentRoles, KeepsTheFirstMaxRoles) {
  Parsed<Roles> p = parse_agent_roles(R"({"agent roles": ["a", "b", "c", "d"]})", RoleLimits{2, 200});
  EXPECT_EQ(p.value, (Roles{"a", "b"}));
  EXPECT_EQ(*p.problem, "role designer reply: kept the first 2 roles (max_roles), dropped the 2 entries after them");
  EXPECT_EQ(parse_agent_roles(R"({"agent roles": ["a", "b"]})", RoleLimits{0, 200}).value, (Roles{"a"}));
}

TEST(AgentRoles, TenThousandNamesAreCheap) {
  std::string reply = R"({"agent roles": [)";
  for (int i = 0; i < 10000; ++i) reply += (i ? ",\"" : "\"") + std::string("Role ") + std::to_string(i) + "\"";
  reply += "]}";
  Parsed<Roles> p = parse_agent_roles(reply);
  EXPECT_EQ(p.value, (Roles{"Role 0", "Role 1", "Role 2", "Role 3", "Role 4"}));
  EXPECT_EQ(*p.problem, "role designer reply: kept the first 5 roles (max_roles), dropped the 9995 entries after them");
}

TEST(AgentRoles, NoRoleLeftIsTheAssistant) {
  Parsed<Roles> empty = parse_agent_roles(R"({"agent roles": []})");
  EXPECT_EQ(empty.value, (Roles{"assistant"}));
  EXPECT_TRUE(empty.defaulted);
  EXPECT_EQ(*empty.problem, "role designer reply: key \"agent roles\" lists no role; the roles are [\"assistant\"]");
  Parsed<Roles> blanks = parse_agent_roles(R"({"agent roles": ["", " ", 3]})");
  EXPECT_EQ(blanks.value, (Roles{"assistant"}));
  EXPECT_TRUE(blanks.defaulted);
  Parsed<Roles> number = parse_agent_roles(R"({"agent roles": 3})");
  EXPECT_EQ(number.value, (Roles{"assistant"}));
  EXPECT_NE(number.problem->find("key \"agent roles\" is a number, expected a list of role names"), std::string::npos);
}

TEST(AgentRoles, MalformedRepliesAreTheAssistant) {
  for (const testing::Malformed& m : testing::malformed_replies("agent roles")) {
    Parsed<Roles> p = parse_agent_roles(m.reply);
    EXPECT_EQ(p.value, (Roles{"assistant"})) << m.name;
    EXPECT_TRUE(p.defaulted) << m.name;
    ASSERT_TRUE(p.problem.has_value()) << m.name;
    EXPECT_NE(p.problem->find(m.problem), std::string::npos) << m.name << ": " << *p.problem;
  }
}

}  // namespace
}  // namespace kaisha::halo

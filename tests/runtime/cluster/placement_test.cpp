#include "runtime/cluster/placement.hpp"

#include <gtest/gtest.h>

#include "runtime/cluster/node_resources.hpp"

namespace kaisha::cluster::placement_test {
namespace {

PlacementCandidate node(const std::string& name, std::vector<std::string> models, double free,
                        std::vector<std::string> tags = {}) {
  PlacementCandidate c;
  c.node = name;
  c.capabilities.models = std::move(models);
  c.capabilities.tags = std::move(tags);
  c.free_units = free;
  return c;
}

PlacementRequest ask(const std::string& model, double units, std::vector<std::string> tags = {}) {
  PlacementRequest r;
  r.agent = "Poet";
  r.model = model;
  r.model_ref = "ollama:" + model;
  r.units = units;
  r.tags = std::move(tags);
  return r;
}

TEST(Placement, PicksANodeServingTheModel) {
  auto n = place(ask("mistral", 10), {node("a", {"llama3.2"}, 100), node("b", {"mistral"}, 20)});
  ASSERT_TRUE(n.ok()) << n.error().message;
  EXPECT_EQ(*n, "b");
}

TEST(Placement, ModelMatchesByNameRefOrBareRef) {
  msg::NodeCapabilities c;
  c.models = {"ollama:qwen2.5"};
  EXPECT_TRUE(serves_model(c, "qwen", "ollama:qwen2.5"));
  c.models = {"qwen2.5"};
  EXPECT_TRUE(serves_model(c, "qwen", "ollama:qwen2.5"));
  EXPECT_FALSE(serves_model(c, "llama3.2", "ollama:llama3.2"));
  c.models = {};
  EXPECT_TRUE(serves_model(c, "anything", "x:y"));
}

TEST(Placement, MostFreeUnitsWinsAndTiesGoByName) {
  EXPECT_EQ(*place(ask("m", 1), {node("c", {}, 50), node("b", {}, 80), node("a", {}, 70)}), "b");
  EXPECT_EQ(*place(ask("m", 1), {node("c", {}, 50), node("b", {}, 50)}), "b");
}

TEST(Placement, TagsUnitsLivenessAndExclusionAreConstraints) {
  auto down = node("a", {}, 100, {"gpu"});
  down.alive = false;
  auto r = ask("m", 30, {"gpu"});
  r.exclude = {"d"};
  auto n = place(r, {down, node("b", {}, 100), node("c", {}, 20, {"gpu"}), node("d", {}, 100, {"gpu"}),
                     node("e", {}, 30, {"gpu"})});
  ASSERT_TRUE(n.ok()) << n.error().message;
  EXPECT_EQ(*n, "e");
}

TEST(Placement, RefusalSaysWhyEachNodeWasTurnedDown) {
  auto down = node("a", {}, 100);
  down.alive = false;
  auto n =
      place(ask("mistral", 30, {"gpu"}), {down, node("b", {"llama3.2"}, 100), node("c", {}, 10), node("d", {}, 100)});
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.error().code, "placement");
  const std::string& m = n.error().message;
  EXPECT_NE(m.find("agent 'Poet'"), std::string::npos) << m;
  EXPECT_NE(m.find("a: not alive"), std::string::npos) << m;
  EXPECT_NE(m.find("b: does not serve mistral"), std::string::npos) << m;
  EXPECT_NE(m.find("c: 10 resource units free, 30 needed"), std::string::npos) << m;
  EXPECT_NE(m.find("d: lacks tag 'gpu'"), std::string::npos) << m;
  EXPECT_FALSE(place(ask("m", 0), {}).ok());
}

TEST(NodeResources, ReservationsNeverExceedCapacity) {
  NodeResources r;
  r.set_capacity("a", 50);
  EXPECT_TRUE(r.reserve("a", "x", 30).ok());
  auto refused = r.reserve("a", "y", 30);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("node 'a' has 20 resource units free, agent 'y' needs 30"), std::string::npos);
  EXPECT_TRUE(r.reserve("a", "y", 20).ok());
  EXPECT_EQ(r.free("a"), 0);
  EXPECT_FALSE(r.reserve("a", "x", 0).ok());  // one hold per agent
  EXPECT_EQ(r.release("x"), std::optional<std::string>("a"));
  EXPECT_EQ(r.free("a"), 30);
  EXPECT_EQ(r.release("x"), std::nullopt);
}

TEST(NodeResources, LosingANodeReleasesItsAgents) {
  NodeResources r;
  r.set_capacity("a", 100);
  r.set_capacity("b", 100);
  r.reserve("a", "x", 10);
  r.reserve("b", "y", 10);
  r.reserve("a", "z", 10);
  EXPECT_EQ(r.release_node("a"), (std::vector<std::string>{"x", "z"}));
  EXPECT_EQ(r.used("a"), 0);
  EXPECT_EQ(r.node_of("y"), std::optional<std::string>("b"));
  EXPECT_EQ(r.agents_on("b"), std::vector<std::string>{"y"});
}

}  // namespace
}  // namespace kaisha::cluster::placement_test

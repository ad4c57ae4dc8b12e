#include "runtime/economy/cost_table.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/economy/budget.hpp"

namespace kaisha::economy {
namespace {

using ::testing::HasSubstr;

TEST(CostTable, DefaultFileHasHashiruValues) {
  auto t = load_cost_table_file(std::string(KAISHA_SOURCE_DIR) + "/data/cost_table.yaml");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->size(), 13u);
  const ModelCost* m = t->find("mistral");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->model_ref, "ollama:mistral");
  EXPECT_EQ(m->type, "local");
  EXPECT_DOUBLE_EQ(m->create_resource_cost, 20);
  EXPECT_DOUBLE_EQ(m->invoke_resource_cost, 100);
  const ModelCost* l = t->find("llama3.2");
  ASSERT_NE(l, nullptr);
  EXPECT_DOUBLE_EQ(l->create_resource_cost, 10);
  EXPECT_DOUBLE_EQ(l->invoke_resource_cost, 40);
  const ModelCost* d = t->find("deepseek-r1");
  ASSERT_NE(d, nullptr);
  EXPECT_DOUBLE_EQ(d->invoke_resource_cost, 150);
  const ModelCost* g = t->find("gemini:gemini-2.5-pro-exp-03-25");  // by model_ref
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->name, "gemini-2.5-pro-exp-03-25");
  EXPECT_EQ(g->type, "cloud");
  EXPECT_DOUBLE_EQ(g->invoke_expense_cost, 1.25);
  EXPECT_DOUBLE_EQ(g->output_expense_cost, 10.0);
  EXPECT_DOUBLE_EQ(t->find("gemini-1.5-flash-8b")->invoke_expense_cost, 0.0375);
  EXPECT_EQ(t->find("groq-qwen-qwq-32b")->model_ref, "groq:qwen-qwq-32b");
  EXPECT_DOUBLE_EQ(t->find("groq-qwen-qwq-32b")->output_expense_cost, 0.39);
  EXPECT_EQ(t->find("lambda-hermes3-8b")->model_ref, "lambda:hermes3-8b");
  EXPECT_DOUBLE_EQ(t->find("gpt-4o-mini")->output_expense_cost, 0.60);
  EXPECT_DOUBLE_EQ(t->find("anthropic:claude-3-5-haiku-latest")->invoke_expense_cost, 0.80);
  EXPECT_EQ(t->find("nope"), nullptr);
}

TEST(CostTable, ToJsonIsAgentCostManagerShape) {
  auto t = parse_cost_table(
      "models:\n  mistral:\n    create_resource_cost: 20\n    invoke_resource_cost: 100\n"
      "    description: strong\n",
      "t.yaml");
  ASSERT_TRUE(t) << t.error().message;
  json j = t->to_json();
  ASSERT_TRUE(j.contains("mistral"));
  EXPECT_EQ(j["mistral"]["description"], "strong");
  EXPECT_EQ(j["mistral"]["create_resource_cost"], 20.0);
  EXPECT_EQ(j["mistral"]["output_expense_cost"], 0.0);
  EXPECT_EQ(j["mistral"].size(), 6u);
  // Defaults when type/model_ref are left out.
  EXPECT_EQ(t->find("mistral")->type, "cloud");
  EXPECT_EQ(t->find("mistral")->model_ref, "mistral");
}

TEST(CostTable, TypeInferredFromOllamaRef) {
  auto t = parse_cost_table("models:\n  a:\n    model_ref: ollama:a\n  b:\n    type: local\n", "t.yaml");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->find("a")->type, "local");
  EXPECT_EQ(t->find("b")->model_ref, "ollama:b");
}

TEST(CostTable, YamlRoundTripAndSet) {
  auto t = load_cost_table_file(std::string(KAISHA_SOURCE_DIR) + "/data/cost_table.yaml");
  ASSERT_TRUE(t);
  // Case Study 1: the system rewrites a row; later hires use the new values.
  ModelCost m = *t->find("llama3.2");
  m.create_resource_cost = 14;
  m.invoke_resource_cost = 15;
  m.description = "1 Billion parameter model";
  t->set(m);
  EXPECT_EQ(t->size(), 13u);
  auto back = parse_cost_table(t->to_yaml(), "roundtrip.yaml");
  ASSERT_TRUE(back) << back.error().message << "\n" << t->to_yaml();
  EXPECT_EQ(back->to_json(), t->to_json());
  EXPECT_DOUBLE_EQ(back->find("llama3.2")->create_resource_cost, 14);
  Budget b(100, 10);
  ASSERT_TRUE(b.hire(*back->find("llama3.2")));
  EXPECT_DOUBLE_EQ(b.resource().used(), 14);
  EXPECT_TRUE(t->remove("llama3.2"));
  EXPECT_EQ(t->find("llama3.2"), nullptr);
}

TEST(CostTable, PlacementTagsAreReadWrittenAndCarriedInASpecsCosts) {
  auto t =
      parse_cost_table("models:\n  big:\n    model_ref: ollama:big\n    tags: [gpu, fast]\n  small: {}\n", "t.yaml");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->find("big")->tags, (std::vector<std::string>{"gpu", "fast"}));
  EXPECT_TRUE(t->find("small")->tags.empty());
  auto back = parse_cost_table(t->to_yaml(), "roundtrip.yaml");
  ASSERT_TRUE(back) << back.error().message << "\n" << t->to_yaml();
  EXPECT_EQ(back->find("big")->tags, t->find("big")->tags);
  // AgentCostManager's answer keeps HASHIRU's six fields; a hire's spec carries the tags.
  EXPECT_EQ(t->to_json()["big"].size(), 6u);
  EXPECT_EQ(spec_costs_json(*t->find("big"))["tags"], json({"gpu", "fast"}));
  EXPECT_FALSE(spec_costs_json(*t->find("small")).contains("tags"));

  auto bad = parse_cost_table("models:\n  big:\n    tags: gpu\n", "c.yaml");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "c.yaml:3: models.big.tags: expected a list of strings");
}

TEST(CostTable, ErrorsNameFileLineAndKey) {
  auto bad_number = parse_cost_table(
      "models:\n  mistral:\n    create_resource_cost: 20\n    invoke_resource_cost: lots\n", "costs.yaml");
  ASSERT_FALSE(bad_number);
  EXPECT_EQ(bad_number.error().message,
            "costs.yaml:4: models.mistral.invoke_resource_cost: expected a number, got \"lots\"");

  auto unknown = parse_cost_table("models:\n  mistral:\n    create_resorce_cost: 20\n", "costs.yaml");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().message,
            "costs.yaml:3: unknown key 'create_resorce_cost' in models.mistral (did you mean "
            "'create_resource_cost'?)");

  auto negative = parse_cost_table("models:\n  m:\n    invoke_expense_cost: -1\n", "c.yaml");
  ASSERT_FALSE(negative);
  EXPECT_THAT(negative.error().message, HasSubstr("c.yaml:3: models.m.invoke_expense_cost:"));

  auto bad_type = parse_cost_table("models:\n  m:\n    type: remote\n", "c.yaml");
  ASSERT_FALSE(bad_type);
  EXPECT_THAT(bad_type.error().message, HasSubstr("c.yaml:3: models.m.type: expected"));

  auto syntax = parse_cost_table("models:\n  m: [1, 2\n", "c.yaml");
  ASSERT_FALSE(syntax);
  EXPECT_THAT(syntax.error().message, HasSubstr("c.yaml:"));
  EXPECT_THAT(syntax.error().message, HasSubstr("YAML syntax error"));

  auto top = parse_cost_table("modles: {}\n", "c.yaml");
  ASSERT_FALSE(top);
  EXPECT_EQ(top.error().message, "c.yaml:1: unknown key 'modles' in top level (did you mean 'models'?)");

  auto missing = load_cost_table_file("/nonexistent/dir/costs.yaml");
  ASSERT_FALSE(missing);
  EXPECT_THAT(missing.error().message, HasSubstr("/nonexistent/dir/costs.yaml"));
}

TEST(CostTable, AModelGivenTwiceIsAnError) {
  auto t = parse_cost_table("models:\n  a:\n    model_ref: ollama:a\n  a:\n    model_ref: ollama:b\n", "t.yaml");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message, "t.yaml:4: 'models.a' is given twice (lines 2 and 4); keep one");
}

}  // namespace
}  // namespace kaisha::economy

namespace kaisha::economy {
namespace {

TEST(CostTable, PricedIsTheListedRowOrAFreeLocalModel) {
  CostTable t;
  ModelCost m;
  m.name = "mistral";
  m.model_ref = "ollama:mistral";
  m.type = "local";
  m.invoke_expense_cost = 0.5;
  t.set(m);
  EXPECT_EQ(t.priced("mistral").model_ref, "ollama:mistral");  // by name: calls go to its ref
  EXPECT_DOUBLE_EQ(t.priced("ollama:mistral").invoke_expense_cost, 0.5);
  ModelCost free = t.priced("ollama:qwen3:0.6b");
  EXPECT_EQ(free.name, "ollama:qwen3:0.6b");
  EXPECT_EQ(free.model_ref, "ollama:qwen3:0.6b");
  EXPECT_EQ(free.type, "local");
  EXPECT_DOUBLE_EQ(free.invoke_expense_cost, 0);
  EXPECT_DOUBLE_EQ(free.create_resource_cost, 0);
}

}  // namespace
}  // namespace kaisha::economy

// A C++ tool the CEO can call: Multiply, offered by a ToolSource of this
// program. The CEO (on the mock LLM) calls it and answers with its result.
//   multiply_tool config.yaml
#include <kaisha/company.hpp>
#include <kaisha/tools.hpp>

#include <iostream>

class Multiply : public kaisha::ToolSource {
 public:
  std::string origin() const override { return "embed"; }

  std::vector<kaisha::ToolSpec> specs() const override {
    kaisha::ToolSpec s;
    s.name = "Multiply";
    s.description = "Multiplies two numbers.";
    s.parameters = {{"type", "object"},
                    {"properties", {{"a", {{"type", "number"}}}, {"b", {{"type", "number"}}}}},
                    {"required", {"a", "b"}}};
    return {s};
  }

  // Quick enough to answer at once; slow work would go to a thread of its own.
  void call(const std::string&, const kaisha::json& args, const kaisha::ToolCallContext& ctx,
            std::function<void(kaisha::ToolResult)> done) override {
    const double product = args["a"].get<double>() * args["b"].get<double>();
    std::cerr << "Multiply called by " << ctx.agent << " in task " << ctx.task_id << "\n";
    done(kaisha::ToolResult::success("the product", product));
  }
};

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: multiply_tool CONFIG.yaml\n";
    return 2;
  }
  kaisha::CompanyOptions options;
  options.config_file = argv[1];
  options.tools.push_back(std::make_shared<Multiply>());
  auto company = kaisha::Company::start(std::move(options));
  if (!company) {
    std::cerr << company.error().message << "\n";
    return 1;
  }
  kaisha::TaskResult r = (*company)->run("Please multiply 6 by 7.");
  if (!r.ok) {
    std::cerr << "task failed: " << r.error << "\n";
    return 1;
  }
  std::cout << r.answer << "\n";
}

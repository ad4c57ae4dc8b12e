// kaisha agents --library FILE: validates a pyramid agent library and shows
// its agents by level and its shape (depth, fan-out, functional agents,
// branching factor). kaisha agents --generate DOMAIN --out FILE: has the
// model write one, checked by the same loader.
#include <cstdio>
#include <filesystem>
#include <future>
#include <iostream>

#include "actors/system/provider_chat_client.hpp"
#include "cli/commands.hpp"
#include "runtime/core/data_paths.hpp"
#include "runtime/core/json_text.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/economy/budget.hpp"
#include "runtime/economy/cost_table.hpp"
#include "runtime/pyramid/agent_library.hpp"
#include "runtime/pyramid/library_generation.hpp"

namespace kaisha::cli {

int agent_library_command(const std::string& path, bool as_json) {
  auto lib = pyramid::AgentLibrary::load_file(path);
  if (!lib.ok()) {
    std::cerr << "kaisha: " << lib.error().message << "\n";
    return 2;
  }
  const pyramid::LibraryShape shape = lib->shape();
  if (as_json) {
    json agents = json::array();
    for (const auto& a : lib->agents())
      agents.push_back({{"name", a.name},
                        {"level", a.level},
                        {"description", a.description},
                        {"available_tools", a.available_tools},
                        {"model", a.model},
                        {"max_turns", a.max_turns}});
    std::cout << dump_text(json{{"library", path},
                                {"max_children", lib->max_children()},
                                {"agents", agents},
                                {"shape", shape.to_json()}},
                           2)
              << "\n";
    return 0;
  }
  std::cout << path << ": " << lib->agents().size() << " agent(s), max " << lib->max_children() << " sub-agents each\n";
  int top = 0;
  for (const auto& a : lib->agents()) top = std::max(top, a.level);
  for (int level = top; level >= -1; --level)
    for (const auto& a : lib->agents()) {
      if (a.level != level) continue;
      std::cout << "  level " << a.level << "  " << a.name;
      if (a.level >= 1) std::cout << "  (" << shape.fan_out.at(a.name) << " sub-agents)";
      if (!a.model.empty()) std::cout << "  model " << a.model;
      if (!a.candidates.empty()) {
        std::cout << "  candidates";
        for (const auto& m : a.candidates) std::cout << " " << m;
      }
      std::cout << "\n";
    }
  std::cout << "depth L " << shape.depth << ", functional agents N_func " << shape.functional << ", mean branching b "
            << shape.branching << "\n";
  std::cout << "roots:";
  for (const auto& r : shape.roots) std::cout << " " << r;
  std::cout << "\n";
  return 0;
}

int generate_library_command(const CommonOptions& o, const std::string& description, const std::string& out,
                             int attempts) {
  if (out.empty()) {
    std::cerr << "kaisha: agents --generate needs --out FILE.yaml (the library file to write)\n";
    return 2;
  }
  if (std::filesystem::exists(out)) {
    std::cerr << "kaisha: " << out << " exists; choose another --out or remove it\n";
    return 2;
  }
  auto c = load_cli_config(o, /*needs_model=*/true);
  if (!c) {
    std::cerr << "kaisha: " << c.error().message << "\n";
    return 2;
  }
  auto generation = pyramid::LibraryGeneration::create(utf8::repair(description), out, attempts, c->prompts_dir);
  if (!generation) {
    std::cerr << "kaisha: " << generation.error().message << "\n";
    return 2;
  }
  auto table = economy::load_cost_table_file(c->cost_table_file.empty() ? data_file("data/cost_table.yaml")
                                                                        : c->cost_table_file);
  if (!table) {
    std::cerr << "kaisha: " << table.error().message << "\n";
    return 2;
  }
  const economy::ModelCost cost = table->priced(c->ceo.model);
  auto chat = actors::make_provider_chat_client(*c);
  if (Status s = chat->check_model(cost.model_ref); !s.ok()) {
    std::cerr << "kaisha: " << s.error().message << "\n";
    return 2;
  }

  int64_t tokens_in = 0, tokens_out = 0;
  double usd = 0;
  auto report = [&](const std::string& status, const std::string& error) {
    if (!o.json) return;
    json line{{"library", out},     {"status", status},       {"attempts", generation->attempts()},
              {"model", cost.name}, {"tokens_in", tokens_in}, {"tokens_out", tokens_out},
              {"usd", usd}};
    if (!error.empty()) line["error"] = error;
    std::cout << dump_text(line) << "\n";
  };
  llm::ChatRequest request = generation->first_request();
  for (;;) {
    if (!o.quiet)
      std::cerr << "asking " << cost.model_ref << " for a library (answer " << generation->attempts() + 1 << " of "
                << attempts << ")\n";
    std::promise<Result<llm::ChatResponse>> answered;
    company::ChatHandlers handlers;
    handlers.on_done = [&answered](Result<llm::ChatResponse> r) { answered.set_value(std::move(r)); };
    chat->chat(cost.model_ref, request, std::move(handlers));
    Result<llm::ChatResponse> r = answered.get_future().get();
    if (!r) {
      std::cerr << "kaisha: the model call failed: " << r.error().message << "\n";
      report("failed", r.error().message);
      return 1;
    }
    tokens_in += r->usage.input_tokens;
    tokens_out += r->usage.output_tokens;
    usd += economy::Budget::expense_for(cost, r->usage.input_tokens, r->usage.output_tokens);
    auto step = generation->on_answer(r->message.content);
    if (step.kind == pyramid::LibraryGeneration::Step::Kind::ask_again) {
      if (!o.quiet) std::cerr << "refused: " << step.error << "\n";
      request = std::move(step.request);
      continue;
    }
    if (step.kind == pyramid::LibraryGeneration::Step::Kind::failed) {
      std::cerr << "kaisha: no valid library after " << generation->attempts()
                << " answers; the last was refused: " << step.error << "\n";
      report("failed", step.error);
      return 1;
    }
    // "x": never replace a file that appeared meanwhile.
    std::FILE* f = std::fopen(out.c_str(), "wx");
    bool written = f && std::fwrite(step.yaml.data(), 1, step.yaml.size(), f) == step.yaml.size();
    if (f) written = std::fclose(f) == 0 && written;
    if (!written) {
      std::cerr << "kaisha: could not write " << out << (f ? "" : " (it exists now, or its folder does not)") << "\n";
      return 1;
    }
    report("written", "");
    if (!o.json) {
      auto lib = pyramid::AgentLibrary::load_file(out);
      std::cout << "wrote " << out << ": " << (lib ? lib->agents().size() : 0) << " agent(s) after "
                << generation->attempts() << " answer(s); " << tokens_in << " in / " << tokens_out << " out tokens, $"
                << usd << "\n"
                << "check it with: kaisha agents --library " << out << "\n";
    }
    return 0;
  }
}

}  // namespace kaisha::cli

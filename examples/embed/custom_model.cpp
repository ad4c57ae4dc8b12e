// A model backend of this program: model refs "upper:<name>" are answered
// here (the model repeats its prompt in capitals); every other ref goes on
// to the providers of the configuration (here the mock LLM). The CEO hires
// Shouter on such a model and asks it.
//   custom_model config.yaml
#include <kaisha/company.hpp>
#include <kaisha/model.hpp>

#include <cctype>
#include <iostream>

class UpperModels : public kaisha::ModelBackend {
 public:
  explicit UpperModels(std::shared_ptr<kaisha::ModelBackend> others) : others_(std::move(others)) {}

  kaisha::Status check_model(const std::string& ref) const override {
    return ours(ref) ? kaisha::Status() : others_->check_model(ref);
  }

  void chat(const std::string& ref, kaisha::ChatRequest request, kaisha::ModelHandlers handlers) override {
    if (!ours(ref)) return others_->chat(ref, std::move(request), std::move(handlers));
    std::string text = request.messages.empty() ? "" : request.messages.back().content;
    for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    kaisha::ChatResponse response;
    response.model = ref;
    response.message.role = kaisha::Role::assistant;
    response.message.content = text;
    response.usage.input_tokens = 5;
    response.usage.output_tokens = 5;
    response.finish_reason = "stop";
    handlers.on_done(std::move(response));  // at once: no I/O to wait for
  }

 private:
  static bool ours(const std::string& ref) { return ref.rfind("upper:", 0) == 0; }
  std::shared_ptr<kaisha::ModelBackend> others_;
};

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: custom_model CONFIG.yaml\n";
    return 2;
  }
  auto providers = kaisha::default_models(argv[1]);
  if (!providers) {
    std::cerr << providers.error().message << "\n";
    return 1;
  }
  kaisha::CompanyOptions options;
  options.config_file = argv[1];
  options.models = std::make_shared<UpperModels>(*providers);
  auto company = kaisha::Company::start(std::move(options));
  if (!company) {
    std::cerr << company.error().message << "\n";
    return 1;
  }
  kaisha::TaskResult r = (*company)->run("Hire someone to shout a greeting.");
  if (!r.ok) {
    std::cerr << "task failed: " << r.error << "\n";
    return 1;
  }
  std::cout << r.answer << "\n";
}

// The pyramid's training data and trainer runs end to end (InfiAgent's
// Eq. 13): a candidates task (examples/pyramid/candidates.yaml) runs through
// the real binary against the mock LLM; `kaisha pyramid export-training`
// writes its main-branch records as JSONL, `kaisha pyramid train` runs a
// trainer script once per candidate model on the same dataset, and
// `kaisha pyramid trained` shows what the journal kept.
#include <sys/stat.h>

#include <fstream>
#include <iterator>
#include <sstream>

#include "e2e_fixture.hpp"

namespace kaisha::e2e {
namespace {

const std::string kPyramidExamples = std::string(KAISHA_SOURCE_DIR) + "/examples/pyramid/";

class PyramidTrainingTest : public E2eTest {
 protected:
  std::string config(const std::string& training) {
    ConfigOptions o;
    o.ceo_model = "openai:lead-model";
    o.extra = "strategy: pyramid\npyramid:\n  library: " + kPyramidExamples + "candidates.yaml\n  entry: lead_agent\n" +
              training + "tools:\n  workspace_root: " + dir_.file("work") + "\n";
    return write_config(o);
  }

  static std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }

  static std::vector<json> lines(const std::string& text) {
    std::vector<json> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
    return out;
  }

  // A trainer: logs its arguments, fails for openai:large, and prints the
  // version it made for the others.
  std::string trainer() {
    const std::string path = dir_.write("train.sh",
                                        "#!/bin/sh\n"
                                        "echo \"$1 $2 $3 $4\" >> " +
                                            dir_.file("trainer.log") +
                                            "\n"
                                            "case \"$1\" in *large) echo 'out of memory 💥' >&2; exit 3;; esac\n"
                                            "echo \"training $1 on $(wc -l < \"$2\") records\"\n"
                                            "echo \"{\\\"model\\\": \\\"$1-ft\\\"}\"\n");
    chmod(path.c_str(), 0755);
    return path;
  }
};

TEST_F(PyramidTrainingTest, TheMergedCallIsExportedAndEveryCandidateIsTrainedOnTheSameDataset) {
  start_mock_file(kPyramidExamples + "candidates_scenario.yaml");
  const std::string cfg =
      config("  training:\n    command: [" + trainer() + ", \"{model}\", \"{dataset}\", \"{sha256}\", \"{agent}\"]\n");
  RunResult r = run_json(cfg, "Write a program that prints the 10th Fibonacci number");
  ASSERT_EQ(r.exit_code, 0) << r.describe();

  // D(B_main) of coder_agent: small-b's merged call only (small-a's was
  // rejected, large's approved but lost its merge).
  const std::string out = dir_.file("coder.jsonl");
  RunResult exp = kaisha({"pyramid", "export-training", "--config", cfg, "--agent", "coder_agent", "--out", out});
  ASSERT_EQ(exp.exit_code, 0) << exp.describe();
  const std::string text = read(out);
  auto records = lines(text);
  ASSERT_EQ(records.size(), 1u) << text;
  const json& m = records[0]["messages"];
  EXPECT_FALSE(records[0].contains("metadata"));
  EXPECT_EQ(m[0]["role"], "user");
  EXPECT_EQ(m[0]["content"], "Write code_run/fib.py that prints the 10th Fibonacci number");
  EXPECT_EQ(m[1]["tool_calls"][0]["function"]["name"], "file_write");
  EXPECT_NE(m[1]["tool_calls"][0]["function"]["arguments"].get<std::string>().find("a, b = b, a + b"),
            std::string::npos)
      << m.dump(2);
  EXPECT_EQ(m[2]["role"], "tool");
  const json& last = m.back()["tool_calls"][0]["function"];
  EXPECT_EQ(last["name"], "final_output");
  EXPECT_EQ(json::parse(last["arguments"].get<std::string>())["output"], "code_run/fib.py prints 55");
  RunResult sum = run_process("/usr/bin/sha256sum", {out});
  ASSERT_EQ(sum.exit_code, 0) << sum.describe();
  const std::string sha = sum.out.substr(0, 64);
  EXPECT_NE(exp.err.find("1 record of coder_agent from 1 task in " + out + " (sha256 " + sha + ")"), std::string::npos)
      << exp.describe();

  // To stdout, with metadata: the same record, naming its model and verdict.
  RunResult meta = kaisha({"pyramid", "export-training", "--config", cfg, "--agent", "coder_agent", "--metadata"});
  ASSERT_EQ(meta.exit_code, 0) << meta.describe();
  auto with = lines(meta.out);
  ASSERT_EQ(with.size(), 1u) << meta.out;
  EXPECT_EQ(with[0]["messages"], records[0]["messages"]);
  EXPECT_EQ(with[0]["metadata"]["model"], "openai:small-b");
  EXPECT_EQ(with[0]["metadata"]["staff"], "coder_agent__2");
  EXPECT_EQ(with[0]["metadata"]["verdict"]["status"], "success");

  // Bad input says what was wrong.
  RunResult nobody = kaisha({"pyramid", "export-training", "--config", cfg, "--agent", "coder"});
  EXPECT_EQ(nobody.exit_code, 2);
  EXPECT_NE(nobody.err.find("--agent 'coder' is not an agent of"), std::string::npos) << nobody.describe();
  EXPECT_NE(nobody.err.find("coder_agent"), std::string::npos) << nobody.describe();
  RunResult bad_day =
      kaisha({"pyramid", "export-training", "--config", cfg, "--agent", "coder_agent", "--since", "7/12/2026"});
  EXPECT_EQ(bad_day.exit_code, 2);
  EXPECT_NE(bad_day.err.find("--since '7/12/2026' is not a date: expected YYYY-MM-DD"), std::string::npos)
      << bad_day.describe();
  RunResult later =
      kaisha({"pyramid", "export-training", "--config", cfg, "--agent", "coder_agent", "--since", "2999-01-01"});
  EXPECT_EQ(later.exit_code, 0) << later.describe();
  EXPECT_EQ(later.out, "");
  RunResult nothing = kaisha({"pyramid", "train", "--config", cfg, "--agent", "coder_agent", "--since", "2999-01-01"});
  EXPECT_EQ(nothing.exit_code, 1);
  EXPECT_NE(nothing.err.find("nothing to train on"), std::string::npos) << nothing.describe();

  // Training: the trainer runs once per candidate, each with the same dataset
  // and hash; the failed run is recorded with its exit and stderr.
  RunResult tr = kaisha({"pyramid", "train", "--config", cfg, "--agent", "coder_agent", "--json"});
  EXPECT_EQ(tr.exit_code, 1) << tr.describe();  // one run failed
  const json result = json::parse(tr.out);
  EXPECT_EQ(result["dataset"]["sha256"], sha);
  EXPECT_EQ(result["dataset"]["records"], 1);
  EXPECT_EQ(read(result["dataset"]["path"].get<std::string>()), text);
  const std::string dataset = result["dataset"]["path"];
  auto called = read(dir_.file("trainer.log"));
  EXPECT_EQ(called, "openai:small-a " + dataset + " " + sha + " coder_agent\n" + "openai:small-b " + dataset + " " +
                        sha + " coder_agent\n" + "openai:large " + dataset + " " + sha + " coder_agent\n");
  ASSERT_EQ(result["runs"].size(), 3u);
  EXPECT_EQ(result["runs"][0]["version"], "openai:small-a-ft");
  EXPECT_EQ(result["runs"][1]["ok"], true);
  EXPECT_EQ(result["runs"][2]["ok"], false);
  EXPECT_EQ(result["runs"][2]["error"], "exited with 3");
  EXPECT_NE(result["runs"][2]["stderr"].get<std::string>().find("out of memory 💥"), std::string::npos);

  // The journal kept every run.
  RunResult list = kaisha({"pyramid", "trained", "--config", cfg, "--json"});
  ASSERT_EQ(list.exit_code, 0) << list.describe();
  const json runs = json::parse(list.out)["runs"];
  ASSERT_EQ(runs.size(), 3u) << list.out;
  EXPECT_EQ(runs[1]["model"], "openai:small-b");
  EXPECT_EQ(runs[1]["version"], "openai:small-b-ft");
  EXPECT_EQ(runs[2]["dataset"]["sha256"], sha);
  RunResult shown = kaisha({"pyramid", "trained", "--config", cfg});
  EXPECT_NE(shown.out.find("coder_agent  openai:small-b  trained -> openai:small-b-ft  dataset " + sha.substr(0, 12)),
            std::string::npos)
      << shown.describe();
}

TEST_F(PyramidTrainingTest, TrainingWithoutATrainerSaysWhatToConfigure) {
  start_mock_file(kPyramidExamples + "candidates_scenario.yaml");
  const std::string cfg = config("");
  RunResult r = run_json(cfg, "Write a program that prints the 10th Fibonacci number");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  RunResult tr = kaisha({"pyramid", "train", "--config", cfg, "--agent", "coder_agent"});
  EXPECT_EQ(tr.exit_code, 2);
  EXPECT_NE(tr.err.find("pyramid.training.command is not set"), std::string::npos) << tr.describe();
  const std::string missing = config("  training:\n    command: [kaisha-no-such-trainer]\n");
  RunResult gone = kaisha({"pyramid", "train", "--config", missing, "--agent", "coder_agent"});
  EXPECT_EQ(gone.exit_code, 2);
  EXPECT_NE(gone.err.find("pyramid.training.command: 'kaisha-no-such-trainer' was not found in $PATH"),
            std::string::npos)
      << gone.describe();
  RunResult none = kaisha({"pyramid", "trained", "--config", cfg});
  EXPECT_EQ(none.out, "no training runs yet\n");
}

}  // namespace
}  // namespace kaisha::e2e

// Replays a fuzz target's inputs without libFuzzer: every file named on the
// command line, or found in a folder named there, is passed once to
// LLVMFuzzerTestOneInput. The normal build links each tests/fuzz target with
// this main so that ctest runs the committed seeds and every input under
// tests/fuzz/crashes/ as regression tests, with any compiler.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    fs::path arg = argv[i];
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      for (const auto& entry : fs::recursive_directory_iterator(arg))
        if (entry.is_regular_file()) inputs.push_back(entry.path());
    } else if (fs::exists(arg, ec)) {
      inputs.push_back(arg);
    }
    // A folder that does not exist (no crash was ever kept) holds no input.
  }
  for (const auto& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      std::fprintf(stderr, "fuzz replay: cannot read %s\n", path.c_str());
      return 2;
    }
    // Printed first so that a crash names the input that caused it.
    std::fprintf(stderr, "fuzz replay: %s\n", path.c_str());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("fuzz replay: %zu inputs, no failure\n", inputs.size());
  return 0;
}

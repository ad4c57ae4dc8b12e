// A line plot written as a PNG file, for the benchmarks' figures, with no
// library beyond the standard one: series drawn as lines on linear axes
// from 0, tick labels and a title in a built-in 5x7 font (upper-case
// letters, digits and a little punctuation; other characters are left
// blank), the image compressed with run-length deflate (a plot is mostly
// runs of one colour).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kaisha::bench {

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
};

class LinePlot {
 public:
  LinePlot(std::string title, std::string x_label, std::string y_label)
      : title_(std::move(title)), x_label_(std::move(x_label)), y_label_(std::move(y_label)) {}

  // A series of (x, y) points, joined in order, named in the legend.
  void add(std::string name, Rgb colour, std::vector<std::pair<double, double>> points);

  // Writes the plot as a width x height PNG; false with `error` set when the
  // file cannot be written.
  bool write_png(const std::string& path, int width, int height, std::string* error) const;

 private:
  struct Series {
    std::string name;
    Rgb colour;
    std::vector<std::pair<double, double>> points;
  };
  std::string title_, x_label_, y_label_;
  std::vector<Series> series_;
};

// The PNG encoding of an RGB image (rows top to bottom, 3 bytes a pixel).
std::string encode_png(int width, int height, const std::vector<uint8_t>& rgb);

}  // namespace kaisha::bench

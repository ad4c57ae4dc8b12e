// A plot written as a PNG file — the benchmarks' figures and `kaisha eval
// --plot` — with no library beyond the standard one: series drawn as lines
// or as points on linear axes from 0, a legend, tick labels and a title in a
// built-in 5x7 font (letters shown upper-case, digits and a little
// punctuation; other characters, those of other scripts among them, are
// left blank), the image compressed with run-length deflate (a plot is
// mostly runs of one colour).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kaisha::plot {

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
};

class LinePlot {
 public:
  LinePlot(std::string title, std::string x_label, std::string y_label)
      : title_(std::move(title)), x_label_(std::move(x_label)), y_label_(std::move(y_label)) {}

  enum class Marks { lines, points };

  // A series of (x, y) points, named in the legend: joined in order, or
  // each drawn as a square of side kPointSide centred on it, 4 pixels larger
  // for each later series with a point on the same spot (so that points
  // that coincide all show, as rings).
  void add(std::string name, Rgb colour, std::vector<std::pair<double, double>> points, Marks marks = Marks::lines);

  // The plot as a width x height RGB image (rows top to bottom, 3 bytes a
  // pixel), and where a data point lands in it.
  std::vector<uint8_t> render(int width, int height) const;
  std::pair<int, int> pixel_of(double x, double y, int width, int height) const;

  // Writes the plot as a width x height PNG; false with `error` set when the
  // file cannot be written.
  bool write_png(const std::string& path, int width, int height, std::string* error) const;

  static constexpr int kPointSide = 9;

 private:
  struct Series {
    std::string name;
    Rgb colour;
    std::vector<std::pair<double, double>> points;
    Marks marks;
  };
  // The axes' ends: the largest x and y, rounded up to 1, 2 or 5 times a power of ten.
  std::pair<double, double> axis_ends() const;
  std::string title_, x_label_, y_label_;
  std::vector<Series> series_;
};

// The PNG encoding of an RGB image (rows top to bottom, 3 bytes a pixel).
std::string encode_png(int width, int height, const std::vector<uint8_t>& rgb);

}  // namespace kaisha::plot

#include "runtime/plot/line_plot.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>

namespace kaisha::plot {
namespace {

// ------------------------------------------------------------------ font

// 5x7 glyphs, one string of 7 rows of 5 columns each ('#' = ink).
const std::map<char, std::array<const char*, 7>>& glyphs() {
  static const std::map<char, std::array<const char*, 7>> g = {
      {'0', {" ### ", "#   #", "#  ##", "# # #", "##  #", "#   #", " ### "}},
      {'1', {"  #  ", " ##  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "}},
      {'2', {" ### ", "#   #", "    #", "   # ", "  #  ", " #   ", "#####"}},
      {'3', {"#####", "   # ", "  #  ", "   # ", "    #", "#   #", " ### "}},
      {'4', {"   # ", "  ## ", " # # ", "#  # ", "#####", "   # ", "   # "}},
      {'5', {"#####", "#    ", "#### ", "    #", "    #", "#   #", " ### "}},
      {'6', {"  ## ", " #   ", "#    ", "#### ", "#   #", "#   #", " ### "}},
      {'7', {"#####", "    #", "   # ", "  #  ", " #   ", " #   ", " #   "}},
      {'8', {" ### ", "#   #", "#   #", " ### ", "#   #", "#   #", " ### "}},
      {'9', {" ### ", "#   #", "#   #", " ####", "    #", "   # ", " ##  "}},
      {'A', {" ### ", "#   #", "#   #", "#####", "#   #", "#   #", "#   #"}},
      {'B', {"#### ", "#   #", "#   #", "#### ", "#   #", "#   #", "#### "}},
      {'C', {" ### ", "#   #", "#    ", "#    ", "#    ", "#   #", " ### "}},
      {'D', {"###  ", "#  # ", "#   #", "#   #", "#   #", "#  # ", "###  "}},
      {'E', {"#####", "#    ", "#    ", "#### ", "#    ", "#    ", "#####"}},
      {'F', {"#####", "#    ", "#    ", "#### ", "#    ", "#    ", "#    "}},
      {'G', {" ### ", "#   #", "#    ", "# ###", "#   #", "#   #", " ####"}},
      {'H', {"#   #", "#   #", "#   #", "#####", "#   #", "#   #", "#   #"}},
      {'I', {" ### ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "}},
      {'J', {"  ###", "   # ", "   # ", "   # ", "   # ", "#  # ", " ##  "}},
      {'K', {"#   #", "#  # ", "# #  ", "##   ", "# #  ", "#  # ", "#   #"}},
      {'L', {"#    ", "#    ", "#    ", "#    ", "#    ", "#    ", "#####"}},
      {'M', {"#   #", "## ##", "# # #", "# # #", "#   #", "#   #", "#   #"}},
      {'N', {"#   #", "#   #", "##  #", "# # #", "#  ##", "#   #", "#   #"}},
      {'O', {" ### ", "#   #", "#   #", "#   #", "#   #", "#   #", " ### "}},
      {'P', {"#### ", "#   #", "#   #", "#### ", "#    ", "#    ", "#    "}},
      {'Q', {" ### ", "#   #", "#   #", "#   #", "# # #", "#  # ", " ## #"}},
      {'R', {"#### ", "#   #", "#   #", "#### ", "# #  ", "#  # ", "#   #"}},
      {'S', {" ####", "#    ", "#    ", " ### ", "    #", "    #", "#### "}},
      {'T', {"#####", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  "}},
      {'U', {"#   #", "#   #", "#   #", "#   #", "#   #", "#   #", " ### "}},
      {'V', {"#   #", "#   #", "#   #", "#   #", "#   #", " # # ", "  #  "}},
      {'W', {"#   #", "#   #", "#   #", "# # #", "# # #", "# # #", " # # "}},
      {'X', {"#   #", "#   #", " # # ", "  #  ", " # # ", "#   #", "#   #"}},
      {'Y', {"#   #", "#   #", " # # ", "  #  ", "  #  ", "  #  ", "  #  "}},
      {'Z', {"#####", "    #", "   # ", "  #  ", " #   ", "#    ", "#####"}},
      {'.', {"     ", "     ", "     ", "     ", "     ", " ##  ", " ##  "}},
      {',', {"     ", "     ", "     ", "     ", " ##  ", "  #  ", " #   "}},
      {'-', {"     ", "     ", "     ", "#####", "     ", "     ", "     "}},
      {'|', {"  #  ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  "}},
      {'(', {"   # ", "  #  ", " #   ", " #   ", " #   ", "  #  ", "   # "}},
      {')', {" #   ", "  #  ", "   # ", "   # ", "   # ", "  #  ", " #   "}},
      {'/', {"     ", "    #", "   # ", "  #  ", " #   ", "#    ", "     "}},
      {':', {"     ", " ##  ", " ##  ", "     ", " ##  ", " ##  ", "     "}},
      {'=', {"     ", "     ", "#####", "     ", "#####", "     ", "     "}},
      {'%', {"##   ", "##  #", "   # ", "  #  ", " #   ", "#  ##", "   ##"}},
      {'$', {"  #  ", " ####", "# #  ", " ### ", "  # #", "#### ", "  #  "}},
      {'_', {"     ", "     ", "     ", "     ", "     ", "     ", "#####"}},
      {'+', {"     ", "  #  ", "  #  ", "#####", "  #  ", "  #  ", "     "}},
  };
  return g;
}

class Canvas {
 public:
  Canvas(int w, int h) : w_(w), h_(h), rgb_(static_cast<size_t>(w) * static_cast<size_t>(h) * 3, 255) {}

  void dot(int x, int y, Rgb c) {
    if (x < 0 || y < 0 || x >= w_ || y >= h_) return;
    uint8_t* p = &rgb_[(static_cast<size_t>(y) * static_cast<size_t>(w_) + static_cast<size_t>(x)) * 3];
    p[0] = c.r;
    p[1] = c.g;
    p[2] = c.b;
  }
  void rect(int x0, int y0, int x1, int y1, Rgb c) {
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x) dot(x, y, c);
  }
  // A line `thick` pixels wide (Bresenham, with a square pen).
  void line(int x0, int y0, int x1, int y1, Rgb c, int thick = 1) {
    const int dx = std::abs(x1 - x0), sx = x0 < x1 ? 1 : -1, dy = -std::abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
    int err = dx + dy;
    while (true) {
      rect(x0 - thick / 2, y0 - thick / 2, x0 + (thick - 1) / 2, y0 + (thick - 1) / 2, c);
      if (x0 == x1 && y0 == y1) break;
      const int e2 = 2 * err;
      if (e2 >= dy) {
        err += dy;
        x0 += sx;
      }
      if (e2 <= dx) {
        err += dx;
        y0 += sy;
      }
    }
  }
  // Text with its top-left corner at (x, y), each font pixel `scale` wide.
  void text(int x, int y, const std::string& s, Rgb c, int scale = 1) {
    for (char ch : s) {
      auto it = glyphs().find(static_cast<char>(std::toupper(static_cast<unsigned char>(ch))));
      if (it != glyphs().end())
        for (int row = 0; row < 7; ++row)
          for (int col = 0; col < 5; ++col)
            if (it->second[static_cast<size_t>(row)][col] == '#')
              rect(x + col * scale, y + row * scale, x + (col + 1) * scale - 1, y + (row + 1) * scale - 1, c);
      x += 6 * scale;
    }
  }
  static int text_width(const std::string& s, int scale = 1) { return static_cast<int>(s.size()) * 6 * scale; }
  const std::vector<uint8_t>& rgb() const { return rgb_; }

 private:
  int w_, h_;
  std::vector<uint8_t> rgb_;
};

// A round axis end at or above `v`: 1, 2 or 5 times a power of ten.
double nice_ceiling(double v) {
  if (v <= 0) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= v) return m * p;
  return 10 * p;
}

std::string tick_text(double v) {
  char buf[32];
  if (v >= 1e6 && std::fmod(v, 1e5) == 0)
    std::snprintf(buf, sizeof buf, "%gM", v / 1e6);
  else if (v >= 1e3 && std::fmod(v, 100) == 0)
    std::snprintf(buf, sizeof buf, "%gK", v / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// ------------------------------------------------------------------ PNG

uint32_t crc32(const uint8_t* data, size_t n, uint32_t crc = 0) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  crc = ~crc;
  for (size_t i = 0; i < n; ++i) crc = table[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

// Writes deflate's bit stream: least significant bit first.
class BitWriter {
 public:
  void bits(uint32_t value, int count) {
    for (int i = 0; i < count; ++i) {
      acc_ |= ((value >> i) & 1u) << used_;
      if (++used_ == 8) flush_byte();
    }
  }
  // A Huffman code goes most significant bit first.
  void code(uint32_t value, int length) {
    for (int i = length - 1; i >= 0; --i) bits((value >> i) & 1u, 1);
  }
  std::string finish() {
    if (used_) flush_byte();
    return std::move(out_);
  }

 private:
  void flush_byte() {
    out_.push_back(static_cast<char>(acc_));
    acc_ = 0;
    used_ = 0;
  }
  std::string out_;
  uint32_t acc_ = 0;
  int used_ = 0;
};

// A literal/length symbol in deflate's fixed Huffman code (RFC 1951 3.2.6).
void fixed_symbol(BitWriter& w, int s) {
  if (s < 144)
    w.code(0x30 + s, 8);
  else if (s < 256)
    w.code(0x190 + (s - 144), 9);
  else if (s < 280)
    w.code(s - 256, 7);
  else
    w.code(0xC0 + (s - 280), 8);
}

// A match of `length` (3..258) bytes at distance `distance` (1..4, no extra bits).
void fixed_match(BitWriter& w, int length, int distance) {
  static const int base[] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                             31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
  static const int extra[] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
  int i = 28;
  while (base[i] > length) --i;
  fixed_symbol(w, 257 + i);
  w.bits(static_cast<uint32_t>(length - base[i]), extra[i]);
  w.code(static_cast<uint32_t>(distance - 1), 5);  // distance codes 0..3 are distances 1..4
}

// zlib stream of `data`: one fixed-Huffman block whose only matches repeat
// the previous pixel (distance 3), which is what a plot is mostly made of.
std::string zlib_compress(const std::vector<uint8_t>& data) {
  BitWriter w;
  w.bits(1, 1);  // the final block
  w.bits(1, 2);  // fixed Huffman codes
  size_t i = 0;
  while (i < data.size()) {
    size_t run = 0;
    if (i >= 3)
      while (i + run < data.size() && run < 258 && data[i + run] == data[i + run - 3]) ++run;
    if (run >= 3) {
      fixed_match(w, static_cast<int>(run), 3);
      i += run;
    } else {
      fixed_symbol(w, data[i]);
      ++i;
    }
  }
  fixed_symbol(w, 256);
  std::string out = "\x78\x01";
  out += w.finish();
  uint32_t a = 1, b = 0;
  for (uint8_t byte : data) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  const uint32_t adler = (b << 16) | a;
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((adler >> shift) & 0xFF));
  return out;
}

void put_u32(std::string& s, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) s.push_back(static_cast<char>((v >> shift) & 0xFF));
}

void chunk(std::string& png, const char* type, const std::string& data) {
  put_u32(png, static_cast<uint32_t>(data.size()));
  std::string body = std::string(type, 4) + data;
  png += body;
  put_u32(png, crc32(reinterpret_cast<const uint8_t*>(body.data()), body.size()));
}

}  // namespace

std::string encode_png(int width, int height, const std::vector<uint8_t>& rgb) {
  std::vector<uint8_t> raw;
  raw.reserve(static_cast<size_t>(height) * (static_cast<size_t>(width) * 3 + 1));
  for (int y = 0; y < height; ++y) {
    raw.push_back(0);  // filter: none
    const auto row = rgb.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(y) * static_cast<size_t>(width) * 3);
    raw.insert(raw.end(), row, row + width * 3);
  }
  std::string png = "\x89PNG\r\n\x1a\n";
  std::string ihdr;
  put_u32(ihdr, static_cast<uint32_t>(width));
  put_u32(ihdr, static_cast<uint32_t>(height));
  ihdr += std::string("\x08\x02\x00\x00\x00", 5);  // 8 bits, RGB, deflate, no filter choice, no interlace
  chunk(png, "IHDR", ihdr);
  chunk(png, "IDAT", zlib_compress(raw));
  chunk(png, "IEND", "");
  return png;
}

void LinePlot::add(std::string name, Rgb colour, std::vector<std::pair<double, double>> points, Marks marks) {
  series_.push_back(Series{std::move(name), colour, std::move(points), marks});
}

namespace {

// The plot area's margins.
constexpr int kLeft = 80, kRight = 30, kTop = 50, kBottom = 60;

// Where (x, y) lands in a width x height image whose axes end at xmax, ymax.
std::pair<int, int> to_pixel(double x, double y, double xmax, double ymax, int width, int height) {
  const int x0 = kLeft, x1 = width - kRight, y0 = height - kBottom, y1 = kTop;
  return {x0 + static_cast<int>(std::lround((x1 - x0) * x / xmax)),
          y0 - static_cast<int>(std::lround((y0 - y1) * y / ymax))};
}

}  // namespace

std::pair<double, double> LinePlot::axis_ends() const {
  double xmax = 0, ymax = 0;
  for (const auto& s : series_)
    for (const auto& [x, y] : s.points) {
      if (std::isfinite(x)) xmax = std::max(xmax, x);
      if (std::isfinite(y)) ymax = std::max(ymax, y);
    }
  return {nice_ceiling(xmax), nice_ceiling(ymax)};
}

std::pair<int, int> LinePlot::pixel_of(double x, double y, int width, int height) const {
  const auto [xmax, ymax] = axis_ends();
  return to_pixel(x, y, xmax, ymax, width, height);
}

std::vector<uint8_t> LinePlot::render(int width, int height) const {
  Canvas c(width, height);
  const Rgb ink{40, 40, 40}, grid{225, 225, 225};
  const int x0 = kLeft, x1 = width - kRight, y0 = height - kBottom, y1 = kTop;
  const auto [xmax, ymax] = axis_ends();
  // The axes' ends once, not once a point.
  auto px = [&](double x) { return to_pixel(x, 0, xmax, ymax, width, height).first; };
  auto py = [&](double y) { return to_pixel(0, y, xmax, ymax, width, height).second; };

  c.text((width - Canvas::text_width(title_, 2)) / 2, 12, title_, ink, 2);
  for (int i = 0; i <= 5; ++i) {
    const double xv = xmax * i / 5, yv = ymax * i / 5;
    c.line(px(xv), y0, px(xv), y1, grid);
    c.line(x0, py(yv), x1, py(yv), grid);
    const std::string xt = tick_text(xv), yt = tick_text(yv);
    c.text(px(xv) - Canvas::text_width(xt) / 2, y0 + 8, xt, ink);
    c.text(x0 - 8 - Canvas::text_width(yt), py(yv) - 3, yt, ink);
  }
  c.line(x0, y0, x1, y0, ink);
  c.line(x0, y0, x0, y1, ink);
  c.text((x0 + x1 - Canvas::text_width(x_label_)) / 2, y0 + 26, x_label_, ink);
  c.text(8, kTop - 16, y_label_, ink);

  int legend_y = y1 + 10;
  // Points of different series may coincide (two runs of the same accuracy
  // and cost): a point is drawn 4 pixels larger for each later series with
  // a point on it, so each stays in sight as a ring around the later ones.
  auto covered_by_later = [&](size_t series, int x, int y) {
    int n = 0;
    for (size_t later = series + 1; later < series_.size(); ++later) {
      if (series_[later].marks != Marks::points) continue;
      for (const auto& [lx, ly] : series_[later].points)
        if (std::isfinite(lx) && std::isfinite(ly) && std::abs(px(lx) - x) < kPointSide &&
            std::abs(py(ly) - y) < kPointSide) {
          ++n;
          break;
        }
    }
    return n;
  };
  for (size_t si = 0; si < series_.size(); ++si) {
    const Series& s = series_[si];
    if (s.marks == Marks::lines) {
      for (size_t i = 1; i < s.points.size(); ++i)
        c.line(px(s.points[i - 1].first), py(s.points[i - 1].second), px(s.points[i].first), py(s.points[i].second),
               s.colour, 2);
      c.rect(x0 + 12, legend_y, x0 + 24, legend_y + 6, s.colour);
    } else {
      for (const auto& [x, y] : s.points) {
        if (!std::isfinite(x) || !std::isfinite(y)) continue;
        const int half = kPointSide / 2 + 2 * covered_by_later(si, px(x), py(y));
        c.rect(px(x) - half, py(y) - half, px(x) + half, py(y) + half, s.colour);
      }
      c.rect(x0 + 15, legend_y - 1, x0 + 21, legend_y + 5, s.colour);
    }
    c.text(x0 + 30, legend_y, s.name, ink);
    legend_y += 14;
  }
  return c.rgb();
}

bool LinePlot::write_png(const std::string& path, int width, int height, std::string* error) const {
  std::ofstream out(path, std::ios::binary);
  const std::string png = encode_png(width, height, render(width, height));
  out.write(png.data(), static_cast<std::streamsize>(png.size()));
  if (!out) {
    if (error) *error = "cannot write " + path;
    return false;
  }
  return true;
}

}  // namespace kaisha::plot

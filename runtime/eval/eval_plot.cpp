#include "runtime/eval/eval_plot.hpp"

#include <array>
#include <cstdio>

#include "runtime/plot/line_plot.hpp"

namespace kaisha::eval {

std::string plot_legend(const PlotPoint& p) {
  char text[64];
  std::snprintf(text, sizeof text, ": %.1f %% at $%.4f", p.accuracy * 100, p.usd);
  return p.label + text;
}

Status write_accuracy_cost_plot(const std::string& path, const std::string& title,
                                const std::vector<PlotPoint>& points) {
  if (points.empty()) return Error{"eval", "--plot " + path + ": there is no run to plot"};
  // Distinct on white and for the common colour-vision deficiencies.
  static constexpr std::array<plot::Rgb, 8> kColours = {{{0, 114, 178},
                                                         {213, 94, 0},
                                                         {0, 158, 115},
                                                         {204, 121, 167},
                                                         {230, 159, 0},
                                                         {86, 180, 233},
                                                         {120, 120, 120},
                                                         {0, 0, 0}}};
  plot::LinePlot figure(title, "cost ($)", "accuracy (%)");
  for (size_t i = 0; i < points.size(); ++i)
    figure.add(plot_legend(points[i]), kColours[i % kColours.size()], {{points[i].usd, points[i].accuracy * 100}},
               plot::LinePlot::Marks::points);
  std::string error;
  if (!figure.write_png(path, kPlotWidth, kPlotHeight, &error)) return Error{"eval", "--plot: " + error};
  return Status::Ok();
}

}  // namespace kaisha::eval

// `kaisha eval --plot FILE.png`: a run's accuracy against what it cost, one
// point per configuration — the strategy's full run, each ablation, the
// model alone — so a paper's "accuracy against cost" and "accuracy per
// ablation" figures come out of the run that measured them.
#pragma once

#include <string>
#include <vector>

#include "runtime/core/result.hpp"

namespace kaisha::eval {

struct PlotPoint {
  std::string label;    // in the legend, with its accuracy and cost
  double usd = 0;       // x: dollars spent
  double accuracy = 0;  // y: in [0, 1], drawn as a percentage
};

inline constexpr int kPlotWidth = 800;
inline constexpr int kPlotHeight = 500;

// The legend's text of a point: "full: 80.0 % at $0.0120".
std::string plot_legend(const PlotPoint& p);

// Writes the plot as a kPlotWidth x kPlotHeight PNG. An error names the file
// when it cannot be written, and when there is no point to draw.
Status write_accuracy_cost_plot(const std::string& path, const std::string& title,
                                const std::vector<PlotPoint>& points);

}  // namespace kaisha::eval

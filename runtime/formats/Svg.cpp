//===- Svg.cpp - SVG figures: text, numbers, axes -------------------------===//

#include "runtime/formats/Svg.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace energy;
using llvm::StringRef;

std::string svg::esc(StringRef s) {
  std::string o;
  for (char c : s)
    switch (c) {
    case '&':
      o += "&amp;";
      break;
    case '<':
      o += "&lt;";
      break;
    case '>':
      o += "&gt;";
      break;
    case '"':
      o += "&quot;";
      break;
    default:
      o += c;
    }
  return o;
}

std::string svg::num(double v, int sig) {
  if (v == 0 || !std::isfinite(v))
    return std::isfinite(v) ? "0" : "?";
  int mag = int(std::floor(std::log10(std::fabs(v))));
  int decimals = std::max(0, sig - 1 - mag);
  if (mag > 6 || mag < -4)
    return llvm::formatv("{0:e2}", v).str();
  return llvm::formatv(("{0:F" + std::to_string(decimals) + "}").c_str(), v)
      .str();
}

std::string svg::tickLabel(double v, double step) {
  int decimals = std::max(0, int(std::ceil(-std::log10(step) - 1e-9)));
  if (std::fabs(v) >= 1e7 || (v != 0 && std::fabs(v) < 1e-4)) {
    // As many mantissa digits as the step needs to tell ticks apart.
    int digits = std::clamp(
        int(std::ceil(std::log10(std::fabs(v) / step) - 1e-9)), 1, 12);
    return llvm::formatv(("{0:e" + std::to_string(digits) + "}").c_str(), v)
        .str();
  }
  return llvm::formatv(("{0:F" + std::to_string(decimals) + "}").c_str(), v)
      .str();
}

std::vector<double> svg::ticks(double lo, double hi, int want) {
  double span = hi - lo;
  if (!(span > 0))
    return {lo};
  double raw = span / want, p = std::pow(10, std::floor(std::log10(raw)));
  double step = raw / p < 1.5   ? p
                : raw / p < 3.5 ? 2 * p
                : raw / p < 7.5 ? 5 * p
                                : 10 * p;
  std::vector<double> t;
  for (double v = std::ceil(lo / step) * step; v <= hi + 1e-9 * step; v += step)
    t.push_back(std::fabs(v) < 1e-12 * step ? 0 : v);
  return t;
}

std::string svg::Axes::frame(StringRef xlabel, StringRef ylabel,
                             bool ygrid) const {
  std::string s;
  s += llvm::formatv("<rect class=\"frame\" x=\"{0}\" y=\"{1}\" width=\"{2}\" "
                     "height=\"{3}\" fill=\"none\" stroke=\"#888\"/>\n",
                     left, top, w, h)
           .str();
  // A logarithmic axis: its whole decades, labelled with their values.
  auto decades = [](double lo, double hi) {
    std::vector<double> t;
    for (double d = std::ceil(lo - 1e-9); d <= hi + 1e-9; d += 1)
      t.push_back(d);
    return t;
  };
  auto label = [](double t, double step, bool log) {
    if (!log)
      return tickLabel(t, step);
    int k = int(std::lround(t));
    if (k >= -3 && k <= 5)
      return num(std::pow(10, t), 1);
    return "10<tspan dy=\"-5\" font-size=\"8\">" + std::to_string(k) +
           "</tspan>";
  };
  std::vector<double> tx = logX ? decades(x0, x1) : ticks(x0, x1),
                      ty = logY ? decades(y0, y1) : ticks(y0, y1);
  double sx = tx.size() > 1 ? tx[1] - tx[0] : 1,
         sy = ty.size() > 1 ? ty[1] - ty[0] : 1;
  for (double t : tx)
    s += llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" "
                       "stroke=\"#888\"/><text x=\"{0}\" y=\"{3}\" "
                       "text-anchor=\"middle\" class=\"tick\">{4}</text>\n",
                       X(t), top + h, top + h + 5, top + h + 18,
                       label(t, sx, logX))
             .str();
  if (ygrid)
    for (double t : ty)
      s += llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" "
                         "stroke=\"#e4e4e4\"/><text x=\"{3}\" y=\"{4}\" "
                         "text-anchor=\"end\" class=\"tick\">{5}</text>\n",
                         left, Y(t), left + w, left - 6, Y(t) + 4,
                         label(t, sy, logY))
               .str();
  s += llvm::formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\" "
                     "class=\"label\">{2}</text>\n",
                     left + w / 2, top + h + 38, esc(xlabel))
           .str();
  if (!ylabel.empty())
    s += llvm::formatv("<text transform=\"translate({0},{1}) rotate(-90)\" "
                       "text-anchor=\"middle\" class=\"label\">{2}</text>\n",
                       left - 58, top + h / 2, esc(ylabel))
             .str();
  return s;
}

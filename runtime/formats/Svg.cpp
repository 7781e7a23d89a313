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

std::vector<std::string> svg::tickLabels(const std::vector<double> &t) {
  std::vector<std::string> out;
  if (t.empty())
    return out;
  double step = t.size() > 1 ? t[1] - t[0] : std::max(std::fabs(t[0]), 1.0);
  double big = 0;
  for (double v : t)
    big = std::max(big, std::fabs(v));
  // One style for the whole axis (not "2.0e-05" beside "0.00010"):
  // scientific where its largest tick is huge or tiny, with as many
  // mantissa digits as the step needs to tell ticks apart.
  bool sci = big >= 1e7 || (big > 0 && big < 1e-4);
  // (All ticks 0 -- a zero-width range -- has no step to read.)
  bool finite = big > 0 && step > 0;
  int decimals =
      finite ? std::max(0, int(std::ceil(-std::log10(step) - 1e-9))) : 0;
  int digits =
      finite ? std::clamp(int(std::ceil(std::log10(big / step) - 1e-9)), 1, 12)
             : 1;
  for (double v : t)
    out.push_back(
        sci ? llvm::formatv(("{0:e" + std::to_string(digits) + "}").c_str(), v)
                  .str()
            : llvm::formatv(("{0:F" + std::to_string(decimals) + "}").c_str(),
                            v)
                  .str());
  return out;
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
  // Every tick of an axis in one style: a logarithmic axis's decades as
  // plain numbers where all of them are ordinary sizes, else all as powers
  // of ten.
  auto labels = [](const std::vector<double> &t, bool log) {
    if (!log)
      return tickLabels(t);
    bool plain = std::all_of(t.begin(), t.end(), [](double d) {
      return std::lround(d) >= -3 && std::lround(d) <= 5;
    });
    std::vector<std::string> out;
    for (double d : t)
      out.push_back(plain ? num(std::pow(10, d), 1)
                          : "10<tspan dy=\"-5\" font-size=\"8\">" +
                                std::to_string(std::lround(d)) + "</tspan>");
    return out;
  };
  std::vector<double> tx = logX ? decades(x0, x1) : ticks(x0, x1),
                      ty = logY ? decades(y0, y1) : ticks(y0, y1);
  std::vector<std::string> lx = labels(tx, logX), ly = labels(ty, logY);
  for (size_t i = 0; i < tx.size(); ++i)
    s += llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" "
                       "stroke=\"#888\"/><text x=\"{0}\" y=\"{3}\" "
                       "text-anchor=\"middle\" class=\"tick\">{4}</text>\n",
                       X(tx[i]), top + h, top + h + 5, top + h + 18, lx[i])
             .str();
  if (ygrid)
    for (size_t i = 0; i < ty.size(); ++i)
      s +=
          llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" "
                        "stroke=\"#e4e4e4\"/><text x=\"{3}\" y=\"{4}\" "
                        "text-anchor=\"end\" class=\"tick\">{5}</text>\n",
                        left, Y(ty[i]), left + w, left - 6, Y(ty[i]) + 4, ly[i])
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

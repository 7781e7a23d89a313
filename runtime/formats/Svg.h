//===- Svg.h - SVG figures: text, numbers, axes ------------------*- C++ -*-===//
//
// The one home of the project's SVG figure primitives: the HTML report's
// figures (translate/Report.cpp) and energy-prof route's horizon plot
// (tools/energy-prof/Route.cpp). MLIR-free (LLVM Support for formatting).
//
//===----------------------------------------------------------------------===//

#ifndef RUNTIME_FORMATS_SVG_H
#define RUNTIME_FORMATS_SVG_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace energy::svg {

/// `s` as XML text or attribute content.
std::string esc(llvm::StringRef s);

/// A number with `sig` significant digits, no exponent for ordinary sizes.
std::string num(double v, int sig = 4);

/// An axis's tick labels, in one style: as many decimals (or, for huge or
/// tiny values, mantissa digits) as the step needs, no more.
std::vector<std::string> tickLabels(const std::vector<double> &ticks);

/// "Nice" axis ticks (1, 2, 5 x 10^k) covering [lo, hi].
std::vector<double> ticks(double lo, double hi, int want = 6);

/// A plot area mapping data to pixels. On a logarithmic axis (`logX`,
/// `logY`) the data and the range are log10 of the values, and the ticks
/// are the whole decades in range, labelled with their values.
struct Axes {
  double x0, x1, y0, y1;  ///< data ranges
  double left, top, w, h; ///< pixels
  bool logX = false, logY = false;
  double X(double x) const { return left + (x - x0) / (x1 - x0) * w; }
  double Y(double y) const { return top + h - (y - y0) / (y1 - y0) * h; }
  /// Frame, ticks, grid and labels.
  std::string frame(llvm::StringRef xlabel, llvm::StringRef ylabel,
                    bool ygrid = true) const;
};

} // namespace energy::svg

#endif // RUNTIME_FORMATS_SVG_H

//===- Report.cpp - a self-contained HTML report and SVG figures ----------===//
//
// --export-report: one HTML file (inline SVG, a few lines of JS for the
// hover read-out, no network, no external fonts or scripts) with the
// time-energy frontier (points, the plan, the baseline, the certified lower
// bound at the limit, the limit), the timeline (devices x time, tasks
// coloured by power, idle gaps blank), the energy breakdown (static vs
// dynamic per device with the 95 % interval) and the plan's clocks per
// device. --export-svg: the frontier figure alone. docs/REPORT.md.
//
//===----------------------------------------------------------------------===//

#include "translate/Translate.h"

#include "calculus/Schedule.h"
#include "dialect/Energy/Energy.h"
#include "dialect/Energy/Units.h"
#include "dialect/Sched/SchedGraph.h"
#include "passes/Passes.h"
#include "runtime/Version.h"
#include "runtime/formats/Svg.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

using namespace mlir;
using namespace energy;
using namespace energy::sched;

namespace {

using namespace energy::svg;

/// The headline's quantities with SI prefixes ("27.116 mJ in 130.35 us").
std::string joules(double v) {
  return esc(formatQuantity(v, Dimension::Energy, 5));
}
std::string seconds(double v) {
  return esc(formatQuantity(v, Dimension::Time, 5));
}

struct TaskBox {
  std::string name, kind, label;
  uint32_t dev;
  uint32_t stream;
  double t0, T, E, powerW;
  int64_t mhz = -1;
};

struct Data {
  std::string schedule;
  std::vector<std::string> devices; ///< "@name (kind)"
  /// The same, cut for the figures' margins (the whole in a <title>).
  std::vector<std::string> shortDevices;
  /// Per device, each of its streams' row within the device's (a device's
  /// streams run at once: one row each).
  std::vector<std::map<uint32_t, uint32_t>> streamRow;
  size_t taskOps = 0; ///< tasks and collectives (boxes: one per device)
  std::vector<double> staticW;
  std::vector<TaskBox> tasks;
  double makespan = 0;
  std::vector<std::pair<double, double>> frontier;
  DictionaryAttr plan;
  std::vector<double> dynamicJ, varJ;
  std::vector<std::string> inputs; ///< the module's file, for `generator`
};

double planNum(DictionaryAttr d, StringRef key) {
  if (!d)
    return NAN;
  if (auto f = d.getAs<FloatAttr>(key))
    return f.getValueAsDouble();
  return NAN;
}

/// The plan's energy and time as it runs: with its clock switches where
/// their cost was declared (energy.plan's E_with_switches_J and
/// T_with_switches_s; its saving is of those), else its point's.
double planE(DictionaryAttr d) {
  double e = planNum(d, "E_with_switches_J");
  return std::isfinite(e) ? e : planNum(d, "E_J");
}
double planT(DictionaryAttr d) {
  double t = planNum(d, "T_with_switches_s");
  return std::isfinite(t) ? t : planNum(d, "T_s");
}

/// " with its N clock switches" where the plan's switches were costed.
std::string switchesText(DictionaryAttr d) {
  if (!d)
    return "";
  auto n = d.getAs<IntegerAttr>("switches");
  if (!n || !std::isfinite(planNum(d, "E_with_switches_J")))
    return "";
  return " with its " + std::to_string(n.getInt()) + " clock switch" +
         (n.getInt() == 1 ? "" : "es");
}

/// The first character of UTF-8 text (its whole code point), upper-cased
/// where it is ASCII.
std::string initial(StringRef text) {
  if (text.empty())
    return "";
  unsigned char c = text[0];
  size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : 4;
  if (n == 1)
    return std::string(1, char(std::toupper(c)));
  return text.take_front(n).str();
}

/// A label cut to `max` characters (whole UTF-8 code points), "..." where
/// cut: long device names (an imported trace's) would squeeze the plots.
std::string shortLabel(const std::string &text, size_t max = 40) {
  size_t chars = 0, i = 0;
  while (i < text.size() && chars < max) {
    unsigned char c = text[i];
    i += c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : 4;
    ++chars;
  }
  if (i >= text.size())
    return text;
  return text.substr(0, i) + "...";
}

LogicalResult collect(ModuleOp module, Data &d, StringRef flag) {
  ScheduleOp chosen;
  size_t count = 0;
  // Nested modules too: -split-input-file prints one module per chunk.
  module.walk([&](ScheduleOp s) {
    ++count;
    if (!chosen ||
        (!chosen->hasAttr(EnergyDialect::PlanAttrHelper::getNameStr()) &&
         s->hasAttr(EnergyDialect::PlanAttrHelper::getNameStr())))
      chosen = s;
  });
  if (!chosen)
    return mlir::emitError(energy::moduleErrorLoc(module), flag)
           << ": no sched.schedule to report";
  if (count > 1)
    mlir::emitWarning(chosen.getLoc(), flag)
        << ": the module has " << count << " schedules; reporting @"
        << chosen.getSymName() << " only (the planned one, else the first)";
  if (!chosen.getBody().getOps<PipelineOp>().empty() ||
      !chosen.getBody().getOps<ServeOp>().empty())
    return chosen.emitOpError(flag) << ": expand the generators first "
                                       "(--sched-expand)";
  std::vector<double> start;
  FailureOr<SchedGraph> g = SchedGraph::buildAsPlanned(chosen, start);
  if (failed(g))
    return failure();
  const calculus::Schedule &s = g->schedule;
  d.schedule = chosen.getSymName().str();
  d.plan = chosen->getAttrOfType<DictionaryAttr>(
      EnergyDialect::PlanAttrHelper::getNameStr());
  if (auto f = chosen->getAttrOfType<ArrayAttr>(
          EnergyDialect::FrontierAttrHelper::getNameStr()))
    for (Attribute a : f)
      if (auto pt = dyn_cast<ArrayAttr>(a); pt && pt.size() >= 2 &&
                                            isa<FloatAttr>(pt[0]) &&
                                            isa<FloatAttr>(pt[1]))
        d.frontier.push_back({cast<FloatAttr>(pt[0]).getValueAsDouble(),
                              cast<FloatAttr>(pt[1]).getValueAsDouble()});
  double origin =
      start.empty() ? 0 : *std::min_element(start.begin(), start.end());
  size_t nDev = s.devices.size();
  d.dynamicJ.assign(nDev, 0);
  d.varJ.assign(nDev, 0);
  for (uint32_t dev = 0; dev < nDev; ++dev) {
    sched::DeviceOp op = g->deviceOps[dev];
    d.devices.push_back(
        ("@" + op.getSymName() + " (" + op.getKind() + ")").str());
    d.shortDevices.push_back(shortLabel(d.devices.back()));
    d.staticW.push_back(s.devices[dev].staticPower);
  }
  d.streamRow.resize(nDev);
  // Ops, not parts: a measured collective is one task of several parts.
  d.taskOps =
      llvm::SmallPtrSet<Operation *, 32>(g->taskOps.begin(), g->taskOps.end())
          .size();
  for (const calculus::ScheduleTask &task : s.tasks)
    for (uint32_t dev : task.devices)
      d.streamRow[dev].emplace(task.stream, 0);
  for (auto &rows : d.streamRow) {
    uint32_t i = 0;
    for (auto &[stream, row] : rows)
      row = i++;
  }
  for (uint32_t t = 0; t < s.tasks.size(); ++t) {
    const calculus::ScheduleTask &task = s.tasks[t];
    Operation *op = g->taskOps[t];
    for (uint32_t dev : task.devices) {
      calculus::Signature share = calculus::taskShare(s, t, dev);
      TaskBox b;
      b.name = SymbolTable::getSymbolName(op).getValue().str();
      if (auto k = dyn_cast<TaskOp>(op))
        if (std::optional<StringRef> kind = k.getKind())
          b.kind = kind->str();
      // The box's label: kind initial and microbatch ("F3", "B0") where the
      // pipeline generator recorded them in theta, else the name before its
      // first '_'.
      IntegerAttr mb;
      if (auto k = dyn_cast<TaskOp>(op))
        if (DictionaryAttr theta = k.getThetaAttr())
          mb = theta.getAs<IntegerAttr>("microbatch");
      b.label = mb && !b.kind.empty()
                    ? initial(b.kind) + std::to_string(mb.getInt())
                    : StringRef(b.name).split('_').first.str();
      b.dev = dev;
      b.stream = task.stream;
      b.t0 = start[t] - origin;
      b.T = share.T;
      b.E = share.s * share.T + share.d;
      b.powerW = share.T > 0 ? share.s + share.d / share.T : share.s;
      if (auto dvfs = op->getAttrOfType<OpPointAttr>(
              EnergyDialect::DvfsAttrHelper::getNameStr()))
        if (std::optional<int64_t> mhz = dvfs.getSmMhz())
          b.mhz = *mhz;
      // A clock switch is where its new clock begins (as run-plan sets it).
      if (auto k = dyn_cast<TaskOp>(op);
          k && k.getKind() == "dvfs-switch" && k.getThetaAttr())
        if (auto to = k.getThetaAttr().getAs<IntegerAttr>("to_mhz"))
          b.mhz = to.getInt();
      d.makespan = std::max(d.makespan, b.t0 + b.T);
      d.dynamicJ[dev] += share.d;
      d.varJ[dev] += share.varD;
      d.tasks.push_back(std::move(b));
    }
  }
  // A planned clock holds until the next (--energy-emit-dvfs keeps only
  // the changes): a task without one runs at the clock in force on its
  // device.
  std::vector<size_t> order(d.tasks.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return d.tasks[a].t0 < d.tasks[b].t0;
  });
  std::vector<int64_t> inForce(nDev, -1);
  for (size_t i : order) {
    TaskBox &b = d.tasks[i];
    if (b.mhz >= 0)
      inForce[b.dev] = b.mhz;
    else
      b.mhz = inForce[b.dev];
  }
  d.inputs.clear();
  if (auto loc = dyn_cast<FileLineColLoc>(module.getLoc()))
    d.inputs.push_back(loc.getFilename().str());
  return success();
}

/// Power -> colour: a light-to-dark sequential ramp (viridis-like anchors).
std::string colour(double f) {
  static const int ramp[][3] = {{253, 231, 37},
                                {94, 201, 98},
                                {33, 145, 140},
                                {59, 82, 139},
                                {68, 1, 84}};
  f = std::clamp(f, 0.0, 1.0) * 4;
  int i = std::min(3, int(f));
  double u = f - i;
  int c[3];
  for (int k = 0; k < 3; ++k)
    c[k] = int(std::lround(ramp[i][k] + u * (ramp[i + 1][k] - ramp[i][k])));
  return llvm::formatv("#{0:x-2}{1:x-2}{2:x-2}", c[0], c[1], c[2]).str();
}

std::string frontierSvg(const Data &d, bool standalone) {
  const double W = 720, H = 400;
  Axes ax{0, 1, 0, 1, 88, 28, W - 88 - 24, H - 28 - 62};
  double bT = planNum(d.plan, "baseline_T_s"),
         bE = planNum(d.plan, "baseline_E_J");
  double pT = planT(d.plan), pE = planE(d.plan);
  double lb = planNum(d.plan, "lower_bound_J"),
         limit = planNum(d.plan, "limit_T_s");
  // The plan is a configuration too (annealed at its limit, it may lie
  // below the stored frontier, which is thinned): the staircase of least
  // energy at each time includes it.
  std::vector<std::pair<double, double>> frontier = d.frontier;
  if (!frontier.empty() && std::isfinite(pT) && std::isfinite(pE)) {
    frontier.push_back({pT, pE});
    std::sort(frontier.begin(), frontier.end());
    std::vector<std::pair<double, double>> kept;
    for (auto &pt : frontier)
      if (kept.empty() || pt.second < kept.back().second)
        kept.push_back(pt);
    frontier = std::move(kept);
  }
  std::vector<double> xs, ys;
  for (auto &[t, e] : frontier) {
    xs.push_back(t);
    ys.push_back(e);
  }
  for (double v : {bT, pT, limit})
    if (std::isfinite(v))
      xs.push_back(v);
  for (double v : {bE, pE, lb})
    if (std::isfinite(v) && v > 0)
      ys.push_back(v);
  std::string s =
      llvm::formatv("<svg xmlns=\"http://www.w3.org/2000/svg\" "
                    "id=\"frontier\" viewBox=\"0 0 {0} {1}\" "
                    "width=\"{0}\" height=\"{1}\" "
                    "font-family=\"sans-serif\" font-size=\"12\">\n",
                    W, H)
          .str();
  if (standalone)
    s += "<style>.tick{fill:#444}.label{fill:#222;font-size:13px}</style>\n";
  s += "<title>Time-energy frontier of @" + esc(d.schedule) + "</title>\n";
  if (xs.empty() || ys.empty()) {
    s += "<text x=\"20\" y=\"40\">no frontier: run --energy-frontier and/or "
         "--energy-plan</text></svg>\n";
    return s;
  }
  auto [xmin, xmax] = std::minmax_element(xs.begin(), xs.end());
  auto [ymin, ymax] = std::minmax_element(ys.begin(), ys.end());
  // A range that is (nearly) one value -- a frontier of one point -- gets
  // a window of +-2 % around it, so that its ticks are a few round numbers
  // rather than ten digits apart in the ninth.
  auto pad = [](double lo, double hi, double share) {
    double span = hi - lo, mag = std::max(std::fabs(lo), std::fabs(hi));
    if (span < 1e-3 * mag)
      return std::max(1e-12, 0.02 * mag);
    return std::max(1e-12, span * share);
  };
  double xpad = pad(*xmin, *xmax, 0.05), ypad = pad(*ymin, *ymax, 0.08);
  ax.x0 = *xmin - xpad;
  ax.x1 = *xmax + xpad;
  ax.y0 = *ymin - ypad;
  ax.y1 = *ymax + ypad;
  s += ax.frame("iteration time (s)", "energy per iteration (J)");
  if (std::isfinite(limit)) {
    // Its label at the foot of the line (the legend holds the top right),
    // on the side with room.
    bool right = ax.X(limit) > ax.left + 0.6 * ax.w;
    s += llvm::formatv(
             "<line class=\"limit\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" "
             "y2=\"{2}\" stroke=\"#c0392b\" stroke-dasharray=\"5,4\"/>"
             "<text x=\"{3}\" y=\"{4}\" fill=\"#c0392b\" "
             "text-anchor=\"{5}\">limit {6}</text>\n",
             ax.X(limit), ax.top, ax.top + ax.h, ax.X(limit) + (right ? -4 : 4),
             ax.top + ax.h - 6, right ? "end" : "start",
             esc(formatQuantity(limit, Dimension::Time, 4)))
             .str();
  }
  if (!frontier.empty()) {
    // The frontier is a staircase: a point's energy holds until the next.
    std::string path;
    for (size_t i = 0; i < frontier.size(); ++i) {
      auto [t, e] = frontier[i];
      path +=
          (i ? " L" : "M") + llvm::formatv("{0},{1}", ax.X(t), ax.Y(e)).str();
      if (i + 1 < frontier.size())
        path += llvm::formatv(" L{0},{1}", ax.X(frontier[i + 1].first), ax.Y(e))
                    .str();
    }
    s += "<path class=\"frontier-line\" d=\"" + path +
         "\" fill=\"none\" stroke=\"#2c7fb8\" stroke-width=\"1.5\"/>\n";
    for (auto &[t, e] : frontier)
      s += llvm::formatv(
               "<circle class=\"frontier-point\" cx=\"{0}\" cy=\"{1}\" "
               "r=\"2.6\" fill=\"#2c7fb8\"><title>{2} s, {3} J"
               "</title></circle>\n",
               ax.X(t), ax.Y(e), num(t, 5), num(e, 5))
               .str();
  }
  if (std::isfinite(bT) && std::isfinite(bE))
    s += llvm::formatv("<rect class=\"baseline\" x=\"{0}\" y=\"{1}\" "
                       "width=\"10\" height=\"10\" fill=\"#7f7f7f\"><title>"
                       "baseline (every task at its current signature): {2} s, "
                       "{3} J</title></rect>\n",
                       ax.X(bT) - 5, ax.Y(bE) - 5, num(bT, 5), num(bE, 5))
             .str();
  if (std::isfinite(pT) && std::isfinite(pE))
    s +=
        llvm::formatv("<path class=\"plan\" d=\"M{0},{1} l7,7 l-7,7 l-7,-7 z\" "
                      "fill=\"#e6550d\" stroke=\"#fff\"><title>plan: {2} s, "
                      "{3} J</title></path>\n",
                      ax.X(pT), ax.Y(pE) - 7, num(pT, 5), num(pE, 5))
            .str();
  // The certified bound over the plan's marker (drawn last: they are a
  // pixel or two apart).
  if (std::isfinite(lb) && lb > 0 && std::isfinite(pT))
    s += llvm::formatv(
             "<line class=\"lower-bound\" x1=\"{0}\" y1=\"{1}\" "
             "x2=\"{0}\" y2=\"{2}\" stroke=\"#555\" "
             "stroke-dasharray=\"2,2\"/><line x1=\"{3}\" y1=\"{1}\" "
             "x2=\"{4}\" y2=\"{1}\" stroke=\"#222\" stroke-width=\"2.5\">"
             "<title>certified lower bound at the limit: {5} J</title>"
             "</line>\n",
             ax.X(pT), ax.Y(lb), ax.Y(pE), ax.X(pT) - 12, ax.X(pT) + 12,
             num(lb, 5))
             .str();
  // Legend: what is drawn, and a word on what is not.
  std::vector<std::string> rows;
  double lx = ax.left + ax.w - 250, ly = ax.top + 12;
  auto rowY = [&](size_t k) { return ly + 4 + 19 * double(k); };
  std::string marks;
  if (!frontier.empty()) {
    marks += llvm::formatv("<circle cx=\"{0}\" cy=\"{1}\" r=\"3\" "
                           "fill=\"#2c7fb8\"/>",
                           lx + 10, rowY(rows.size()))
                 .str();
    rows.push_back("frontier (least energy at each time)");
  }
  if (std::isfinite(pT) && std::isfinite(pE)) {
    marks += llvm::formatv("<path d=\"M{0},{1} l6,6 l-6,6 l-6,-6 z\" "
                           "fill=\"#e6550d\"/>",
                           lx + 10, rowY(rows.size()) - 6)
                 .str();
    rows.push_back("plan");
  }
  if (std::isfinite(bT) && std::isfinite(bE)) {
    marks += llvm::formatv("<rect x=\"{0}\" y=\"{1}\" width=\"9\" "
                           "height=\"9\" fill=\"#7f7f7f\"/>",
                           lx + 5.5, rowY(rows.size()) - 4.5)
                 .str();
    rows.push_back("baseline (as the schedule was)");
  }
  if (std::isfinite(lb) && lb > 0 && std::isfinite(pT)) {
    marks += llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" "
                           "y2=\"{1}\" stroke=\"#222\" stroke-width=\"2.5\"/>",
                           lx + 3, rowY(rows.size()), lx + 17)
                 .str();
    rows.push_back("certified lower bound at the limit");
  }
  if (frontier.empty())
    rows.push_back("(no frontier stored: --energy-frontier)");
  s += llvm::formatv("<g class=\"legend\"><rect x=\"{0}\" y=\"{1}\" "
                     "width=\"244\" height=\"{2}\" fill=\"#fff\" "
                     "fill-opacity=\"0.85\" stroke=\"#ccc\"/>",
                     lx, ly - 8, 19 * double(rows.size()) + 6)
           .str() +
       marks;
  for (size_t k = 0; k < rows.size(); ++k)
    s += llvm::formatv("<text x=\"{0}\" y=\"{1}\">{2}</text>", lx + 22,
                       rowY(k) + 4, esc(rows[k]))
             .str();
  s += "</g>\n";
  s += "</svg>\n";
  return s;
}

/// A left margin wide enough for the longest device label (12 px font).
double labelMargin(const Data &d) {
  size_t longest = 0;
  for (const std::string &n : d.shortDevices)
    longest = std::max(longest, n.size());
  return std::max(170.0, 6.8 * double(longest) + 16);
}

std::string timelineSvg(const Data &d) {
  const double W = 1040;
  double rowH = 34, top = 24, left = labelMargin(d);
  double H = top + rowH * d.devices.size() + 62;
  Axes ax{0,
          std::max(d.makespan, 1e-12),
          0,
          1,
          left,
          top,
          W - left - 24,
          rowH * d.devices.size()};
  // The scale starts at the lowest static power (an idle device), so that
  // a few percent between tasks look like a few percent.
  double pmin = INFINITY, pmax = 0;
  for (double sW : d.staticW)
    pmin = std::min(pmin, sW);
  for (const TaskBox &b : d.tasks) {
    pmin = std::min(pmin, b.powerW);
    pmax = std::max(pmax, b.powerW);
  }
  std::string s =
      llvm::formatv("<svg xmlns=\"http://www.w3.org/2000/svg\" "
                    "id=\"timeline\" viewBox=\"0 0 {0} {1}\" "
                    "width=\"{0}\" height=\"{1}\" "
                    "font-family=\"sans-serif\" font-size=\"12\">\n",
                    W, H + 4)
          .str();
  s += ax.frame("time in the iteration (s)", "", false);
  for (size_t i = 0; i < d.devices.size(); ++i) {
    double y = top + rowH * i;
    s += llvm::formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"end\" "
                       "class=\"tick\"><title>{3}</title>{2}</text>\n",
                       left - 8, y + rowH / 2 + 4, esc(d.shortDevices[i]),
                       esc(d.devices[i]))
             .str();
    if (i)
      s += llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" "
                         "stroke=\"#ddd\"/>\n",
                         left, y, left + ax.w)
               .str();
  }
  // A box's place: its device's row, split between the device's streams.
  auto rowOf = [&](const TaskBox &b, double &y, double &h) {
    size_t k = std::max<size_t>(1, d.streamRow[b.dev].size());
    h = (rowH - 6) / double(k);
    y = top + rowH * b.dev + 3 + h * d.streamRow[b.dev].at(b.stream);
  };
  // Outlines only where boxes are wide enough to keep their colour.
  double outline = ax.w / std::max<double>(1, d.tasks.size()) > 4 ? 0.4 : 0;
  for (const TaskBox &b : d.tasks) {
    double f = pmax > pmin ? (b.powerW - pmin) / (pmax - pmin) : 0.5;
    double y, boxH;
    rowOf(b, y, boxH);
    double w = std::max(0.5, ax.X(b.t0 + b.T) - ax.X(b.t0));
    std::string clock = b.mhz >= 0 ? ", " + std::to_string(b.mhz) + " MHz" : "";
    s += llvm::formatv("<rect class=\"task\" x=\"{0}\" y=\"{1}\" width=\"{2}\" "
                       "height=\"{3}\" fill=\"{4}\" stroke=\"#fff\" "
                       "stroke-width=\"{12}\"><title>@{5}{6}: {7} s from {8} "
                       "s, {9} J, {10} W{11}</title></rect>\n",
                       ax.X(b.t0), y, w, boxH, colour(f), esc(b.name),
                       b.kind.empty() ? "" : " (" + esc(b.kind) + ")",
                       num(b.T, 4), num(b.t0, 4), num(b.E, 4), num(b.powerW, 4),
                       clock, outline)
             .str();
  }
  // Short labels on the boxes wide enough to hold them.
  for (const TaskBox &b : d.tasks) {
    double w = ax.X(b.t0 + b.T) - ax.X(b.t0);
    const std::string &label = b.label;
    double y, boxH;
    rowOf(b, y, boxH);
    if (w < 7.0 * label.size() + 4 || boxH < 9)
      continue;
    double f = pmax > pmin ? (b.powerW - pmin) / (pmax - pmin) : 0.5;
    double size = std::min(10.0, boxH - 1);
    s += llvm::formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\" "
                       "font-size=\"{4}\" fill=\"{2}\" "
                       "pointer-events=\"none\">{3}</text>\n",
                       ax.X(b.t0) + w / 2, y + boxH / 2 + size * 0.4,
                       f > 0.45 ? "#fff" : "#222", esc(label), size)
             .str();
  }
  // Colour bar.
  double cy = top + ax.h + 48, cx = left;
  for (int i = 0; i < 50; ++i)
    s += llvm::formatv("<rect x=\"{0}\" y=\"{1}\" width=\"5\" height=\"10\" "
                       "fill=\"{2}\"/>",
                       cx + 5 * i, cy, colour(i / 49.0))
             .str();
  s += llvm::formatv("\n<text x=\"{0}\" y=\"{1}\" class=\"tick\">{2} W</text>"
                     "<text x=\"{3}\" y=\"{1}\" class=\"tick\">{4} W: task "
                     "power (static + dynamic); blank = idle</text>\n",
                     cx - 4 - 6 * 7, cy + 9, num(pmin, 3), cx + 256,
                     num(pmax, 3))
           .str();
  s += "</svg>\n";
  return s;
}

std::string breakdownSvg(const Data &d) {
  const double W = 720;
  double rowH = 30, top = 16, left = labelMargin(d);
  double H = top + rowH * d.devices.size() + 56;
  double emax = 0;
  std::vector<double> st(d.devices.size()), hi(d.devices.size());
  for (size_t i = 0; i < d.devices.size(); ++i) {
    st[i] = d.staticW[i] * d.makespan;
    hi[i] = st[i] + d.dynamicJ[i] + 1.96 * std::sqrt(d.varJ[i]);
    emax = std::max(emax, hi[i]);
  }
  Axes ax{0,
          std::max(emax * 1.12, 1e-12),
          0,
          1,
          left,
          top,
          W - left - 30,
          rowH * d.devices.size()};
  std::string s =
      llvm::formatv("<svg xmlns=\"http://www.w3.org/2000/svg\" "
                    "id=\"breakdown\" viewBox=\"0 0 {0} {1}\" "
                    "width=\"{0}\" height=\"{1}\" "
                    "font-family=\"sans-serif\" font-size=\"12\">\n",
                    W, H + 24)
          .str();
  s += ax.frame("energy per iteration (J)", "", false);
  for (size_t i = 0; i < d.devices.size(); ++i) {
    double y = top + rowH * i + 5, h = rowH - 10;
    double e = st[i] + d.dynamicJ[i], sd = std::sqrt(d.varJ[i]);
    s += llvm::formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"end\" "
                       "class=\"tick\"><title>{3}</title>{2}</text>\n",
                       left - 8, y + h / 2 + 4, esc(d.shortDevices[i]),
                       esc(d.devices[i]))
             .str();
    s += llvm::formatv(
             "<rect class=\"static\" x=\"{0}\" y=\"{1}\" width=\"{2}\" "
             "height=\"{3}\" fill=\"#bdbdbd\"><title>static {4} J "
             "({5} W over {6} s)</title></rect>\n",
             ax.X(0), y, ax.X(st[i]) - ax.X(0), h, num(st[i]),
             num(d.staticW[i]), num(d.makespan))
             .str();
    s += llvm::formatv(
             "<rect class=\"dynamic\" x=\"{0}\" y=\"{1}\" width=\"{2}\" "
             "height=\"{3}\" fill=\"#e6550d\"><title>dynamic {4} J"
             "</title></rect>\n",
             ax.X(st[i]), y, ax.X(e) - ax.X(st[i]), h, num(d.dynamicJ[i]))
             .str();
    s +=
        llvm::formatv("<text x=\"{0}\" y=\"{1}\" class=\"tick\">{2} J</text>\n",
                      ax.X(e + 1.96 * sd) + 6, y + h / 2 + 4, num(e, 4))
            .str();
    s += llvm::formatv(
             "<line class=\"interval\" x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" "
             "y2=\"{2}\" stroke=\"#222\" stroke-width=\"1.5\"><title>"
             "{3} J +- {4} J (95 %)</title></line>\n",
             ax.X(std::max(0.0, e - 1.96 * sd)), ax.X(e + 1.96 * sd), y + h / 2,
             num(e, 5), num(1.96 * sd, 3))
             .str();
  }
  double ly = top + ax.h + 46;
  s += llvm::formatv(
           "<rect x=\"{0}\" y=\"{1}\" width=\"12\" height=\"10\" "
           "fill=\"#bdbdbd\"/><text x=\"{2}\" y=\"{3}\">static (s x "
           "makespan)</text><rect x=\"{4}\" y=\"{1}\" width=\"12\" "
           "height=\"10\" fill=\"#e6550d\"/><text x=\"{5}\" y=\"{3}\">"
           "dynamic (sum of d)</text><line x1=\"{6}\" y1=\"{7}\" "
           "x2=\"{8}\" y2=\"{7}\" stroke=\"#222\" stroke-width=\"1.5\"/>"
           "<text x=\"{9}\" y=\"{3}\">95 % interval of the dynamic "
           "energy</text>\n",
           left, ly, left + 16, ly + 9, left + 160, left + 176, left + 300,
           ly + 5, left + 318, left + 324)
           .str();
  s += "</svg>\n";
  return s;
}

std::string clocksTable(const Data &d) {
  // Time at each clock per device (the plan's energy.dvfs points).
  std::vector<std::map<int64_t, double>> at(d.devices.size());
  bool any = false;
  for (const TaskBox &b : d.tasks)
    if (b.mhz >= 0) {
      at[b.dev][b.mhz] += b.T;
      any = true;
    }
  if (!any)
    return "<p>No planned clocks (run <code>--energy-plan</code> on a "
           "schedule whose tasks have operating points).</p>\n";
  std::string s = "<table id=\"clocks\"><tr><th>device</th><th>busy time at "
                  "each planned SM clock</th></tr>\n";
  for (size_t i = 0; i < d.devices.size(); ++i) {
    double busy = 0;
    for (auto &[mhz, t] : at[i])
      busy += t;
    s += "<tr><td>" + esc(d.devices[i]) + "</td><td>";
    bool first = true;
    for (auto it = at[i].rbegin(); it != at[i].rend(); ++it) {
      // A device busy for no time (zero-length tasks only) has no shares.
      std::string share =
          busy > 0 ? " " + num(100 * it->second / busy, 3) + " %" : "";
      s += (first ? "" : ", ") +
           llvm::formatv("<b>{0} MHz</b>{1}", it->first, share).str();
      first = false;
    }
    s += "</td></tr>\n";
  }
  return s + "</table>\n";
}
} // namespace

LogicalResult energy::exportReport(ModuleOp module, llvm::raw_ostream &os,
                                   bool svgOnly) {
  Data d;
  if (failed(collect(module, d, svgOnly ? "--export-svg" : "--export-report")))
    return failure();
  if (svgOnly) {
    if (d.frontier.empty() && !d.plan)
      return mlir::emitError(energy::moduleErrorLoc(module),
                             "--export-svg: the schedule has neither an "
                             "energy.frontier nor an energy.plan (run "
                             "--energy-frontier or --energy-plan first)");
    os << frontierSvg(d, true);
    return success();
  }
  double total = 0;
  for (size_t i = 0; i < d.devices.size(); ++i)
    total += d.staticW[i] * d.makespan + d.dynamicJ[i];
  std::string headline;
  if (d.plan)
    headline =
        llvm::formatv("Plan: <b>{0}</b> per iteration in <b>{1}</b>{7}, "
                      "{2} % less energy than the baseline ({3} in {4}); "
                      "no configuration within the {5} limit uses less than "
                      "{6} (certified).",
                      joules(planE(d.plan)), seconds(planT(d.plan)),
                      num(planNum(d.plan, "saving_pct"), 3),
                      joules(planNum(d.plan, "baseline_E_J")),
                      seconds(planNum(d.plan, "baseline_T_s")),
                      seconds(planNum(d.plan, "limit_T_s")),
                      joules(planNum(d.plan, "lower_bound_J")),
                      switchesText(d.plan))
            .str();
  else
    headline = llvm::formatv("{0} per iteration in {1} (as scheduled; no "
                             "plan).",
                             joules(total), seconds(d.makespan))
                   .str();
  std::string gen =
      energy::generatorJson("energy-translate --export-report", d.inputs);
  os << "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
     << "<meta name=\"generator\" content=\"" << esc(gen) << "\">\n"
     << "<title>Energy report: @" << esc(d.schedule) << "</title>\n"
     << "<style>body{font-family:sans-serif;margin:24px;color:#222;"
        "max-width:1100px}h1{font-size:20px}h2{font-size:16px;margin-top:28px}"
        ".tick{fill:#444}.label{fill:#222;font-size:13px}table{border-"
        "collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-"
        "align:left;font-size:13px}#readout{font-size:13px;color:#555;"
        "min-height:1.2em}</style></head><body>\n"
     << "<h1>Energy report: @" << esc(d.schedule)
     << "</h1>\n<p id=\"headline\">" << headline << "</p>\n"
     << "<h2>Time-energy frontier</h2>\n"
     << (d.frontier.empty() && !d.plan
             ? std::string("<p>No frontier or plan in this IR (run "
                           "<code>--energy-frontier</code> and/or "
                           "<code>--energy-plan</code>).</p>\n")
             : frontierSvg(d, false))
     << "<h2>Timeline (" << d.taskOps << (d.taskOps == 1 ? " task" : " tasks")
     << " on " << d.devices.size()
     << (d.devices.size() == 1 ? " device" : " devices") << ", "
     << seconds(d.makespan) << ")</h2>\n"
     << timelineSvg(d) << "<p id=\"readout\"></p>\n"
     << "<h2>Energy per device</h2>\n"
     << breakdownSvg(d) << "<h2>Planned clocks</h2>\n"
     << clocksTable(d)
     << "<script>\n"
        "// Hover read-out: the element's <title> under the figures.\n"
        "(function(){var r=document.getElementById('readout');\n"
        "document.querySelectorAll('svg [class]').forEach(function(e){\n"
        "var t=e.querySelector('title');if(!t)return;\n"
        "e.addEventListener('mouseenter',function(){r.textContent="
        "t.textContent;});});})();\n"
        "</script>\n</body></html>\n";
  return success();
}

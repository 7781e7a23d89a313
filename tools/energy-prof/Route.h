//===- Route.h - energy-prof route: compare routing policies ---*- C++ -*-===//

#ifndef TOOLS_ENERGY_PROF_ROUTE_H
#define TOOLS_ENERGY_PROF_ROUTE_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace energy {

struct RouteOptions {
  std::string fleetFile;
  std::optional<uint64_t> horizon, runs, seed; ///< override the file's
  bool perTask = false;
  /// Horizons at which E[D_T] is also reported (the horizon becomes their
  /// maximum when not given).
  std::vector<uint64_t> horizons;
};

struct RouteOutput {
  std::string reportJson;  ///< the report (docs/ROUTING.md#the-report)
  std::string horizonsCsv; ///< policy,horizon_slots,... when horizons given
  /// E[D_T] against the horizon, log-log, per policy (SVG) when horizons
  /// given.
  std::string horizonsSvg;
  std::string summary; ///< a table for stderr
};

/// Reads the fleet, resolves every policy, simulates each on the same random
/// numbers and reports predictions next to Monte Carlo means with 95 %
/// confidence intervals.
bool routeCommand(const RouteOptions &opts, const std::string &generator,
                  RouteOutput &out, std::string &err);

} // namespace energy

#endif // TOOLS_ENERGY_PROF_ROUTE_H

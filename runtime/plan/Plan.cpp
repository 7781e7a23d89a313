//===- Plan.cpp - reading and checking a plan file ------------------------===//

#include "runtime/plan/Plan.h"

#include "calculus/models/KnownDevice.h"

#include "runtime/formats/Json.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cmath>
#include <map>
#include <sstream>

using namespace llvm;

namespace energy {
namespace rt {

namespace {
// A device's regions' begins in one iteration, all together: plan-clocks
// writes a line for each (name[k]); a hand-edited count beyond any trace's
// would grow its output without bound.
constexpr int64_t kMaxBegins = 1 << 20;
struct Reader {
  const std::string &file;
  std::string &err;
  llvm::StringRef text; ///< the file's text, where its errors point

  bool fail(const std::string &where, const std::string &what) {
    err = formats::jsonLocated(file, text, where) + ": " + what;
    return false;
  }
  bool number(const json::Object &o, StringRef key, const std::string &where,
              double &out, bool positive = false) {
    std::optional<double> v = o.getNumber(key);
    if (!v || !std::isfinite(*v) || *v < 0 || (positive && *v == 0))
      return fail(where + "." + key.str(),
                  std::string("expected a ") +
                      (positive ? "positive" : "non-negative") + " number");
    out = *v;
    return true;
  }
  bool keys(const json::Object &o, const std::string &where,
            std::initializer_list<const char *> allowed) {
    std::string why, key = formats::jsonUnknownKey(o, allowed, why);
    return key.empty() || fail(where + "." + key, why);
  }
  /// sm_mhz: a positive integer or null (the driver's default clock).
  bool clock(const json::Object &o, const std::string &where,
             std::optional<int> &out) {
    const json::Value *v = o.get("sm_mhz");
    if (!v)
      return fail(where + ".sm_mhz", "missing (null for the default clock)");
    if (v->kind() == json::Value::Null) {
      out.reset();
      return true;
    }
    std::optional<int64_t> mhz = v->getAsInteger();
    if (!mhz || *mhz <= 0 || *mhz > 100000)
      return fail(where + ".sm_mhz", "expected a clock in MHz or null");
    out = int(*mhz);
    return true;
  }
};
} // namespace

bool parsePlan(const std::string &text, const std::string &file,
               const std::string &schedule, Plan &out, std::string &err) {
  Reader r{file, err, text};
  Expected<json::Value> doc = energy::formats::parseJson(text);
  if (!doc) {
    err = formats::jsonParseError(file, doc.takeError());
    return false;
  }
  const json::Object *root = doc->getAsObject();
  if (!root)
    return r.fail("$", "expected an object");
  std::optional<int64_t> version = root->getInteger("version");
  if (!version)
    return r.fail("$.version", "missing");
  if (*version != 1)
    return r.fail("$.version", "unsupported version " +
                                   std::to_string(*version) + " (expected 1)");
  const json::Array *schedules = root->getArray("schedules");
  if (!schedules && root->getArray("entries"))
    return r.fail("$", "a signature DB (its \"entries\"), not a plan: "
                       "plans come from energy-translate --export-plan");
  if (!r.keys(*root, "$", {"version", "generator", "schedules"}))
    return false;
  if (!schedules || schedules->empty())
    return r.fail("$.schedules", "expected a non-empty list");

  const json::Object *chosen = nullptr;
  std::string names, where;
  for (size_t i = 0; i < schedules->size(); ++i) {
    std::string w = "$.schedules[" + std::to_string(i) + "]";
    const json::Object *s = (*schedules)[i].getAsObject();
    if (s && !r.keys(*s, w,
                     {"schedule", "objective", "baseline", "plan", "devices"}))
      return false;
    std::optional<StringRef> name = s ? s->getString("schedule") : std::nullopt;
    if (!name || name->empty())
      return r.fail(w + ".schedule", "expected the schedule's name");
    names += (names.empty() ? "" : ", ") + name->str();
    if ((schedule.empty() && schedules->size() == 1) || *name == schedule) {
      chosen = s;
      where = w;
    }
  }
  if (!chosen)
    return r.fail("$.schedules",
                  schedule.empty()
                      ? "several schedules (" + names + "); choose one"
                      : "no schedule '" + schedule + "' (have " + names + ")");
  out = Plan();
  out.file = file;
  out.text = text;
  out.schedule = chosen->getString("schedule")->str();
  const json::Object *plan = chosen->getObject("plan");
  const json::Object *base = chosen->getObject("baseline");
  if (!plan)
    return r.fail(where + ".plan", "missing");
  if (!base)
    return r.fail(where + ".baseline", "missing");
  if (!r.keys(*base, where + ".baseline", {"T_s", "E_J"}))
    return false;
  if (!r.number(*plan, "T_s", where + ".plan", out.T, /*positive=*/true) ||
      !r.number(*plan, "E_J", where + ".plan", out.E) ||
      !r.number(*base, "T_s", where + ".baseline", out.baselineT) ||
      !r.number(*base, "E_J", where + ".baseline", out.baselineE))
    return false;

  const json::Array *devices = chosen->getArray("devices");
  if (!devices || devices->empty())
    return r.fail(where + ".devices", "expected a non-empty list");
  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < devices->size(); ++i) {
    std::string w = where + ".devices[" + std::to_string(i) + "]";
    const json::Object *d = (*devices)[i].getAsObject();
    if (!d)
      return r.fail(w, "expected an object");
    if (!r.keys(*d, w,
                {"device", "kind", "tasks", "runs", "power_cap_W",
                 "regions_without_tasks"}))
      return false;
    PlanDevice dev;
    std::optional<StringRef> name = d->getString("device");
    if (!name || name->empty())
      return r.fail(w + ".device", "expected the device's name");
    dev.name = name->str();
    dev.path = w;
    if (!seen.emplace(dev.name, i).second)
      return r.fail(w + ".device", "device '" + dev.name + "' appears twice");
    if (const json::Value *k = d->get("kind")) {
      std::optional<StringRef> kind = k->getAsString();
      if (!kind)
        return r.fail(w + ".kind", "expected the device kind (a string)");
      dev.kind = kind->str();
    }
    if (d->get("power_cap_W")) {
      double cap;
      if (!r.number(*d, "power_cap_W", w, cap, /*positive=*/true))
        return false;
      // A board's limit, watts to a few kW, as a DB's context holds it
      // (docs/SIGNATURE-DB.md): 1e300 W or a denormal would be written into
      // the job's clock plan; the device's own range is checked where the
      // plan is applied (er_plan_load, run-plan).
      if (!(cap >= 1 && cap <= 1e6))
        return r.fail(w + ".power_cap_W",
                      "expected a power cap from 1 W to 1e6 W");
      // A hand-edited cap outside the limits of a kind the project knows
      // (calculus/models/KnownDevice.h), as --export-plan refuses it.
      std::optional<calculus::KnownDevice> known =
          calculus::knownDevice(dev.kind);
      if (known && !known->powerLimitSettable(cap)) {
        std::ostringstream msg;
        msg << "power cap " << cap << " W outside the power limits of the "
            << "device's kind '" << dev.kind << "' ("
            << known->powerLimitRange() << ")";
        return r.fail(w + ".power_cap_W", msg.str());
      }
      dev.powerCapW = cap;
    }
    const json::Array *tasks = d->getArray("tasks");
    const json::Array *runs = d->getArray("runs");
    if (!tasks)
      return r.fail(w + ".tasks", "expected a list");
    if (!runs)
      return r.fail(w + ".runs", "expected a list");
    // Tasks in planned start order, each with its clock and start.
    struct Task {
      std::string name;
      std::optional<int> mhz;
      double start;
      bool clockSwitch = false; ///< "kind": "dvfs-switch": no region
      std::string key;          ///< "db_key" ("" where absent)
      std::string region;       ///< "region" ("" where absent)
      int64_t occurrence = -1;  ///< "occurrence" (-1 where absent)
      int64_t begins = -1;      ///< "begins" (-1 where absent)
    };
    std::vector<Task> order;
    std::map<std::string, size_t> named; // task -> its index
    for (size_t t = 0; t < tasks->size(); ++t) {
      std::string tw = w + ".tasks[" + std::to_string(t) + "]";
      const json::Object *o = (*tasks)[t].getAsObject();
      if (!o)
        return r.fail(tw, "expected an object");
      if (!r.keys(*o, tw,
                  {"task", "sm_mhz", "start_s", "T_s", "d_J", "E_J", "kind",
                   "db_key", "region", "occurrence", "begins"}))
        return false;
      Task task;
      std::optional<StringRef> tn = o->getString("task");
      if (!tn || tn->empty())
        return r.fail(tw + ".task", "expected the task's name");
      task.name = tn->str();
      // A task is a region of the job by its name: twice on one device
      // would give the region two clocks.
      if (auto [it, fresh] = named.try_emplace(task.name, t); !fresh)
        return r.fail(tw + ".task", "'" + task.name + "' again (first at " + w +
                                        ".tasks[" + std::to_string(it->second) +
                                        "])");
      if (const json::Value *k = o->get("kind")) {
        std::optional<StringRef> kind = k->getAsString();
        if (!kind || *kind != "dvfs-switch")
          return r.fail(tw + ".kind",
                        "expected \"dvfs-switch\" (a clock switch, no "
                        "region of the job) or no kind");
        task.clockSwitch = true;
      }
      if (const json::Value *k = o->get("db_key")) {
        std::optional<StringRef> key = k->getAsString();
        if (!key || key->empty())
          return r.fail(tw + ".db_key", "expected the task's DB key");
        task.key = key->str();
      }
      // A trace's region: the job's region and its begin, given together.
      if (o->get("region") || o->get("occurrence")) {
        std::optional<StringRef> region = o->getString("region");
        std::optional<int64_t> k = o->getInteger("occurrence");
        if (!region || region->empty())
          return r.fail(tw + ".region",
                        "expected the job's region (a name) with its "
                        "occurrence");
        if (!k || *k < 0 || *k >= kMaxBegins)
          return r.fail(tw + ".occurrence",
                        "expected the region's begin in the iteration (an "
                        "integer from 0 below " +
                            std::to_string(kMaxBegins) + ") with its region");
        task.region = region->str();
        task.occurrence = *k;
      }
      if (o->get("begins")) {
        std::optional<int64_t> n = o->getInteger("begins");
        if (task.region.empty() || !n || *n <= task.occurrence ||
            *n > kMaxBegins)
          return r.fail(tw + ".begins",
                        "expected the region's begins in the iteration (an "
                        "integer above its occurrence, at most " +
                            std::to_string(kMaxBegins) + ") with its region");
        task.begins = *n;
      }
      double T;
      if (!r.clock(*o, tw, task.mhz) ||
          !r.number(*o, "start_s", tw, task.start) ||
          !r.number(*o, "T_s", tw, T))
        return false;
      if (!order.empty() && task.start < order.back().start)
        return r.fail(tw + ".start_s", "tasks must be in start order");
      if (task.start > out.T * (1 + 1e-9))
        return r.fail(tw + ".start_s", "starts after the plan's T_s");
      order.push_back(std::move(task));
    }
    dev.tasks = unsigned(order.size());
    for (const Task &t : order)
      if (!t.clockSwitch) {
        dev.taskClocks.push_back({t.name, t.mhz});
        dev.taskKeys.push_back(t.key);
        dev.taskRegions.push_back({t.region, t.occurrence});
        if (t.begins > 0) {
          int64_t &n = dev.regionBegins[t.region];
          n = std::max(n, t.begins);
        }
      }
    // A trace's regions that ran no GPU work: their begins, a line each.
    if (const json::Value *idle = d->get("regions_without_tasks")) {
      std::string iw = w + ".regions_without_tasks";
      const json::Object *o = idle->getAsObject();
      if (!o)
        return r.fail(iw, "expected an object: region -> its begins");
      // In name order (an object's keys come in hash order): the first
      // bad one is the same on every run. Errors point at the object and
      // name the region (a name may hold '.', which a path would split).
      std::vector<std::string> names;
      for (const auto &entry : *o)
        names.push_back(entry.first.str());
      llvm::sort(names);
      for (const std::string &region : names) {
        std::optional<int64_t> n = o->getInteger(region);
        if (region.empty() || !n || *n < 1 || *n > kMaxBegins)
          return r.fail(iw, "'" + region +
                                "': expected the region's begins in the "
                                "iteration (an integer from 1 to " +
                                std::to_string(kMaxBegins) + ")");
        if (llvm::any_of(dev.taskRegions,
                         [&](const auto &reg) { return reg.first == region; }))
          return r.fail(iw,
                        "'" + region + "' has tasks: it is no region without");
        dev.regionBegins[region] = *n;
      }
    }
    // Every region's begins together: a line each in plan-clocks.
    int64_t lines = 0;
    for (const auto &[region, n] : dev.regionBegins)
      if ((lines += n) > kMaxBegins)
        return r.fail(w + ".tasks",
                      "its regions' begins (with "
                      "regions_without_tasks) add up to more than " +
                          std::to_string(kMaxBegins) +
                          " in an iteration (region '" + region +
                          "' passes it): not a trace's");
    // Runs: maximal groups of consecutive tasks at one clock.
    size_t next = 0;
    for (size_t k = 0; k < runs->size(); ++k) {
      std::string rw = w + ".runs[" + std::to_string(k) + "]";
      const json::Object *o = (*runs)[k].getAsObject();
      if (!o)
        return r.fail(rw, "expected an object");
      if (!r.keys(*o, rw, {"sm_mhz", "first", "tasks"}))
        return false;
      PlanRun run;
      std::optional<StringRef> first = o->getString("first");
      std::optional<int64_t> count = o->getInteger("tasks");
      if (!r.clock(*o, rw, run.smMhz))
        return false;
      if (!first)
        return r.fail(rw + ".first", "expected a task name");
      if (!count || *count <= 0)
        return r.fail(rw + ".tasks", "expected a positive count");
      if (next >= order.size() || order[next].name != *first)
        return r.fail(rw + ".first",
                      "'" + first->str() + "' is not the next task in " +
                          "the device's order" +
                          (next < order.size() ? " ('" + order[next].name + "')"
                                               : std::string(" (none left)")));
      if (next + size_t(*count) > order.size())
        return r.fail(rw + ".tasks", "runs past the device's last task");
      for (size_t t = next; t < next + size_t(*count); ++t)
        if (order[t].mhz != run.smMhz)
          return r.fail(rw, "task '" + order[t].name +
                                "' has a different clock than its run");
      run.first = first->str();
      run.path = rw;
      run.start = order[next].start;
      run.tasks = unsigned(*count);
      next += size_t(*count);
      dev.runs.push_back(std::move(run));
    }
    if (next != order.size())
      return r.fail(w + ".runs", "cover " + std::to_string(next) + " of " +
                                     std::to_string(order.size()) + " tasks");
    out.devices.push_back(std::move(dev));
  }
  return true;
}

std::string Plan::at(const std::string &path, const std::string &key) const {
  if (text.empty())
    return "";
  return formats::jsonLocated(file, text,
                              key.empty() ? path : path + "." + key) +
         ": ";
}

} // namespace rt
} // namespace energy

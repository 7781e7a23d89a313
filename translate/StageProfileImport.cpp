//===- StageProfileImport.cpp - Perseus stage profiles
//---------------------===//

#include "translate/Translate.h"

#include "calculus/Pipeline.h"
#include "dialect/Energy/Energy.h"
#include "dialect/Sched/Sched.h"
#include "runtime/formats/Csv.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"

#include "runtime/db/SignatureDb.h"

#include <cmath>
#include <map>
#include <set>
#include <tuple>

using namespace mlir;
using namespace energy;

static bool fail(const std::string &where, const Twine &msg) {
  llvm::WithColor::error(llvm::errs(), where) << msg << "\n";
  return false;
}

OwningOpRef<ModuleOp> energy::importStageProfile(MLIRContext *ctx,
                                                 const StageProfileOptions &o) {
  formats::CsvTable csv;
  formats::CsvError csvErr;
  bool parsed = formats::readCsv(o.file, csv, csvErr);
  if (!parsed && csvErr.message.rfind("cannot read", 0) == 0) {
    fail(o.file, csvErr.message);
    return nullptr;
  }
  calculus::PipelineKind kind;
  if (!calculus::parsePipelineKind(o.schedule, kind)) {
    fail(o.file, "unknown --schedule '" + o.schedule +
                     "'; a stage profile takes 1f1b (the default) or gpipe");
    return nullptr;
  }
  if (kind == calculus::PipelineKind::ZBH1 ||
      kind == calculus::PipelineKind::Interleaved) {
    fail(o.file, "a stage profile has forward and backward per stage only; "
                 "--schedule " +
                     o.schedule + " needs more");
    return nullptr;
  }
  if (o.microbatches <= 0) {
    fail(o.file, "--microbatches must be a positive integer");
    return nullptr;
  }
  if (o.stages && *o.stages <= 0) {
    fail(o.file, "--stages must be a positive integer");
    return nullptr;
  }
  if (o.device.empty()) {
    fail(o.file, "--device is required (the GPU kind, e.g. A40)");
    return nullptr;
  }
  std::optional<KnownDevice> known = knownDevice(o.device);
  std::optional<double> s = o.staticPower ? o.staticPower
                            : known ? std::optional<double>(known->staticPower)
                                    : std::nullopt;
  // A bare "A100" is read as the SXM board (Perseus's emulation profiles,
  // 83.64 W); a PCIe A100 idles lower, and says nothing of itself here.
  if (known && !o.staticPower &&
      StringRef(o.device).trim().equals_insensitive("a100"))
    llvm::WithColor::warning(llvm::errs(), o.file)
        << "--device A100 is taken as the A100-SXM (static power 83.64 W); "
           "name A100-SXM to say so, or give --static-power W for another "
           "board (a PCIe A100's is lower)\n";
  if (!s) {
    fail(o.file,
         "unknown device '" + o.device +
             "': no known static power (known: A40, A100-SXM, H200); pass "
             "--static-power (W)");
    return nullptr;
  }

  // Parse: header names columns; rows per (stage, instruction, frequency).
  struct Row {
    int64_t freq;
    double time, energy;
    unsigned line;
  };
  std::map<int64_t, std::vector<Row>> fwd, bwd;
  if (!parsed) {
    fail(csvErr.line ? o.file + ":" + std::to_string(csvErr.line) : o.file,
         csvErr.message);
    return nullptr;
  }
  int col[5] = {-1, -1, -1, -1, -1};
  const char *names[5] = {"stage", "instruction", "frequency", "time",
                          "energy"};
  for (int c = 0; c < 5; ++c) {
    if (std::optional<size_t> i = csv.column(names[c]))
      col[c] = int(*i);
    else {
      fail(o.file + ":" + std::to_string(csv.headerLine),
           std::string("header lacks column '") + names[c] +
               "' (need stage,instruction,frequency,time,energy)" +
               csv.missingColumnHint(names[c]));
      return nullptr;
    }
  }
  for (size_t row = 0; row < csv.rows.size(); ++row) {
    unsigned lineNo = csv.lines[row];
    std::vector<StringRef> cells;
    for (const std::string &cell : csv.rows[row])
      cells.push_back(StringRef(cell).trim());
    int64_t stage, freq;
    double time, energyJ;
    StringRef instr = cells[col[1]].trim();
    if (cells[col[0]].trim().getAsInteger(10, stage) || stage < 0) {
      fail(csv.at(o.file, row, col[0]),
           "stage " + formats::cellForMessage(cells[col[0]]) +
               " is not a non-negative integer");
      return nullptr;
    }
    // Stages are numbered 0, 1, ..., each with forward and backward rows:
    // a number past the rows' count cannot be one of them (one a little
    // lower is said below, with the stage that lacks rows).
    if (uint64_t(stage) >= csv.rows.size()) {
      fail(csv.at(o.file, row, col[0]),
           "stage " + Twine(stage) + " is past what " + Twine(csv.rows.size()) +
               " rows can hold (stages are 0, 1, ..., each with forward and "
               "backward rows)");
      return nullptr;
    }
    // Whole MHz, written as an integer or as a float with a zero fraction
    // ("1410.0", as pandas writes a float column).
    StringRef freqText = cells[col[2]].trim();
    double freqF = 0;
    bool whole = !freqText.getAsInteger(10, freq);
    if (!whole && formats::csvNumber(freqText, freqF) && freqF >= 1 &&
        freqF <= 1e6 && freqF == std::floor(freqF)) {
      freq = int64_t(freqF);
      whole = true;
    }
    if (!whole || freq <= 0) {
      fail(csv.at(o.file, row, col[2]),
           "frequency " + formats::cellForMessage(cells[col[2]]) +
               " is not a positive integer (MHz)");
      return nullptr;
    }
    // A clock above the named GPU's highest: the profile was measured on
    // another kind of GPU than --device says (its static power and the
    // plan's clocks would be that device's).
    if (known && freq > known->maxSmMhz) {
      fail(csv.at(o.file, row, col[2]),
           "frequency " + Twine(freq) + " MHz is above the " + o.device +
               "'s highest SM clock (" + Twine(known->maxSmMhz) +
               " MHz): was the profile measured on another GPU? "
               "(--device names the GPU it was measured on)");
      return nullptr;
    }
    // At most 1e15 (s, J), the signature DB's magnitude limit
    // (docs/SIGNATURE-DB.md): past it energies overflow in composition.
    if (!formats::csvNumber(cells[col[3]], time) || !(time > 0) ||
        !(time <= 1e15)) {
      fail(csv.at(o.file, row, col[3]),
           "time " + formats::cellForMessage(cells[col[3]]) +
               " is not a positive number (s) up to 1e15");
      return nullptr;
    }
    if (!formats::csvNumber(cells[col[4]], energyJ) || !(energyJ >= 0) ||
        !(energyJ <= 1e15)) {
      fail(csv.at(o.file, row, col[4]),
           "energy " + formats::cellForMessage(cells[col[4]]) +
               " is not a non-negative number (J) up to 1e15");
      return nullptr;
    }
    if (instr != "forward" && instr != "backward") {
      fail(csv.at(o.file, row, col[1]), "instruction " +
                                            formats::cellForMessage(instr) +
                                            " is neither forward nor backward");
      return nullptr;
    }
    if (energyJ < *s * time) {
      fail(csv.at(o.file, row, col[4]),
           "energy " + formatQuantity(energyJ, Dimension::Energy, 6) +
               " is below static power x time (" +
               formatQuantity(*s, Dimension::Power, 6) + " x " +
               formatQuantity(time, Dimension::Time, 6) + " = " +
               formatQuantity(*s * time, Dimension::Energy, 6) +
               "); is the static power right? (" +
               (o.staticPower ? std::string("--static-power")
                              : "the " + o.device +
                                    "'s blocking power; --static-power W "
                                    "gives the one it was measured with") +
               ")");
      return nullptr;
    }
    // A mean power no board of that kind draws, by an order of magnitude
    // (a stage of several tensor-parallel GPUs stays below it): a time or
    // energy in the wrong unit, which the plan would act on.
    if (known && energyJ / time > 10 * known->maxPowerLimitW) {
      fail(csv.at(o.file, row, col[4]),
           "energy " + formatQuantity(energyJ, Dimension::Energy, 6) +
               " over " + formatQuantity(time, Dimension::Time, 6) + " is " +
               formatQuantity(energyJ / time, Dimension::Power, 4) +
               ", over ten times the " + o.device + "'s highest power limit (" +
               formatQuantity(known->maxPowerLimitW, Dimension::Power, 4) +
               "): are the time (s) and energy (J) in their units?");
      return nullptr;
    }
    std::vector<Row> &same = (instr == "forward" ? fwd : bwd)[stage];
    for (const Row &r : same)
      if (r.freq == freq) {
        fail(csv.at(o.file, row, col[0]),
             "stage " + Twine(stage) + " " + instr + " at " + Twine(freq) +
                 " MHz again (first at line " + Twine(r.line) + ")");
        return nullptr;
      }
    same.push_back({freq, time, energyJ, lineNo});
  }
  if (fwd.empty() && bwd.empty()) {
    fail(o.file, "no data rows");
    return nullptr;
  }
  // A file cut short in its last row's last cell still parses (a shorter
  // number): said, with what checks the stages the file cannot.
  if (!csv.endsWithLineEnd)
    llvm::WithColor::warning(llvm::errs(),
                             o.file + ":" + std::to_string(csv.lines.back()))
        << "the last line has no line end: was the file cut short? (its "
           "last number may be too; "
        << (o.stages ? "--stages checked the stage count)"
                     : "--stages N checks the stage count)")
        << "\n";
  int64_t stages = std::max(fwd.empty() ? 0 : fwd.rbegin()->first,
                            bwd.empty() ? 0 : bwd.rbegin()->first) +
                   1;
  if (o.stages && *o.stages != stages) {
    // The stages one side has and the other lacks: [lo, hi].
    int64_t lo = std::min(*o.stages, stages), hi = std::max(*o.stages, stages);
    std::string what =
        std::string(*o.stages > stages ? "no rows for " : "rows for ") +
        (hi - lo > 1
             ? "stages " + std::to_string(lo) + " to " + std::to_string(hi - 1)
             : "stage " + std::to_string(lo));
    fail(o.file, "--stages " + Twine(*o.stages) + ", but the profile has " +
                     what + " (its stages are 0.." + Twine(stages - 1) + ")");
    return nullptr;
  }
  for (int64_t st = 0; st < stages; ++st)
    if (!fwd.count(st) || !bwd.count(st)) {
      fail(o.file, "stage " + Twine(st) + " has no " +
                       (!fwd.count(st) && !bwd.count(st) ? "rows"
                        : !fwd.count(st)                 ? "forward rows"
                                                         : "backward rows") +
                       " (stages must be 0.." + Twine(stages - 1) +
                       ", each with forward and backward rows)");
      return nullptr;
    }
  // The expansion's size, named by the flag that sets it.
  std::string tooBig = calculus::checkPipelineSize(
      kind, uint64_t(stages), uint64_t(o.microbatches), 1, 1, false);
  if (!tooBig.empty()) {
    fail(o.file, "--microbatches " + Twine(o.microbatches) + " with " +
                     Twine(stages) + (stages == 1 ? " stage " : " stages ") +
                     tooBig);
    return nullptr;
  }
  // A pass measured at fewer clocks than the others: Perseus profiles every
  // pass at every clock, so a missing row is most likely lost. Said, not
  // refused: the pass's operating set is what was measured (its baseline
  // runs at its highest clock present).
  std::set<int64_t> clocks;
  for (auto *rows : {&fwd, &bwd})
    for (auto &[st, list] : *rows)
      for (const Row &r : list)
        clocks.insert(r.freq);
  // At most four passes named, highest clocks first as profiles list them.
  size_t lacking = 0;
  for (auto *rows : {&fwd, &bwd})
    for (auto &[st, list] : *rows) {
      if (list.size() == clocks.size() || ++lacking > 4)
        continue;
      std::set<int64_t> have;
      for (const Row &r : list)
        have.insert(r.freq);
      std::string missing;
      size_t shown = 0;
      for (auto f = clocks.rbegin(); f != clocks.rend(); ++f)
        if (!have.count(*f) && shown++ < 8)
          missing += (missing.empty() ? "" : ", ") + std::to_string(*f);
      if (clocks.size() - have.size() > 8)
        missing += ", ...";
      llvm::WithColor::warning(llvm::errs(), o.file)
          << "stage " << st << " " << (rows == &fwd ? "forward" : "backward")
          << " has no row at " << missing << " MHz ("
          << clocks.size() - have.size() << " of the profile's "
          << clocks.size()
          << " clocks; other passes have them): its options are the clocks "
             "measured\n";
    }
  if (lacking > 4)
    llvm::WithColor::warning(llvm::errs(), o.file)
        << lacking - 4 << " more passes lack some of the profile's clocks\n";
  // A profile whose highest clock is well below the named GPU's (an A100's
  // 1410 MHz under --device A40, whose highest is 1740 MHz) was most likely
  // measured on another GPU: the static power and the clocks would then be
  // the wrong device's. Said, not refused (a sweep may stop short of the
  // top clock on purpose).
  if (known && !clocks.empty() &&
      double(*clocks.rbegin()) < 0.9 * double(known->maxSmMhz))
    llvm::WithColor::warning(llvm::errs(), o.file)
        << "the profile's highest clock, " << *clocks.rbegin()
        << " MHz, is well below the " << o.device << "'s highest SM clock ("
        << known->maxSmMhz
        << " MHz): was it measured on another GPU? (--device names the GPU "
           "it was measured on, whose static power the plan charges)\n";

  OpBuilder b(ctx);
  Location loc = FileLineColLoc::get(ctx, o.file, 1, 1);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto sched = sched::ScheduleOp::create(b, loc, b.getStringAttr("iteration"));
  sched.getBody().emplaceBlock();
  b.setInsertionPointToEnd(&sched.getBody().front());
  auto options = [&](std::map<int64_t, std::vector<Row>> &rows) {
    SmallVector<Attribute> perStage;
    for (int64_t st = 0; st < stages; ++st) {
      SmallVector<Attribute> opts;
      for (const Row &r : rows[st]) {
        auto op = OpPointAttr::get(ctx, r.freq, std::nullopt, std::nullopt,
                                   std::nullopt);
        // d = E - s T: the profile's energy is the GPU's total over the
        // instruction; static (blocking) power is separated out.
        auto sig = SignatureAttr::get(ctx, r.time, r.energy - *s * r.time, 0, 0,
                                      std::nullopt, std::nullopt);
        opts.push_back(OptionAttr::get(ctx, op, sig));
      }
      perStage.push_back(b.getArrayAttr(opts));
    }
    return b.getArrayAttr(perStage);
  };
  // --stage-keys: each stage's passes keyed as the DB entries a job
  // profiled with the runtime names them (stage<k>.forward, the
  // --export-stage-profile mapping): the expanded tasks carry the key, the
  // exported plan its db_key, and `plan-clocks --by-key` writes each pass as
  // the k-th begin of that region, which a job instrumented by
  // energy_rt.torch (names="db") runs as is. Opt-in: a keyed pipeline is
  // filled only from a DB that has the keys.
  auto keys = [&](StringRef pass) -> Attribute {
    if (!o.stageKeys)
      return {};
    SmallVector<Attribute> perStage;
    for (int64_t st = 0; st < stages; ++st)
      perStage.push_back(
          b.getStringAttr("stage" + std::to_string(st) + "." + pass.str()));
    return b.getArrayAttr(perStage);
  };
  sched::PipelineOp::create(
      b, loc, b.getStringAttr("pipeline"), b.getI64IntegerAttr(stages),
      b.getI64IntegerAttr(o.microbatches), b.getStringAttr(o.schedule),
      b.getI64IntegerAttr(1), b.getI64IntegerAttr(1), b.getI64IntegerAttr(1),
      b.getStringAttr(o.device), b.getF64FloatAttr(*s), Attribute(),
      Attribute(), Attribute(), options(fwd), options(bwd), keys("forward"),
      keys("backward"), SignatureAttr(), b.getF64FloatAttr(0.5),
      b.getF64FloatAttr(0), b.getF64FloatAttr(0), b.getF64FloatAttr(0),
      b.getF64FloatAttr(0), b.getStringAttr(o.file));
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

bool energy::exportStageProfile(const std::string &dbPath,
                                llvm::raw_ostream &os, std::string &err,
                                std::string &note) {
  rt::SignatureDb db;
  if (!rt::readSignatureDb(dbPath, db, err))
    return false;
  // (stage, forward first, highest clock first) -> T, E.
  std::map<std::tuple<int, int, int>, std::pair<double, double>> rows;
  std::set<double> staticW;
  for (const rt::DbEntry &e : db.entries) {
    llvm::StringRef key(e.key);
    if (!key.consume_front("stage"))
      continue;
    auto [num, pass] = key.split('.');
    unsigned stage;
    if (num.getAsInteger(10, stage) ||
        (pass != "forward" && pass != "backward"))
      continue;
    auto k =
        std::make_tuple(int(stage), pass == "forward" ? 0 : 1, -int(e.smMhz));
    if (rows.count(k)) {
      err = dbPath + ": '" + e.key + "' has two entries at " +
            std::to_string(e.smMhz) + " MHz";
      return false;
    }
    rows[k] = {e.T, e.s * e.T + e.d};
    staticW.insert(e.s);
  }
  if (rows.empty()) {
    err = dbPath + ": no entries named stage<k>.forward or stage<k>.backward";
    return false;
  }
  // One static power where the entries agree to 1e-6 (a composite's sums
  // differ in the last digits).
  double lo = *staticW.begin(), hi = *staticW.rbegin();
  if (hi - lo <= 1e-6 * std::max(std::fabs(hi), 1e-300))
    note = "the energies hold the DB's static power, " +
           formatQuantity(hi, Dimension::Power, 6) +
           ", over each instruction's time: read them back with "
           "--import-stage-profile ... --static-power " +
           llvm::formatv("{0}", llvm::format("%.6g", hi)).str() +
           " (without it, Perseus's blocking power for the --device)";
  else
    note = "the energies hold each entry's own static power (the DB's "
           "entries differ in it): --import-stage-profile takes one "
           "(--static-power)";
  os << "stage,instruction,frequency,time,energy\n";
  for (auto &[k, te] : rows)
    os << std::get<0>(k) << "," << (std::get<1>(k) ? "backward" : "forward")
       << "," << -std::get<2>(k) << "," << formatNumber(te.first) << ","
       << formatNumber(te.second) << "\n";
  return true;
}

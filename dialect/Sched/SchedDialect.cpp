//===- SchedDialect.cpp - sched dialect and operations --------------------===//

#include "calculus/Pipeline.h"
#include "calculus/Serve.h"
#include "dialect/Sched/Sched.h"
#include "dialect/Sched/SchedGraph.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace energy;
using namespace energy::sched;

#include "dialect/Sched/SchedDialect.cpp.inc"

void SchedDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialect/Sched/SchedOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Custom directives
//===----------------------------------------------------------------------===//

static ParseResult parsePower(OpAsmParser &parser, FloatAttr &attr) {
  return parseQuantityAttr(parser, attr, Dimension::Power);
}
static void printPower(OpAsmPrinter &p, Operation *, FloatAttr attr) {
  printQuantity(p, attr.getValueAsDouble(), Dimension::Power);
}

/// `[keyword <time>]`. The format suppresses the space before this directive
/// (``), so an absent value prints nothing and a present one its own space.
static ParseResult parseOptionalTime(OpAsmParser &parser, StringRef keyword,
                                     FloatAttr &attr) {
  if (failed(parser.parseOptionalKeyword(keyword)))
    return success();
  return parseQuantityAttr(parser, attr, Dimension::Time);
}
static void printOptionalTime(OpAsmPrinter &p, Operation *, StringRef keyword,
                              FloatAttr attr) {
  if (!attr)
    return;
  p << " " << keyword << " ";
  printQuantity(p, attr.getValueAsDouble(), Dimension::Time);
}
/// The same for a time property (sched.task's start and duration).
static ParseResult parseOptionalTime(OpAsmParser &parser, StringRef keyword,
                                     std::optional<double> &prop) {
  if (failed(parser.parseOptionalKeyword(keyword)))
    return success();
  double v;
  if (parseQuantity(parser, Dimension::Time, v))
    return failure();
  prop = v;
  return success();
}
static void printOptionalTime(OpAsmPrinter &p, StringRef keyword,
                              const std::optional<double> &prop) {
  if (!prop)
    return;
  p << " " << keyword << " ";
  printQuantity(p, *prop, Dimension::Time);
}

Attribute sched::timePropertyAttr(MLIRContext *ctx,
                                  const std::optional<double> &v) {
  if (!v)
    return absentPropertyAttr(ctx);
  return FloatAttr::get(Float64Type::get(ctx), *v);
}

LogicalResult
sched::timePropertyFromAttr(std::optional<double> &v, Attribute attr,
                            function_ref<InFlightDiagnostic()> emitError) {
  if (isAbsentPropertyAttr(attr)) {
    v = std::nullopt;
    return success();
  }
  auto f = dyn_cast<FloatAttr>(attr);
  if (!f || !f.getType().isF64()) {
    if (emitError)
      return emitError() << "expected an f64 time in seconds or `none`; got "
                         << attr;
    return failure();
  }
  v = f.getValueAsDouble();
  return success();
}

std::optional<calculus::Request> sched::readRequest(Attribute r,
                                                    std::string &why) {
  auto arr = dyn_cast<ArrayAttr>(r);
  if (!arr || arr.size() != 3 || !isa<FloatAttr, IntegerAttr>(arr[0]) ||
      !isa<IntegerAttr>(arr[1]) || !isa<IntegerAttr>(arr[2])) {
    why = " must be [arrival_s, prompt_tokens, output_tokens]";
    return std::nullopt;
  }
  double arrival = isa<FloatAttr>(arr[0])
                       ? cast<FloatAttr>(arr[0]).getValueAsDouble()
                       : double(cast<IntegerAttr>(arr[0]).getInt());
  int64_t prompt = cast<IntegerAttr>(arr[1]).getInt(),
          output = cast<IntegerAttr>(arr[2]).getInt();
  if (!(arrival >= 0) || prompt < 0 || output < 1) {
    why = " needs a non-negative arrival and prompt and at least one output "
          "token";
    return std::nullopt;
  }
  if (!std::isfinite(arrival)) {
    why = ": the arrival is not finite";
    return std::nullopt;
  }
  // Past ~31 years the step durations (milliseconds) vanish in the
  // arrival's rounding: a time in another unit.
  if (arrival > calculus::kMaxArrivalS) {
    why = ": an arrival at " + formatNumber(arrival) +
          " s is past 1e9 s (31 years): seconds from the workload's start";
    return std::nullopt;
  }
  if (uint64_t(prompt) > calculus::kMaxPromptTokens) {
    why = ": a prompt of " + std::to_string(prompt) + " tokens is above 2^40";
    return std::nullopt;
  }
  return calculus::Request{arrival, uint64_t(prompt), uint64_t(output)};
}

/// `[keyword [<quantity>, ...]]` for an F64 array in base units.
static ParseResult parseQuantityList(OpAsmParser &parser, StringRef keyword,
                                     Dimension dim, ArrayAttr &attr) {
  if (failed(parser.parseOptionalKeyword(keyword)))
    return success();
  SmallVector<Attribute> values;
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square,
                                     [&]() -> ParseResult {
                                       FloatAttr v;
                                       if (parseQuantityAttr(parser, v, dim))
                                         return failure();
                                       values.push_back(v);
                                       return success();
                                     }))
    return failure();
  attr = parser.getBuilder().getArrayAttr(values);
  return success();
}
static void printQuantityList(OpAsmPrinter &p, Operation *, StringRef keyword,
                              Dimension dim, ArrayAttr attr) {
  if (!attr)
    return;
  p << " " << keyword << " [";
  llvm::interleaveComma(attr, p, [&](Attribute a) {
    printQuantity(p, cast<FloatAttr>(a).getValueAsDouble(), dim);
  });
  p << "]";
}

// The op definitions ODS generates shadow their own locals (-Wshadow is
// on for the code we write: CMakeLists.txt).
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wshadow"
#define GET_OP_CLASSES
#include "dialect/Sched/SchedOps.cpp.inc"
#pragma clang diagnostic pop

//===----------------------------------------------------------------------===//
// sched.task assembly, by hand (see parseOpAttrDict in Energy.h); the format
// is the one documented in SchedOps.td.
//===----------------------------------------------------------------------===//

ParseResult TaskOp::parse(OpAsmParser &parser, OperationState &result) {
  auto &props = result.getOrAddProperties<Properties>();
  Builder &b = parser.getBuilder();
  Type none = b.getType<NoneType>();
  if (parser.parseSymbolName(props.sym_name) ||
      parseKeywordAttr(parser, "on", props.device, none) ||
      parseOptionalKeywordAttr(parser, "stream", props.stream,
                               b.getIntegerType(64)) ||
      parseOptionalKeywordAttr(parser, "after", props.after, none) ||
      parseOptionalTime(parser, "delay", props.delay) ||
      parseOptionalTime(parser, "delay_sigma", props.delay_sigma) ||
      parseOptionalKeywordAttr(parser, "with", props.with, none) ||
      parseOptionalTime(parser, "lag", props.lag) ||
      parseOptionalTime(parser, "release", props.release) ||
      parseOptionalKeywordAttr(parser, "kind", props.kind, none))
    return failure();
  OptionalParseResult theta = parser.parseOptionalAttribute(props.theta, none);
  if (theta.has_value() && failed(*theta))
    return failure();
  if (parseOptionalTime(parser, "start", props.start) ||
      parseOptionalTime(parser, "for", props.duration) ||
      parseOptionalKeywordAttr(parser, "sig", props.sig, Type{}) ||
      parseOptionalKeywordAttr(parser, "db", props.db, none) ||
      parseOptionalKeywordAttr(parser, "options", props.options, none))
    return failure();
  return parseOpAttrDict<TaskOp>(parser, result, /*withKeyword=*/true);
}

void TaskOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printSymbolName(getSymName());
  printKeywordAttr(p, "on", getDeviceAttr());
  printKeywordAttr(p, "stream", getStreamAttr());
  printKeywordAttr(p, "after", getAfterAttr());
  printOptionalTime(p, *this, "delay", getDelayAttr());
  printOptionalTime(p, *this, "delay_sigma", getDelaySigmaAttr());
  printKeywordAttr(p, "with", getWithAttr());
  printOptionalTime(p, *this, "lag", getLagAttr());
  printOptionalTime(p, *this, "release", getReleaseAttr());
  printKeywordAttr(p, "kind", getKindAttr());
  if (DictionaryAttr theta = getThetaAttr()) {
    p << ' ';
    p.printAttributeWithoutType(theta);
  }
  printOptionalTime(p, "start", getProperties().start);
  printOptionalTime(p, "for", getProperties().duration);
  printKeywordAttr(p, "sig", getSigAttr(), /*stripped=*/true);
  printKeywordAttr(p, "db", getDbAttr());
  printKeywordAttr(p, "options", getOptionsAttr());
  printDiscardableAttrs(p, *this, /*withKeyword=*/true);
}

//===----------------------------------------------------------------------===//
// Verifiers. Per-op checks here; symbols, cycles and stream overlaps once per
// schedule, in ScheduleOp::verifyRegions.
//===----------------------------------------------------------------------===//

LogicalResult sched::DeviceOp::verify() {
  double s = getStaticPower().convertToDouble();
  if (!(s >= 0) || !std::isfinite(s))
    return emitOpError("static power must be finite and non-negative; got ")
           << formatQuantity(s, Dimension::Power);
  // A clock switch becomes a task on this device (--energy-emit-dvfs).
  return checkOwnStaticPower(*this, switchCostOf(*this), s,
                             "its clock switch (energy.switch)",
                             "drop `s` from the switch's signature");
}

template <typename OpTy>
static LogicalResult verifyTaskCommon(OpTy op, std::optional<double> start) {
  // A task named twice in one list is one dependency written twice (or a
  // typo for another task): refused, not read as two transfers.
  for (auto [list, what] : {std::pair{op.getAfterAttr(), "after"},
                            std::pair{op.getWithAttr(), "with"}}) {
    if (!list)
      continue;
    llvm::SmallDenseSet<Attribute, 8> seen;
    for (Attribute a : list)
      if (!seen.insert(a).second)
        return op.emitOpError("`") << what << "` lists " << a << " twice";
  }
  if (auto stream = op.getStreamAttr(); stream && stream.getInt() < 0)
    return op.emitOpError("stream must be non-negative; got ")
           << stream.getInt();
  if (op.getLagAttr() && !op.getWithAttr())
    return op.emitOpError("`lag` needs start-to-start dependencies (`with`)");
  if (auto lag = op.getLagAttr();
      lag &&
      !(lag.getValueAsDouble() >= 0 && std::isfinite(lag.getValueAsDouble())))
    return op.emitOpError("lag must be finite and non-negative; got ")
           << formatQuantity(lag.getValueAsDouble(), Dimension::Time);
  if (start && !(*start >= 0 && std::isfinite(*start)))
    return op.emitOpError("start time must be finite and non-negative; got ")
           << formatQuantity(*start, Dimension::Time);
  return success();
}

/// One option per operating point in an operating set: two would make the
/// plan's clock for that point mean two signatures. `what` prefixes the
/// message (the attribute's name, or nothing for a task's own options).
static LogicalResult checkOneOptionPerOpPoint(Operation *op, ArrayAttr options,
                                              const Twine &what) {
  llvm::SmallDenseMap<Attribute, size_t, 8> seen;
  for (auto [i, a] : llvm::enumerate(options)) {
    auto opt = dyn_cast<OptionAttr>(a);
    if (!opt || !opt.getOpPoint())
      continue;
    auto [first, fresh] = seen.try_emplace(opt.getOpPoint(), i);
    if (!fresh)
      return op->emitOpError()
             << what << "options #" << first->second << " and #" << i
             << " have the same operating point " << opt.getOpPoint()
             << "; one option per operating point";
  }
  return success();
}

LogicalResult TaskOp::verify() {
  if (getDelayAttr() && (!getAfterAttr() || getAfterAttr().empty()))
    return emitOpError("`delay` needs finish-to-start dependencies (`after`)");
  if (auto delay = getDelayAttr();
      delay && !(delay.getValueAsDouble() >= 0 &&
                 std::isfinite(delay.getValueAsDouble())))
    return emitOpError("delay must be finite and non-negative; got ")
           << formatQuantity(delay.getValueAsDouble(), Dimension::Time);
  if (auto sigma = getDelaySigmaAttr()) {
    double v = sigma.getValueAsDouble();
    if (!(v >= 0) || !std::isfinite(v * v))
      return emitOpError("delay_sigma must be non-negative with a finite "
                         "variance; got ")
             << formatQuantity(v, Dimension::Time);
    if (v > 0 && !(getDelayAttr() && getDelayAttr().getValueAsDouble() > 0))
      return emitOpError("delay_sigma is the spread of the dependencies' "
                         "delay; give the delay too (`delay <time>`)");
  }
  // `start` and `duration` are properties: spelled in the attribute
  // dictionary they would be kept as unrelated discardable attributes.
  for (StringRef name : {"start", "duration"})
    if ((*this)->getDiscardableAttr(name))
      return emitOpError("has an attribute '")
             << name << "': write `" << (name == "start" ? "start" : "for")
             << " <time>` after the workload parameters instead";
  if (auto release = getReleaseAttr()) {
    double r = release.getValueAsDouble();
    if (!(r >= 0) || !std::isfinite(r))
      return emitOpError("release time must be finite and non-negative; got ")
             << formatQuantity(r, Dimension::Time);
    if (std::optional<double> start = getStart();
        start && *start < r * (1 - 1e-12))
      return emitOpError("starts at ")
             << formatQuantity(*start, Dimension::Time)
             << ", before its release time "
             << formatQuantity(r, Dimension::Time);
  }
  if (std::optional<double> dur = getDuration()) {
    double t = *dur;
    if (!(t >= 0) || !std::isfinite(t))
      return emitOpError("duration must be finite and non-negative; got ")
             << formatQuantity(t, Dimension::Time);
    if (auto sig = getSigAttr(); sig && sig.time() != t)
      return emitOpError("measured duration ")
             << formatQuantity(t, Dimension::Time)
             << " disagrees with its signature's T = "
             << formatQuantity(sig.time(), Dimension::Time);
  }
  if (ArrayAttr options = getOptionsAttr();
      options && failed(checkOneOptionPerOpPoint(*this, options, "")))
    return failure();
  // Each option's gradient (the fill's), one per option.
  if (auto grads = (*this)->getAttrOfType<ArrayAttr>("energy.option_grads")) {
    size_t n = getOptionsAttr() ? getOptionsAttr().size() : 0;
    if (grads.size() != n)
      return emitOpError("has ") << grads.size() << " energy.option_grads for "
                                 << n << " option(s): one gradient per option";
  }
  return verifyTaskCommon(*this, getStart());
}

LogicalResult CollectiveOp::verify() {
  if (getDevices().empty())
    return emitOpError("needs at least one device");
  llvm::SmallDenseSet<Attribute, 8> seen;
  for (Attribute d : getDevices())
    if (!seen.insert(d).second)
      return emitOpError("lists device ") << d << " twice";
  size_t n = getDevices().size();
  auto checkParts = [&](ArrayAttr parts, StringRef what) -> LogicalResult {
    if (!parts)
      return success();
    if (parts.size() != n)
      return emitOpError("has ")
             << parts.size() << " " << what << " for " << n << " devices";
    for (Attribute a : parts) {
      double v = isa<FloatAttr>(a) ? cast<FloatAttr>(a).getValueAsDouble()
                                   : double(cast<IntegerAttr>(a).getInt());
      if (!(v >= 0) || !std::isfinite(v))
        return emitOpError(what) << " must be finite and non-negative";
    }
    return success();
  };
  if (failed(checkParts(getStartsAttr(), "starts")) ||
      failed(checkParts(getDurationsAttr(), "durations")) ||
      failed(checkParts(getEnergiesAttr(), "energies")) ||
      failed(checkParts(getStreamsAttr(), "streams")))
    return failure();
  if (getStartsAttr() && getStartAttr())
    return emitOpError("has both one `start` and per-device `starts`");
  if (getDurationsAttr() && getSigAttr())
    return emitOpError("has both a signature and per-device `durations`; a "
                       "measured collective gets its energy per part");
  if ((getStartsAttr() || getEnergiesAttr() || getStreamsAttr() ||
       getPartAfterAttr()) &&
      !getDurationsAttr())
    return emitOpError("per-device `starts`, `energies`, `streams` or "
                       "`part_after` need per-device `durations`");
  if (ArrayAttr parts = getPartAfterAttr()) {
    if (parts.size() != n)
      return emitOpError("has ")
             << parts.size() << " part_after lists for " << n << " devices";
    for (Attribute list : parts) {
      llvm::SmallDenseSet<Attribute, 8> named;
      for (Attribute a : cast<ArrayAttr>(list))
        if (!named.insert(a).second)
          return emitOpError("a `part_after` list names ") << a << " twice";
    }
  }
  std::optional<double> start;
  if (FloatAttr attr = getStartAttr())
    start = attr.getValueAsDouble();
  return verifyTaskCommon(*this, start);
}

/// A per-stage attribute: one signature for all, or an array of one per
/// virtual stage (operating sets: one array of options, or an array of them).
static LogicalResult checkPerStage(PipelineOp op, StringRef name,
                                   Attribute attr, int64_t stages,
                                   bool options) {
  if (!attr)
    return success();
  auto isLeaf = [&](Attribute a) {
    if (options) {
      auto arr = dyn_cast<ArrayAttr>(a);
      return arr && !arr.empty() &&
             llvm::all_of(arr, [](Attribute o) { return isa<OptionAttr>(o); });
    }
    return isa<SignatureAttr>(a);
  };
  // Each virtual stage's signature or operating set: its own `s`, if any,
  // is the stage device's static power (static_power per GPU x
  // tensor_parallel, the generator's device), and an operating set holds
  // one option per operating point.
  double sdev = op.getStaticPower().convertToDouble() *
                double(std::max<int64_t>(1, op.getTensorParallel()));
  auto checkLeaf = [&](Attribute a) -> LogicalResult {
    const char *fix = "drop `s` (the pipeline's static_power is charged)";
    if (!options)
      return checkOwnStaticPower(op, cast<SignatureAttr>(a), sdev,
                                 "`" + name + "`", fix);
    for (auto [i, o] : llvm::enumerate(cast<ArrayAttr>(a)))
      if (failed(checkOwnStaticPower(op, cast<OptionAttr>(o).getSig(), sdev,
                                     "`" + name + "` option #" + Twine(i),
                                     fix)))
        return failure();
    return checkOneOptionPerOpPoint(op, cast<ArrayAttr>(a), "`" + name + "` ");
  };
  if (isLeaf(attr))
    return checkLeaf(attr);
  auto arr = dyn_cast<ArrayAttr>(attr);
  if (!arr || !llvm::all_of(arr, isLeaf))
    return op.emitOpError("`")
           << name << "` must be "
           << (options ? "an operating set (a non-empty array of "
                         "#energy.option) or an array of them, one per "
                         "virtual stage"
                       : "a #energy.sig or an array of them, one per "
                         "virtual stage");
  if (int64_t(arr.size()) != stages)
    return op.emitOpError("`")
           << name << "` has " << arr.size() << " entries; need one per "
           << "virtual stage (" << stages << ")";
  for (Attribute a : arr)
    if (failed(checkLeaf(a)))
      return failure();
  return success();
}

/// A generator's parameters are its declared attributes: any other
/// attribute without a dialect prefix is a misspelt one (a "p2p_latncy"
/// would be read as a latency of 0), refused with the valid names.
static LogicalResult checkNoUnknownAttrs(Operation *op,
                                         ArrayRef<StringRef> known) {
  for (NamedAttribute a : op->getDiscardableAttrs()) {
    StringRef name = a.getName().getValue();
    if (name.contains('.'))
      continue; // a dialect's (energy.*), verified by that dialect
    std::string names;
    for (StringRef k : known)
      if (k != "sym_name")
        names += (names.empty() ? "" : ", ") + k.str();
    return op->emitOpError("has an unknown attribute '")
           << name << "' (its attributes: " << names << ")";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// The generators' `@name {fields}` format
//===----------------------------------------------------------------------===//

/// `@name {fields}` as `$sym_name attr-dict` reads it, except that an
/// integer written for one of `f64Fields` (`static_power = 100`) is that
/// number: the attribute dictionary types it i64, which the f64 field
/// would refuse with a constraint message about attribute kinds.
template <typename Op>
static ParseResult parseGenerator(OpAsmParser &parser, OperationState &result,
                                  ArrayRef<StringRef> f64Fields) {
  StringAttr name;
  if (parser.parseSymbolName(name))
    return failure();
  result.getOrAddProperties<typename Op::Properties>().sym_name = name;
  SMLoc loc = parser.getCurrentLocation();
  NamedAttrList fields;
  if (parser.parseOptionalAttrDict(fields))
    return failure();
  for (NamedAttribute field : fields) {
    auto integer = dyn_cast<IntegerAttr>(field.getValue());
    if (integer && integer.getType().isSignlessInteger(64) &&
        llvm::is_contained(f64Fields, field.getName().getValue()))
      result.attributes.append(field.getName(),
                               parser.getBuilder().getF64FloatAttr(
                                   double(integer.getValue().getSExtValue())));
    else
      result.attributes.append(field);
  }
  return Op::verifyInherentAttrs(result.name, result.attributes, [&]() {
    return parser.emitError(loc)
           << "'" << result.name.getStringRef() << "' op ";
  });
}

/// How many attributes an array holds, counting into nested arrays.
static size_t leafCount(Attribute attr) {
  auto array = dyn_cast<ArrayAttr>(attr);
  if (!array)
    return 1;
  size_t n = 0;
  for (Attribute element : array)
    n += leafCount(element);
  return n;
}

/// An array of more than this many attributes is printed one element per
/// line (and its op one field per line): an imported profile's operating
/// sets are tens of kB, and a diagnostic quotes the source line it points
/// at -- on one line that was the whole op (80 kB at 8 stages).
constexpr size_t kInlineLeaves = 8;

static void printLong(OpAsmPrinter &p, Attribute attr) {
  if (succeeded(p.printAlias(attr))) // an operating set's `#opset`
    return;
  auto array = dyn_cast<ArrayAttr>(attr);
  if (!array || leafCount(array) <= kInlineLeaves) {
    p.printAttribute(attr);
    return;
  }
  p << '[';
  p.increaseIndent();
  for (auto [i, element] : llvm::enumerate(array)) {
    p.printNewline();
    printLong(p, element);
    if (i + 1 < array.size())
      p << ',';
  }
  p.decreaseIndent();
  p.printNewline();
  p << ']';
}

/// `@name {fields}`, the fields at their defaults left out (as the
/// declarative format prints them); `defaults` names each default. A
/// generator holding long arrays is printed one field per line.
static void printGenerator(OpAsmPrinter &p, Operation *op, StringRef name,
                           ArrayRef<std::pair<StringRef, Attribute>> defaults) {
  p << ' ';
  p.printSymbolName(name);
  SmallVector<StringRef> elided = {"sym_name"};
  for (auto [field, value] : defaults)
    if (op->getAttr(field) == value)
      elided.push_back(field);
  SmallVector<NamedAttribute> fields;
  bool long_ = false;
  for (NamedAttribute field : op->getAttrs())
    if (!llvm::is_contained(elided, field.getName().getValue())) {
      fields.push_back(field);
      long_ |= leafCount(field.getValue()) > kInlineLeaves;
    }
  if (!long_) {
    p.printOptionalAttrDict(op->getAttrs(), elided);
    return;
  }
  p << " {";
  p.increaseIndent();
  for (auto [i, field] : llvm::enumerate(fields)) {
    p.printNewline();
    p.printKeywordOrString(field.getName().getValue());
    if (!isa<UnitAttr>(field.getValue())) {
      p << " = ";
      printLong(p, field.getValue());
    }
    if (i + 1 < fields.size())
      p << ',';
  }
  p.decreaseIndent();
  p.printNewline();
  p << '}';
}

ParseResult PipelineOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseGenerator<PipelineOp>(parser, result,
                                    {"static_power", "allreduce_lag",
                                     "p2p_latency", "p2p_latency_sigma", "sync",
                                     "sync_sigma"});
}

void PipelineOp::print(OpAsmPrinter &p) {
  Builder b(getContext());
  Attribute one = b.getI64IntegerAttr(1), zero = b.getF64FloatAttr(0);
  printGenerator(p, *this, getSymName(),
                 {{"chunks", one},
                  {"data_parallel", one},
                  {"tensor_parallel", one},
                  {"allreduce_lag", b.getF64FloatAttr(0.5)},
                  {"p2p_latency", zero},
                  {"p2p_latency_sigma", zero},
                  {"sync", zero},
                  {"sync_sigma", zero}});
}

ParseResult ServeOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseGenerator<ServeOp>(parser, result,
                                 {"weight_bytes", "kv_bytes_per_token",
                                  "arrival_rate", "hbm_bandwidth",
                                  "prefill_tokens_per_s", "iteration_overhead",
                                  "static_power", "dynamic_power"});
}

void ServeOp::print(OpAsmPrinter &p) {
  Builder b(getContext());
  Attribute one = b.getI64IntegerAttr(1);
  printGenerator(p, *this, getSymName(),
                 {{"seed", one},
                  {"granularity", b.getStringAttr("iterations")},
                  {"tp", one},
                  {"pp", one}});
}

LogicalResult PipelineOp::verify() {
  if (failed(checkNoUnknownAttrs(*this, getAttributeNames())))
    return failure();
  calculus::PipelineKind kind;
  if (!calculus::parsePipelineKind(getSchedule().str(), kind))
    return emitOpError("unknown schedule \"")
           << getSchedule()
           << "\"; expected \"gpipe\", \"1f1b\", \"interleaved-1f1b\" or "
              "\"zb-h1\"";
  // Read signed: the getters' unsigned values would wrap a negative count
  // (-2 into 2^64 - 2, then into 32 bits). Stages and microbatches are
  // positive by their constraint and bounded by the size check below.
  for (auto [name, attr] :
       {std::pair<StringRef, IntegerAttr>{"chunks", getChunksAttr()},
        {"data_parallel", getDataParallelAttr()},
        {"tensor_parallel", getTensorParallelAttr()}})
    if (attr) {
      int64_t v = attr.getValue().getSExtValue();
      if (v < 1 || v > int64_t(UINT32_MAX))
        return emitOpError("")
               << name << " must be between 1 and 2^32 - 1; got " << v;
    }
  if (std::string why = calculus::checkPipelineSize(
          kind, uint64_t(getStages()), uint64_t(getMicrobatches()),
          uint64_t(getChunks()), uint64_t(getDataParallel()),
          getSync().convertToDouble() > 0);
      !why.empty())
    return emitOpError(why);
  if (getChunks() > 1 && kind != calculus::PipelineKind::Interleaved)
    return emitOpError("chunks > 1 needs schedule \"interleaved-1f1b\"");
  if (kind == calculus::PipelineKind::Interleaved &&
      getMicrobatches() % getStages() != 0)
    return emitOpError("interleaved-1f1b needs microbatches (")
           << getMicrobatches() << ") to be a multiple of stages ("
           << getStages() << ")";
  double s = getStaticPower().convertToDouble();
  if (!(s >= 0) || !std::isfinite(s))
    return emitOpError("static_power must be finite and non-negative (W)");
  int64_t v = getStages() * getChunks();
  if (!getForwardAttr() && !getForwardOptionsAttr() && !getForwardDbAttr())
    return emitOpError(
        "needs `forward` signatures, `forward_options` or `forward_db` keys");
  if (!getBackwardAttr() && !getBackwardOptionsAttr() && !getBackwardDbAttr())
    return emitOpError("needs `backward` signatures, `backward_options` or "
                       "`backward_db` keys");
  for (auto [name, attr] :
       {std::pair<StringRef, Attribute>{"forward_db", getForwardDbAttr()},
        {"backward_db", getBackwardDbAttr()}}) {
    if (!attr || (isa<StringAttr>(attr) && !cast<StringAttr>(attr).empty()))
      continue;
    auto arr = dyn_cast<ArrayAttr>(attr);
    if (!arr || !llvm::all_of(arr, [](Attribute a) {
          auto s = dyn_cast<StringAttr>(a);
          return s && !s.empty();
        }))
      return emitOpError("`")
             << name << "` must be a non-empty key or an array of them, one "
             << "per virtual stage";
    if (int64_t(arr.size()) != v)
      return emitOpError("`")
             << name << "` has " << arr.size()
             << " entries; need one per virtual stage (" << v << ")";
  }
  if (kind == calculus::PipelineKind::ZBH1 && !getWeightAttr())
    return emitOpError("zb-h1 needs `weight` signatures (the W passes)");
  // Only zb-h1 splits the backward into B and W: elsewhere a `weight` would
  // be dropped, and its energy with it.
  if (kind != calculus::PipelineKind::ZBH1 && getWeightAttr())
    return emitOpError("`weight` (the W passes) is for schedule \"zb-h1\"; ")
           << "\"" << getSchedule()
           << "\" has none (its backward signatures include them)";
  if (getDataParallel() > 1 && !getAllreduceAttr())
    return emitOpError("data_parallel > 1 needs an `allreduce` signature");
  if (!(getAllreduceLag().convertToDouble() >= 0))
    return emitOpError("allreduce_lag must be non-negative");
  if (double l = getP2pLatency().convertToDouble();
      !(l >= 0 && std::isfinite(l)))
    return emitOpError("p2p_latency must be finite and non-negative; got ")
           << formatQuantity(l, Dimension::Time);
  if (double l = getP2pLatencySigma().convertToDouble();
      !(l >= 0 && std::isfinite(l * l)))
    return emitOpError("p2p_latency_sigma must be non-negative with a finite "
                       "variance; got ")
           << formatQuantity(l, Dimension::Time);
  if (getP2pLatencySigma().convertToDouble() > 0 &&
      !(getP2pLatency().convertToDouble() > 0))
    return emitOpError("p2p_latency_sigma is the spread of the point-to-point "
                       "latency; give its mean too (`p2p_latency` > 0)");
  if (double y = getSync().convertToDouble(); !(y >= 0 && std::isfinite(y)))
    return emitOpError("sync must be finite and non-negative; got ")
           << formatQuantity(y, Dimension::Time);
  if (double y = getSyncSigma().convertToDouble();
      !(y >= 0 && std::isfinite(y)))
    return emitOpError("sync_sigma must be finite and non-negative; got ")
           << formatQuantity(y, Dimension::Time);
  if (getSyncSigma().convertToDouble() > 0 &&
      !(getSync().convertToDouble() > 0))
    return emitOpError("sync_sigma is the spread of the closing "
                       "synchronization; give its mean too (`sync` > 0)");
  if (failed(checkPerStage(*this, "forward", getForwardAttr(), v, false)) ||
      failed(checkPerStage(*this, "backward", getBackwardAttr(), v, false)) ||
      failed(checkPerStage(*this, "weight", getWeightAttr(), v, false)) ||
      failed(checkPerStage(*this, "forward_options", getForwardOptionsAttr(), v,
                           true)) ||
      failed(checkPerStage(*this, "backward_options", getBackwardOptionsAttr(),
                           v, true)))
    return failure();
  return success();
}

LogicalResult ServeOp::verify() {
  if (failed(checkNoUnknownAttrs(*this, getAttributeNames())))
    return failure();
  if (getPolicy() != "static" && getPolicy() != "continuous")
    return emitOpError("unknown policy \"")
           << getPolicy() << "\"; expected \"static\" or \"continuous\"";
  if (getGranularity() != "iterations" && getGranularity() != "run")
    return emitOpError("unknown granularity \"")
           << getGranularity() << "\"; expected \"iterations\" or \"run\"";
  if (getPp() > 1 && getGranularity() == "iterations")
    return emitOpError("pp = ")
           << getPp()
           << ": pipeline-parallel serving is not modelled step by step; "
              "granularity = \"run\" takes it (a run-level model's theta)";
  bool generated = getNumRequestsAttr() || getArrivalRateAttr() ||
                   getPromptMinAttr() || getPromptMaxAttr() ||
                   getOutputMinAttr() || getOutputMaxAttr();
  if (bool(getRequestsAttr()) == generated)
    return emitOpError("needs either `requests` or the generator "
                       "(num_requests, arrival_rate, prompt_min/max, "
                       "output_min/max), not both");
  // The workload's size up front (docs/SCHED.md): at most 2^23 requests,
  // 2^31 output tokens and 2^21 steps, of which a workload of N output
  // tokens needs at least N / max_batch.
  constexpr int64_t kMaxRequests = int64_t(1) << 23;
  constexpr double kMaxOutputTokens = double(int64_t(1) << 31);
  if (getMaxBatch() > uint64_t(kMaxRequests))
    return emitOpError("max_batch ")
           << getMaxBatch() << " is above 2^23 (the most requests a workload "
           << "may have; docs/SCHED.md)";
  auto tooManySteps = [&](double outputs) {
    return outputs / double(getMaxBatch()) > double(calculus::kMaxServeSteps);
  };
  if (auto reqs = getRequestsAttr()) {
    // (Routing may deal an endpoint nothing: it then idles.)
    if (reqs.empty() && !(*this)->hasAttr("energy.route_fraction"))
      return emitOpError("has no requests (`requests = []`): an empty "
                         "workload");
    if (int64_t(reqs.size()) > kMaxRequests)
      return emitOpError("")
             << reqs.size() << " requests: above the limit of 2^23 "
             << "(docs/SCHED.md)";
    double outputs = 0;
    for (auto [i, r] : llvm::enumerate(reqs)) {
      std::string why;
      std::optional<calculus::Request> req = readRequest(r, why);
      if (!req)
        return emitOpError("request #") << i << why;
      outputs += double(req->output);
    }
    if (outputs > kMaxOutputTokens || tooManySteps(outputs))
      return emitOpError("the requests ask for ")
             << formatNumber(outputs) << " output tokens at max_batch "
             << getMaxBatch()
             << ": above the limit of 2^31 output tokens and 2^21 decode "
                "iterations (docs/SCHED.md)";
  } else {
    if (!getNumRequestsAttr() || !getArrivalRateAttr() || !getPromptMinAttr() ||
        !getPromptMaxAttr() || !getOutputMinAttr() || !getOutputMaxAttr())
      return emitOpError("the request generator needs num_requests, "
                         "arrival_rate, prompt_min, prompt_max, output_min "
                         "and output_max");
    if (double rate = getArrivalRate()->convertToDouble();
        !(rate >= 0) || !std::isfinite(rate))
      return emitOpError("arrival_rate must be finite and non-negative "
                         "(requests per second; 0: every request arrives at "
                         "time 0, an offline batch); got ")
             << formatNumber(rate);
    if (*getNumRequests() < 0 || *getPromptMin() < 0 ||
        *getPromptMax() < *getPromptMin() || *getOutputMin() < 1 ||
        *getOutputMax() < *getOutputMin())
      return emitOpError("generator ranges must satisfy 1 <= num_requests, "
                         "0 <= prompt_min <= prompt_max, 1 <= output_min <= "
                         "output_max");
    if (*getNumRequests() > kMaxRequests ||
        double(*getNumRequests()) * double(*getOutputMax()) > kMaxOutputTokens)
      return emitOpError("num_requests (")
             << *getNumRequests() << ") x output_max (" << *getOutputMax()
             << ") is above the limit of " << kMaxRequests
             << " requests and 2^31 output tokens (docs/SCHED.md)";
    if (tooManySteps(double(*getNumRequests()) * double(*getOutputMin())))
      return emitOpError("num_requests (")
             << *getNumRequests() << ") x output_min (" << *getOutputMin()
             << ") output tokens at max_batch " << getMaxBatch()
             << " need more than 2^21 decode iterations (docs/SCHED.md)";
    if (uint64_t(*getPromptMax()) > calculus::kMaxPromptTokens)
      return emitOpError("prompt_max ")
             << *getPromptMax() << " is above 2^40 tokens";
    if (*getNumRequests() == 0)
      return emitOpError("num_requests = 0: an empty workload");
    // The last arrival lies about num_requests / arrival_rate seconds in.
    if (double rate = getArrivalRate()->convertToDouble();
        rate > 0 && double(*getNumRequests()) / rate > calculus::kMaxArrivalS)
      return emitOpError("num_requests / arrival_rate = ")
             << formatNumber(double(*getNumRequests()) / rate)
             << " s: the arrivals would run past 1e9 s (31 years); "
                "arrival_rate is in requests per second";
  }
  if (!(getHbmBandwidth().convertToDouble() > 0) ||
      !(getPrefillTokensPerS().convertToDouble() > 0) ||
      !(getIterationOverhead().convertToDouble() >= 0) ||
      !(getWeightBytes().convertToDouble() >= 0) ||
      !(getKvBytesPerToken().convertToDouble() >= 0) ||
      !(getStaticPower().convertToDouble() >= 0) ||
      (getDynamicPowerAttr() && !(getDynamicPower()->convertToDouble() >= 0)))
    return emitOpError("hbm_bandwidth and prefill_tokens_per_s must be "
                       "positive; byte counts, overhead and powers "
                       "non-negative");
  return success();
}

LogicalResult ScheduleOp::verifyRegions() {
  FailureOr<SchedGraph> graph =
      SchedGraph::build(*this, SchedGraph::Need::Structure);
  if (failed(graph))
    return failure();
  const calculus::Schedule &s = graph->schedule;
  std::vector<uint32_t> cycle = calculus::findDependencyCycle(s);
  if (!cycle.empty())
    return emitOpError("has a dependency cycle: ")
           << graph->describeCycle(cycle);
  // Fixed times on one stream of one device must not overlap: no two busy
  // intervals [start, start + duration) share a positive length of time. A
  // zero-length task occupies none, so it never overlaps. Sorted by start
  // (then duration, then program order: a total order, whatever the sort),
  // each task is checked against the latest end so far on its lane, not
  // only its neighbour.
  std::vector<std::pair<uint64_t, uint32_t>> fixed; // (device:stream, task)
  for (uint32_t t = 0; t < s.tasks.size(); ++t)
    if (s.tasks[t].fixedStart >= 0 && s.tasks[t].duration > 0)
      for (uint32_t dev : s.tasks[t].devices)
        fixed.push_back({(uint64_t(dev) << 32) | s.tasks[t].stream, t});
  std::sort(fixed.begin(), fixed.end(), [&](auto &a, auto &b) {
    if (a.first != b.first)
      return a.first < b.first;
    const calculus::ScheduleTask &x = s.tasks[a.second], &y = s.tasks[b.second];
    if (x.fixedStart != y.fixedStart)
      return x.fixedStart < y.fixedStart;
    if (x.duration != y.duration)
      return x.duration < y.duration;
    return a.second < b.second;
  });
  size_t holder = 0; // the task with the latest end on the current lane
  for (size_t i = 1; i < fixed.size(); ++i) {
    if (fixed[i].first != fixed[i - 1].first) {
      holder = i;
      continue;
    }
    const auto &a = s.tasks[fixed[holder].second];
    const auto &b = s.tasks[fixed[i].second];
    // Times converted to seconds carry rounding: back-to-back events (the
    // end of one equal to the start of the next in the trace's integer
    // microseconds) must not read as overlapping.
    double aEnd = a.fixedStart + a.duration;
    if (b.fixedStart < aEnd - calculus::timeTolerance(aEnd)) {
      Operation *opA = graph->taskOps[fixed[holder].second];
      Operation *opB = graph->taskOps[fixed[i].second];
      uint32_t dev = uint32_t(fixed[i].first >> 32);
      return (opB->emitOpError("@")
              << mlir::SymbolTable::getSymbolName(opB).getValue()
              << " overlaps @"
              << mlir::SymbolTable::getSymbolName(opA).getValue()
              << " on stream " << uint32_t(fixed[i].first) << " of @"
              << graph->deviceOps[dev].getSymName() << ": it starts at "
              << formatQuantity(b.fixedStart, Dimension::Time)
              << ", before the other ends at "
              << formatQuantity(a.fixedStart + a.duration, Dimension::Time))
                 .attachNote(opA->getLoc())
             << "the other task";
    }
    if (b.fixedStart + b.duration > aEnd)
      holder = i;
  }
  return success();
}

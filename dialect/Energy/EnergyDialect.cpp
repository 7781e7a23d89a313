//===- EnergyDialect.cpp - energy dialect and attributes ------------------===//

#include "dialect/Energy/Energy.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <cstdlib>

using namespace mlir;
using namespace energy;

#include "dialect/Energy/EnergyDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/Energy/EnergyAttrs.cpp.inc"

namespace {
/// Operating sets print once, as `#opset = [...]` at the top of the file,
/// and every task that has one names it (`options #opset3`): a pipeline's
/// tasks share a few sets of tens of options each, which inline made the
/// planned IR of 64 x 1,024 tasks 821 MB.
struct EnergyOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    auto array = dyn_cast<ArrayAttr>(attr);
    if (!array || array.size() < 2 ||
        !llvm::all_of(array, [](Attribute a) { return isa<OptionAttr>(a); }))
      return AliasResult::NoAlias;
    os << "opset";
    return AliasResult::FinalAlias;
  }
};
} // namespace

void EnergyDialect::initialize() {
  addInterfaces<EnergyOpAsmInterface>();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialect/Energy/EnergyAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialect/Energy/EnergyOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Quantities
//===----------------------------------------------------------------------===//

static const char *dimensionName(Dimension dim) {
  switch (dim) {
  case Dimension::Power:
    return "power";
  case Dimension::Time:
    return "time";
  case Dimension::Energy:
    return "energy";
  }
  return "";
}

/// The exponent keywords MLIR's lexer makes of Python-style numbers: "1e-06"
/// lexes as the integer 1, the keyword `e`, '-' and 06; "1e6" as 1 and `e6`.
static llvm::ArrayRef<llvm::StringRef> exponentKeywords() {
  static const std::vector<std::string> storage = [] {
    std::vector<std::string> v = {"e", "E"};
    for (int k = 0; k <= 400; ++k) {
      v.push_back("e" + std::to_string(k));
      v.push_back("E" + std::to_string(k));
    }
    return v;
  }();
  static const std::vector<llvm::StringRef> refs(storage.begin(),
                                                 storage.end());
  return refs;
}

/// A number written as an integer or a float literal, optionally negative;
/// an integer mantissa may take an exponent (Python's "1e-06", "2e6").
static ParseResult parseNumber(AsmParser &parser, double &value) {
  bool negative = succeeded(parser.parseOptionalMinus());
  int64_t integer = 0;
  SMLoc at = parser.getCurrentLocation();
  OptionalParseResult intResult = parser.parseOptionalInteger(integer);
  if (intResult.has_value()) {
    if (failed(*intResult))
      return failure();
    // MLIR reads 0x... as an integer (or, for a float, as its bit
    // pattern): neither is a quantity anyone means.
    const char *text = at.getPointer();
    if (text && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
      return parser.emitError(at)
             << "a hexadecimal literal is not a quantity; write the number "
                "in decimal";
    value = double(integer);
    StringRef kw;
    if (succeeded(parser.parseOptionalKeyword(&kw, exponentKeywords()))) {
      std::string literal = std::to_string(integer) + "e";
      if (kw.size() > 1) {
        literal += kw.drop_front().str();
      } else {
        bool minus = succeeded(parser.parseOptionalMinus());
        if (!minus)
          (void)parser.parseOptionalPlus();
        int64_t e = 0;
        SMLoc expLoc = parser.getCurrentLocation();
        OptionalParseResult got = parser.parseOptionalInteger(e);
        if (!got.has_value() || failed(*got))
          return parser.emitError(expLoc)
                 << "expected the exponent's digits after '" << kw << "'";
        literal += (minus ? "-" : "") + std::to_string(e);
      }
      value = std::strtod(literal.c_str(), nullptr); // correctly rounded
    }
  } else if (parser.parseFloat(value)) {
    return failure();
  }
  if (negative)
    value = -value;
  return success();
}

ParseResult energy::parseQuantity(AsmParser &parser, Dimension dim,
                                  double &value) {
  double mantissa = 0;
  if (parseNumber(parser, mantissa))
    return failure();
  SMLoc unitLoc = parser.getCurrentLocation();
  StringRef unit;
  if (failed(parser.parseOptionalKeyword(&unit)))
    return parser.emitError(unitLoc)
           << "expected " << (dim == Dimension::Energy ? "an " : "a ")
           << dimensionName(dim) << " unit (" << acceptedUnits(dim)
           << ") after the number";
  std::string_view u(unit.data(), unit.size());
  std::optional<int> exp10 = unitExponent(u, dim);
  if (exp10) {
    value = applyScale(mantissa, *exp10);
  } else if (std::optional<double> factor = unitFactor(u, dim)) {
    value = mantissa * *factor;
  } else {
    return parser.emitError(unitLoc)
           << "'" << unit << "' is not "
           << (dim == Dimension::Energy ? "an " : "a ") << dimensionName(dim)
           << " unit; expected one of " << acceptedUnits(dim);
  }
  return success();
}

ParseResult energy::parseQuantityAttr(AsmParser &parser, FloatAttr &attr,
                                      Dimension dim) {
  double v;
  if (parseQuantity(parser, dim, v))
    return failure();
  attr = parser.getBuilder().getF64FloatAttr(v);
  return success();
}

void energy::printQuantity(AsmPrinter &printer, double value, Dimension dim) {
  printer << formatQuantity(value, dim);
}

//===----------------------------------------------------------------------===//
// SignatureAttr
//===----------------------------------------------------------------------===//

namespace {
struct SigField {
  const char *key;
  Dimension dim;
};
// Order of printing; parsing accepts any order.
const SigField sigFields[] = {
    {"s", Dimension::Power},        {"T", Dimension::Time},
    {"d", Dimension::Energy},       {"sigma_T", Dimension::Time},
    {"sigma_d", Dimension::Energy}, {"sigma_E", Dimension::Energy}};
} // namespace

namespace {
/// Collected `key = value` fields of a signature.
struct SigFields {
  std::optional<double> values[6];

  /// The index of `key` in sigFields, or -1 (a switch, not six string
  /// compares: this runs four times per element of a parsed tree).
  static int fieldIndex(StringRef key) {
    if (key.size() == 1)
      return key[0] == 's' ? 0 : key[0] == 'T' ? 1 : key[0] == 'd' ? 2 : -1;
    if (key.size() == 7 && key.starts_with("sigma_"))
      return key[6] == 'T' ? 3 : key[6] == 'd' ? 4 : key[6] == 'E' ? 5 : -1;
    return -1;
  }

  /// Parses `= <quantity>` for `key` if it is a signature key; returns
  /// nullopt when the key is not one.
  std::optional<ParseResult> parse(AsmParser &parser, StringRef key,
                                   SMLoc keyLoc) {
    int idx = fieldIndex(key);
    if (idx < 0)
      return std::nullopt;
    if (values[idx])
      return ParseResult(parser.emitError(keyLoc)
                         << "signature field '" << key << "' given twice");
    double v;
    if (parser.parseEqual() || parseQuantity(parser, sigFields[idx].dim, v))
      return ParseResult(failure());
    values[idx] = v;
    return ParseResult(success());
  }

  /// The fields, checked; errors at `loc`.
  ParseResult data(AsmParser &parser, SMLoc loc, SigData &v) const {
    if (!values[1] || !values[2])
      return parser.emitError(loc) << "a signature needs both the time `T` "
                                      "and the dynamic energy `d`";
    v = SigData{
        *values[1], *values[2], values[3].value_or(0), values[4].value_or(0),
        values[0],  values[5]};
    return verifySigData([&] { return parser.emitError(loc); }, v);
  }

  SignatureAttr build(AsmParser &parser, SMLoc loc) const {
    SigData v;
    if (data(parser, loc, v))
      return {};
    return sigAttr(parser.getContext(), v);
  }
};

/// Collected fields of an operating point.
struct OpPointFields {
  std::optional<int64_t> sm, mem;
  std::optional<double> cap, share;

  std::optional<ParseResult> parse(AsmParser &parser, StringRef key,
                                   SMLoc keyLoc);
  OpPointAttr build(AsmParser &parser, SMLoc loc) const {
    return parser.getChecked<OpPointAttr>(loc, parser.getContext(), sm, mem,
                                          Real::optional(cap),
                                          Real::optional(share));
  }
};
} // namespace

/// Parses `<key = value, ...>`: `field` consumes `= value` for the keys it
/// knows (nullopt otherwise); unknown keys are errors listing `expected`.
static ParseResult parseKeyedList(
    AsmParser &parser, StringRef what, StringRef expected,
    function_ref<std::optional<ParseResult>(StringRef, SMLoc)> field) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::LessGreater, [&]() -> ParseResult {
        SMLoc keyLoc = parser.getCurrentLocation();
        StringRef key;
        if (parser.parseKeyword(&key))
          return failure();
        if (std::optional<ParseResult> r = field(key, keyLoc))
          return *r;
        return parser.emitError(keyLoc) << "unknown " << what << " field '"
                                        << key << "'; expected " << expected;
      });
}

ParseResult energy::parseSigData(AsmParser &parser, SigData &v) {
  SMLoc loc = parser.getCurrentLocation();
  SigFields fields;
  if (parseKeyedList(parser, "signature",
                     "s, T, d, sigma_T, sigma_d or sigma_E",
                     [&](StringRef key, SMLoc keyLoc) {
                       return fields.parse(parser, key, keyLoc);
                     }))
    return failure();
  return fields.data(parser, loc, v);
}

Attribute SignatureAttr::parse(AsmParser &parser, Type) {
  SigData v;
  if (parseSigData(parser, v))
    return {};
  return sigAttr(parser.getContext(), v);
}

static void printSigFields(AsmPrinter &printer, const SigData &sig);

void energy::printSigData(AsmPrinter &printer, const SigData &v) {
  printer << "<";
  printSigFields(printer, v);
  printer << ">";
}

void SignatureAttr::print(AsmPrinter &printer) const {
  printSigData(printer, sigData(*this));
}

SigData energy::sigData(SignatureAttr a) {
  return SigData{a.time(),         a.dynamicEnergy(), a.sigmaTime(),
                 a.sigmaDynamic(), a.staticPower(),   a.sigmaEnergy()};
}

SignatureAttr energy::sigAttr(MLIRContext *ctx, const SigData &v) {
  return SignatureAttr::get(ctx, v.T, v.d, v.sigmaT, v.sigmaD, v.s, v.sigmaE);
}

calculus::Signature energy::toSignature(const SigData &v, double deviceStatic,
                                        calculus::DeviceSet devices) {
  double s = v.s.value_or(deviceStatic);
  double varD = v.sigmaD * v.sigmaD;
  // A measurement given as sigma_E (and sigma_T) without sigma_d: the paper's
  // signature carries var_E (Eq. 6), and var_E = s^2 var_T + var_d (Axiom
  // P1, d independent of T), so var_d is what is left. One below s sigma_T
  // cannot be a measurement's: left at 0, and --energy-evaluate says so.
  if (v.sigmaE && v.sigmaD == 0) {
    double rest = *v.sigmaE * *v.sigmaE - s * s * v.sigmaT * v.sigmaT;
    if (rest > 0)
      varD = rest;
  }
  return calculus::Signature::measured(s, v.T, v.d, v.sigmaT * v.sigmaT, varD,
                                       std::move(devices));
}

calculus::Signature energy::toSignature(SignatureAttr attr, double deviceStatic,
                                        calculus::DeviceSet devices) {
  return toSignature(sigData(attr), deviceStatic, std::move(devices));
}

SignatureAttr energy::toSignatureAttr(MLIRContext *ctx,
                                      const calculus::Signature &s) {
  return SignatureAttr::get(ctx, s.T, s.d, std::sqrt(s.varT), std::sqrt(s.varD),
                            s.s, std::nullopt);
}

Attribute energy::sigPropertyAttr(MLIRContext *ctx,
                                  const std::optional<SigData> &v) {
  if (!v)
    return absentPropertyAttr(ctx);
  return sigAttr(ctx, *v);
}

LogicalResult
energy::sigPropertyFromAttr(std::optional<SigData> &v, Attribute attr,
                            function_ref<InFlightDiagnostic()> emitError) {
  if (isAbsentPropertyAttr(attr)) {
    v = std::nullopt;
    return success();
  }
  auto sig = dyn_cast<SignatureAttr>(attr);
  if (!sig) {
    if (emitError)
      return emitError() << "expected a signature `#energy.sig<...>` or "
                            "`none` for property `sig`; got "
                         << attr;
    return failure();
  }
  v = sigData(sig);
  return success();
}

static void printSigFields(AsmPrinter &printer, const SigData &sig) {
  if (auto s = sig.staticPower())
    printer << "s = " << formatQuantity(*s, Dimension::Power) << ", ";
  printer << "T = " << formatQuantity(sig.time(), Dimension::Time)
          << ", d = " << formatQuantity(sig.dynamicEnergy(), Dimension::Energy);
  if (sig.sigmaTime() != 0)
    printer << ", sigma_T = "
            << formatQuantity(sig.sigmaTime(), Dimension::Time);
  if (sig.sigmaDynamic() != 0)
    printer << ", sigma_d = "
            << formatQuantity(sig.sigmaDynamic(), Dimension::Energy);
  if (auto sigmaE = sig.sigmaEnergy())
    printer << ", sigma_E = " << formatQuantity(*sigmaE, Dimension::Energy);
}

static LogicalResult checkNonNegative(function_ref<InFlightDiagnostic()> emit,
                                      const char *what, double v,
                                      Dimension dim) {
  if (v >= 0 && std::isfinite(v))
    return success();
  return emit() << what << " must be finite and non-negative (Axiom P1); got "
                << formatQuantity(v, dim);
}

LogicalResult energy::verifySigData(function_ref<InFlightDiagnostic()> emit,
                                    const SigData &v) {
  if (failed(checkNonNegative(emit, "time T", v.T, Dimension::Time)) ||
      failed(
          checkNonNegative(emit, "dynamic energy d", v.d, Dimension::Energy)) ||
      failed(checkNonNegative(emit, "standard deviation sigma_T", v.sigmaT,
                              Dimension::Time)) ||
      failed(checkNonNegative(emit, "standard deviation sigma_d", v.sigmaD,
                              Dimension::Energy)))
    return failure();
  if (v.s &&
      failed(checkNonNegative(emit, "static power s", *v.s, Dimension::Power)))
    return failure();
  if (v.sigmaE && failed(checkNonNegative(emit, "standard deviation sigma_E",
                                          *v.sigmaE, Dimension::Energy)))
    return failure();
  return success();
}

LogicalResult SignatureAttr::verify(function_ref<InFlightDiagnostic()> emit,
                                    Real T, Real d, Real sigmaT, Real sigmaD,
                                    std::optional<Real> s,
                                    std::optional<Real> sigmaE) {
  return verifySigData(emit,
                       SigData{T.value, d.value, sigmaT.value, sigmaD.value,
                               Real::unwrap(s), Real::unwrap(sigmaE)});
}

//===----------------------------------------------------------------------===//
// OpPointAttr
//===----------------------------------------------------------------------===//

std::optional<ParseResult> OpPointFields::parse(AsmParser &parser,
                                                StringRef key, SMLoc keyLoc) {
  auto twice = [&]() {
    return ParseResult(parser.emitError(keyLoc)
                       << "operating-point field '" << key << "' given twice");
  };
  if (key == "sm_mhz" || key == "mem_mhz") {
    std::optional<int64_t> &slot = key == "sm_mhz" ? sm : mem;
    if (slot)
      return twice();
    int64_t v;
    if (parser.parseEqual() || parser.parseInteger(v))
      return ParseResult(failure());
    slot = v;
    return ParseResult(success());
  }
  if (key == "power_cap") {
    if (cap)
      return twice();
    double v;
    if (parser.parseEqual() || parseQuantity(parser, Dimension::Power, v))
      return ParseResult(failure());
    cap = v;
    return ParseResult(success());
  }
  if (key == "sm_share") {
    if (share)
      return twice();
    double v;
    if (parser.parseEqual() || parseNumber(parser, v))
      return ParseResult(failure());
    share = v;
    return ParseResult(success());
  }
  return std::nullopt;
}

Attribute OpPointAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  OpPointFields fields;
  if (parseKeyedList(parser, "operating-point",
                     "sm_mhz, mem_mhz, power_cap or sm_share",
                     [&](StringRef key, SMLoc keyLoc) {
                       return fields.parse(parser, key, keyLoc);
                     }))
    return {};
  return fields.build(parser, loc);
}

static bool printOpPointFields(AsmPrinter &printer, OpPointAttr op);

void OpPointAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printOpPointFields(printer, *this);
  printer << ">";
}

/// Prints the fields; returns whether any was printed.
static bool printOpPointFields(AsmPrinter &printer, OpPointAttr op) {
  llvm::ListSeparator listSep;
  auto sep = [&]() { return StringRef(listSep); };
  bool any = false;
  if (op.getSmMhz()) {
    printer << sep() << "sm_mhz = " << *op.getSmMhz();
    any = true;
  }
  if (op.getMemMhz()) {
    printer << sep() << "mem_mhz = " << *op.getMemMhz();
    any = true;
  }
  if (op.getPowerCap()) {
    printer << sep() << "power_cap = "
            << formatQuantity(op.getPowerCap()->value, Dimension::Power);
    any = true;
  }
  if (op.getSmShare()) {
    printer << sep() << "sm_share = " << formatNumber(op.getSmShare()->value);
    any = true;
  }
  return any;
}

//===----------------------------------------------------------------------===//
// OptionAttr
//===----------------------------------------------------------------------===//

Attribute OptionAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  OpPointFields op;
  SigFields sig;
  if (parseKeyedList(parser, "operating-set option",
                     "an operating-point or a signature field",
                     [&](StringRef key, SMLoc keyLoc) {
                       if (auto r = op.parse(parser, key, keyLoc))
                         return r;
                       return sig.parse(parser, key, keyLoc);
                     }))
    return {};
  OpPointAttr opAttr = op.build(parser, loc);
  SignatureAttr sigAttr = sig.build(parser, loc);
  if (!opAttr || !sigAttr)
    return {};
  return OptionAttr::get(parser.getContext(), opAttr, sigAttr);
}

void OptionAttr::print(AsmPrinter &printer) const {
  printer << "<";
  if (printOpPointFields(printer, getOpPoint()))
    printer << ", ";
  printSigFields(printer, sigData(getSig()));
  printer << ">";
}

LogicalResult OpPointAttr::verify(function_ref<InFlightDiagnostic()> emit,
                                  std::optional<int64_t> sm,
                                  std::optional<int64_t> mem,
                                  std::optional<Real> capR,
                                  std::optional<Real> shareR) {
  std::optional<double> cap = Real::unwrap(capR), share = Real::unwrap(shareR);
  if (sm && *sm <= 0)
    return emit() << "SM clock must be positive; got " << *sm << " MHz";
  if (mem && *mem <= 0)
    return emit() << "memory clock must be positive; got " << *mem << " MHz";
  if (cap && !(*cap > 0 && std::isfinite(*cap)))
    return emit() << "power cap must be positive; got "
                  << formatQuantity(*cap, Dimension::Power);
  if (share && !(*share > 0 && *share <= 1))
    return emit() << "SM share must lie in (0, 1]; got " << *share;
  return success();
}

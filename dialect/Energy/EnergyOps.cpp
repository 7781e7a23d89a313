//===- EnergyOps.cpp - energy dialect operations --------------------------===//

#include "dialect/Energy/Energy.h"
#include "dialect/Energy/EnergyTree.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>

using namespace mlir;
using namespace energy;

//===----------------------------------------------------------------------===//
// Custom directives: quantities stored as F64 in SI base units.
//===----------------------------------------------------------------------===//

static ParseResult parsePower(OpAsmParser &parser, FloatAttr &attr) {
  return parseQuantityAttr(parser, attr, Dimension::Power);
}
static void printPower(OpAsmPrinter &p, Operation *, FloatAttr attr) {
  printQuantity(p, attr.getValueAsDouble(), Dimension::Power);
}
/// `<time> [dynamic <energy>]`: the idle's duration and the dynamic energy
/// that may be written only to be rejected by the verifier.
static ParseResult parseIdleSpan(OpAsmParser &parser, FloatAttr &duration,
                                 FloatAttr &dynamic) {
  if (parseQuantityAttr(parser, duration, Dimension::Time))
    return failure();
  if (failed(parser.parseOptionalKeyword("dynamic")))
    return success();
  return parseQuantityAttr(parser, dynamic, Dimension::Energy);
}
static void printIdleSpan(OpAsmPrinter &p, Operation *, FloatAttr duration,
                          FloatAttr dynamic) {
  printQuantity(p, duration.getValueAsDouble(), Dimension::Time);
  if (!dynamic)
    return;
  p << " dynamic ";
  printQuantity(p, dynamic.getValueAsDouble(), Dimension::Energy);
}

// The op definitions ODS generates shadow their own locals (-Wshadow is
// on for the code we write: CMakeLists.txt).
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wshadow"
#define GET_OP_CLASSES
#include "dialect/Energy/EnergyOps.cpp.inc"
#pragma clang diagnostic pop

//===----------------------------------------------------------------------===//
// Verifiers. Per-op checks live here; everything that depends on a whole
// tree (side conditions of par/multi/seq, device symbols, duplicate names) is
// checked once per tree, at its root, by one linear walk (EnergyTree.cpp).
//===----------------------------------------------------------------------===//

static LogicalResult verifyIfRoot(Operation *op) {
  if (!isTreeRoot(op))
    return success();
  return composeTree(op, TreeMode::Verify);
}

LogicalResult DeviceOp::verify() {
  double s = getStaticPower().convertToDouble();
  if (!(s >= 0) || !std::isfinite(s))
    return emitOpError("static power must be finite and non-negative; got ")
           << formatQuantity(s, Dimension::Power);
  return success();
}

/// `<...>` into a signature property; `#energy.sig<...>` also reads.
static ParseResult parseSigProperty(OpAsmParser &parser,
                                    std::optional<SigData> &prop) {
  SMLoc loc = parser.getCurrentLocation();
  Attribute full;
  OptionalParseResult given = parser.parseOptionalAttribute(full);
  if (given.has_value()) {
    if (failed(*given))
      return failure();
    auto sig = dyn_cast<SignatureAttr>(full);
    if (!sig)
      return parser.emitError(loc) << "expected a signature, got " << full;
    prop = sigData(sig);
    return success();
  }
  SigData v;
  if (parseSigData(parser, v))
    return failure();
  prop = v;
  return success();
}

/// A signature property spelled as a discardable attribute would be kept
/// as an unrelated one; and one set by a builder is checked like a parsed
/// one.
/// `howWritten` completes "has an attribute '<name>': the ...".
static LogicalResult verifySigProperty(Operation *op, StringRef name,
                                       StringRef howWritten,
                                       const std::optional<SigData> &prop) {
  if (op->getDiscardableAttr(name))
    return op->emitOpError("has an attribute '")
           << name << "': the " << howWritten
           << ", not in the attribute dictionary";
  if (prop && failed(verifySigData([&] { return op->emitOpError(); }, *prop)))
    return failure();
  return success();
}

SignatureAttr ElementOp::getSigAsAttr() {
  const std::optional<SigData> &sig = getProperties().sig;
  return sig ? sigAttr(getContext(), *sig) : SignatureAttr();
}

void ElementOp::setSigFromAttr(SignatureAttr sig) {
  getProperties().sig =
      sig ? std::optional<SigData>(sigData(sig)) : std::nullopt;
}

LogicalResult ElementOp::verify() {
  if (failed(verifySigProperty(*this, "sig",
                               "signature is written `sig <T = ..., d = ...>` "
                               "after the device",
                               getProperties().sig)))
    return failure();
  return verifyIfRoot(*this);
}

LogicalResult IdleOp::verify() {
  double t = getDuration().convertToDouble();
  if (!(t >= 0) || !std::isfinite(t))
    return emitOpError("duration must be finite and non-negative; got ")
           << formatQuantity(t, Dimension::Time);
  if (auto dyn = getDynamicAttr(); dyn && dyn.getValueAsDouble() != 0)
    return emitOpError("an idle element has no dynamic energy; got ")
           << formatQuantity(dyn.getValueAsDouble(), Dimension::Energy);
  return verifyIfRoot(*this);
}

/// How deep compositions may nest. MLIR's parser, verifier and walks
/// recurse once per level, and the parser takes ~2 KB of stack per level:
/// an 8 MB stack (stock mlir-opt with the plugin) overflows near 4,000.
/// Real trees are a few levels deep (a lowered 1F1B iteration: 4); deeper
/// input is refused where it exceeds the limit, before anything recurses.
constexpr unsigned kMaxCompositionNesting = 1000;

/// The limit as the verifier applies it, to every composition kind and in
/// either form: the generic form (`"energy.seq"() ({...})`) does not pass
/// through parseComposition, and neither does `energy.composite` (its
/// assembly format is generated), whose parts the tree walks recurse into
/// as well. Reported at the innermost composition (regions verify after
/// their ops); the walk up stops once past the limit.
static LogicalResult verifyNesting(Operation *op) {
  unsigned depth = 1;
  for (Operation *p = op->getParentOp(); p && depth <= kMaxCompositionNesting;
       p = p->getParentOp())
    if (isa<SeqOp, ParOp, MultiOp, CompositeOp>(p))
      ++depth;
  if (depth <= kMaxCompositionNesting)
    return success();
  return op->emitOpError("is nested more than ")
         << kMaxCompositionNesting << " compositions deep; at most "
         << kMaxCompositionNesting
         << " levels (flatten the tree: a seq directly inside a seq is the "
            "same seq)";
}

template <typename OpT> static LogicalResult verifyComposition(OpT op) {
  if (op->getRegion(0).empty() || op->getRegion(0).front().empty())
    return op->emitOpError("must contain at least one element or composition");
  if (failed(verifyNesting(op)))
    return failure();
  if (failed(verifySigProperty(op, "closure",
                               "closure is written `-> sig <T = ..., d = "
                               "...>` after the name",
                               op.getProperties().closure)))
    return failure();
  return verifyIfRoot(op);
}

LogicalResult SeqOp::verifyRegions() { return verifyComposition(*this); }
LogicalResult ParOp::verifyRegions() { return verifyComposition(*this); }
LogicalResult MultiOp::verifyRegions() { return verifyComposition(*this); }

void energy::setClosure(Operation *op, const SigData &closure) {
  if (auto seq = dyn_cast<SeqOp>(op))
    seq.setClosure(closure);
  else if (auto par = dyn_cast<ParOp>(op))
    par.setClosure(closure);
  else if (auto multi = dyn_cast<MultiOp>(op))
    multi.setClosure(closure);
}

void energy::dropEvaluation(Operation *root) {
  root->walk([](Operation *op) {
    op->removeAttr(EnergyDialect::TotalAttrHelper::getNameStr());
    if (auto seq = dyn_cast<SeqOp>(op))
      seq.getProperties().closure = std::nullopt;
    else if (auto par = dyn_cast<ParOp>(op))
      par.getProperties().closure = std::nullopt;
    else if (auto multi = dyn_cast<MultiOp>(op))
      multi.getProperties().closure = std::nullopt;
  });
}

LogicalResult CompositeOp::verifyRegions() {
  if (getBody().empty() || getBody().front().empty())
    return emitOpError("is a measured composite but keeps no parts; "
                       "a measured element without parts is energy.element");
  if (failed(verifyNesting(*this)))
    return failure();
  return verifyIfRoot(*this);
}

//===----------------------------------------------------------------------===//
// InteractionOp
//===----------------------------------------------------------------------===//

ParseResult InteractionOp::parse(OpAsmParser &parser, OperationState &state) {
  FlatSymbolRefAttr from, to;
  StringAttr mechanism;
  double first = 0, second = 0;
  Builder &b = parser.getBuilder();
  if (parser.parseAttribute(from))
    return failure();
  bool directed = succeeded(parser.parseOptionalArrow());
  if (!directed && (parser.parseMinus() || parser.parseMinus()))
    return failure();
  if (parser.parseAttribute(to) || parser.parseKeyword("mechanism") ||
      parser.parseAttribute(mechanism) || parser.parseKeyword("perturbation") ||
      parseQuantity(parser, Dimension::Energy, first))
    return failure();
  bool hasSecond = false;
  SMLoc commaLoc = parser.getCurrentLocation();
  if (directed && succeeded(parser.parseOptionalComma()))
    return parser.emitError(commaLoc,
                            "a directed (->) edge has one perturbation, its "
                            "target's; a second endpoint's is for an "
                            "undirected (--) edge");
  if (!directed && succeeded(parser.parseOptionalComma())) {
    if (parseQuantity(parser, Dimension::Energy, second))
      return failure();
    hasSecond = true;
  }
  auto &props = state.getOrAddProperties<InteractionOp::Properties>();
  props.from = from;
  props.to = to;
  if (directed)
    props.directed = b.getUnitAttr();
  props.mechanism = mechanism;
  props.perturbation = b.getF64FloatAttr(first);
  if (hasSecond)
    props.reverse_perturbation = b.getF64FloatAttr(second);
  return parser.parseOptionalAttrDict(state.attributes);
}

LogicalResult InteractionOp::verify() {
  if (getFrom() == getTo())
    return emitOpError("links @") << getFrom() << " with itself";
  if (getDirected() && getReversePerturbationAttr())
    return emitOpError("is directed: only an undirected (--) edge has a "
                       "second endpoint's perturbation");
  for (double v : {getPerturbation().convertToDouble(),
                   getReversePerturbationAttr()
                       ? getReversePerturbationAttr().getValueAsDouble()
                       : 0.0})
    if (!std::isfinite(v))
      return emitOpError("perturbation must be finite");
  SmallVector<StringRef> parts;
  getMechanism().split(parts, '+');
  for (StringRef m : parts)
    if (m != "thermal" && m != "cache" && m != "power-delivery" &&
        m != "contention")
      return emitOpError("mechanism '")
             << getMechanism()
             << "' is not thermal, cache, power-delivery or contention (or "
                "entry-context ones joined by '+')";
  if (getMechanism().contains("contention") && getDirected())
    return emitOpError("contention is runtime interference: an undirected "
                       "(--) edge");
  return verifyEndpoints();
}

// Every interaction's endpoints must name elements (an energy.element, a
// measured composite or a seq/par/multi) of its module. The names live in
// nested regions, which no symbol table covers, so the module is walked --
// once per block of interactions: only the first interaction of a block
// (none before it in that block) checks all of that block's, so the work
// stays linear in the module however many edges it holds.
LogicalResult InteractionOp::verifyEndpoints() {
  for (Operation *prev = (*this)->getPrevNode(); prev;
       prev = prev->getPrevNode())
    if (isa<InteractionOp>(prev))
      return success(); // checked by the block's first interaction
  Operation *scope = (*this)->getParentOfType<ModuleOp>();
  if (!scope)
    scope = (*this)->getParentOp();
  if (!scope)
    return success();
  // Per name: whether an element (or composite) has it, and whether a
  // device does (a device and an element may share a name).
  llvm::StringMap<std::pair<bool, bool>> named;
  scope->walk([&](Operation *op) {
    bool device = isa<DeviceOp>(op);
    if (device || isa<ElementOp, CompositeOp, SeqOp, ParOp, MultiOp>(op))
      if (auto name =
              op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName())) {
        std::pair<bool, bool> &seen = named[name.getValue()];
        (device ? seen.second : seen.first) = true;
      }
  });
  bool ok = true;
  for (Operation &op : *(*this)->getBlock()) {
    auto edge = dyn_cast<InteractionOp>(op);
    if (!edge)
      continue;
    for (StringRef end : {edge.getFrom(), edge.getTo()}) {
      auto it = named.find(end);
      if (it != named.end() && it->second.first)
        continue;
      if (it == named.end())
        edge.emitOpError("endpoint @")
            << end << " names no element, composite, seq, par or multi";
      else
        edge.emitOpError("endpoint @")
            << end << " is a device: interactions link elements";
      ok = false;
    }
  }
  return success(ok);
}

void InteractionOp::print(OpAsmPrinter &p) {
  p << " " << getFromAttr() << (getDirected() ? " -> " : " -- ") << getToAttr()
    << " mechanism " << getMechanismAttr() << " perturbation ";
  printQuantity(p, getPerturbation().convertToDouble(), Dimension::Energy);
  if (auto r = getReversePerturbationAttr()) {
    p << ", ";
    printQuantity(p, r.getValueAsDouble(), Dimension::Energy);
  }
  p.printOptionalAttrDict((*this)->getAttrs(), getAttributeNames());
}

//===----------------------------------------------------------------------===//
// Custom assembly (the declarative formats, by hand)
//===----------------------------------------------------------------------===//
//
// See parseOpAttrDict in Energy.h: printing without materializing every
// op's properties as a dictionary (10^6 elements print in half the time).

ParseResult ElementOp::parse(OpAsmParser &parser, OperationState &result) {
  auto &props = result.getOrAddProperties<Properties>();
  Type none = parser.getBuilder().getType<NoneType>();
  if (parser.parseSymbolName(props.sym_name) ||
      parseKeywordAttr(parser, "on", props.device, none))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("sig")) &&
      parseSigProperty(parser, props.sig))
    return failure();
  if (parseOptionalKeywordAttr(parser, "at", props.op_point, Type{}))
    return failure();
  return parseOpAttrDict<ElementOp>(parser, result, /*withKeyword=*/false);
}

void ElementOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printSymbolName(getSymName());
  printKeywordAttr(p, "on", getDeviceAttr());
  if (const std::optional<SigData> &sig = getProperties().sig) {
    p << " sig ";
    printSigData(p, *sig);
  }
  printKeywordAttr(p, "at", getOpPointAttr(), /*stripped=*/true);
  printDiscardableAttrs(p, *this, /*withKeyword=*/false);
}

ParseResult IdleOp::parse(OpAsmParser &parser, OperationState &result) {
  auto &props = result.getOrAddProperties<Properties>();
  if (parseKeywordAttr(parser, "on", props.device,
                       parser.getBuilder().getType<NoneType>()) ||
      parser.parseKeyword("for") ||
      parseIdleSpan(parser, props.duration, props.dynamic))
    return failure();
  return parseOpAttrDict<IdleOp>(parser, result, /*withKeyword=*/false);
}

void IdleOp::print(OpAsmPrinter &p) {
  printKeywordAttr(p, "on", getDeviceAttr());
  p << " for ";
  printIdleSpan(p, *this, getDurationAttr(), getDynamicAttr());
  printDiscardableAttrs(p, *this, /*withKeyword=*/false);
}

static thread_local unsigned compositionDepth = 0;

template <typename OpT>
static ParseResult parseComposition(OpAsmParser &parser,
                                    OperationState &result) {
  if (compositionDepth >= kMaxCompositionNesting)
    return parser.emitError(parser.getNameLoc())
           << "compositions nested deeper than " << kMaxCompositionNesting
           << " levels; flatten the tree (a seq directly inside a seq is the "
              "same seq)";
  ++compositionDepth;
  struct Leave {
    ~Leave() { --compositionDepth; }
  } leave;
  auto &props = result.getOrAddProperties<typename OpT::Properties>();
  (void)parser.parseOptionalSymbolName(props.sym_name);
  if (succeeded(parser.parseOptionalArrow()) &&
      (parser.parseKeyword("sig") || parseSigProperty(parser, props.closure)))
    return failure();
  if (parseOpAttrDict<OpT>(parser, result, /*withKeyword=*/true))
    return failure();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body))
    return failure();
  if (body->empty())
    body->emplaceBlock();
  return success();
}

template <typename OpT> static void printComposition(OpT op, OpAsmPrinter &p) {
  if (StringAttr name = op.getSymNameAttr()) {
    p << ' ';
    p.printSymbolName(name.getValue());
  }
  if (const std::optional<SigData> &closure = op.getProperties().closure) {
    p << " -> sig ";
    printSigData(p, *closure);
  }
  printDiscardableAttrs(p, op, /*withKeyword=*/true);
  p << ' ';
  p.printRegion(op.getBody());
}

ParseResult SeqOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseComposition<SeqOp>(parser, result);
}
void SeqOp::print(OpAsmPrinter &p) { printComposition(*this, p); }
ParseResult ParOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseComposition<ParOp>(parser, result);
}
void ParOp::print(OpAsmPrinter &p) { printComposition(*this, p); }
ParseResult MultiOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseComposition<MultiOp>(parser, result);
}
void MultiOp::print(OpAsmPrinter &p) { printComposition(*this, p); }

//===----------------------------------------------------------------------===//
// Canonicalization
//===----------------------------------------------------------------------===//

namespace {
/// Whether any element or measured composite below `op` has a varying time
/// (a measured composite counts by its own signature, not its parts').
static bool anyTimeVaries(Operation *op) {
  bool varies = false;
  op->walk<WalkOrder::PreOrder>([&](Operation *x) {
    if (auto e = dyn_cast<ElementOp>(x))
      varies |= e.getSig() && e.getSig()->sigmaT > 0;
    else if (auto c = dyn_cast<CompositeOp>(x)) {
      if (c.getSigAttr()) {
        varies |= c.getSigAttr().sigmaTime() > 0;
        return varies ? WalkResult::interrupt() : WalkResult::skip();
      }
    }
    return varies ? WalkResult::interrupt() : WalkResult::advance();
  });
  return varies;
}

/// Associativity: an unnamed composition nested directly in one of the same
/// kind is spliced into its parent. Named ones are kept: their names are how
/// reports and users refer to them. A par or multi whose times vary is kept
/// too: Clark's moments of a max of three or more depend on the grouping
/// (CALCULUS.md section 2), so splicing would change the evaluated sigma
/// and leave the root's `energy.total` describing another fold; a seq's
/// sums do not.
template <typename OpTy> struct FlattenNested : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy inner,
                                PatternRewriter &rewriter) const override {
    auto outer = dyn_cast_or_null<OpTy>(inner->getParentOp());
    if (!outer || inner.getSymNameAttr())
      return failure();
    // One operand: its closure is that operand's, whatever the grouping.
    if (!std::is_same_v<OpTy, SeqOp> &&
        !llvm::hasSingleElement(inner.getBody().front()) &&
        anyTimeVaries(outer))
      return failure();
    rewriter.inlineBlockBefore(&inner.getBody().front(), inner);
    rewriter.eraseOp(inner);
    // The parent's closure, if any, was computed for another fold order.
    if (outer.getProperties().closure)
      rewriter.modifyOpInPlace(outer, [&] { outer.setClosure(std::nullopt); });
    return success();
  }
};

/// A zero-length idle holds no time and no energy, but it does hold its
/// device in its composition's device set (a seq's operands must span the
/// same devices). It is dropped only where another operand beside it spans
/// that device too, so the set, and every enclosing check, stay as they are.
struct DropZeroIdle : OpRewritePattern<IdleOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(IdleOp idle,
                                PatternRewriter &rewriter) const override {
    if (idle.getDuration().convertToDouble() != 0)
      return failure();
    // In a par or multi whose times vary, a zero-length operand is a term
    // of Clark's max (max(X, 0) of a varying X): kept, as the flattening
    // keeps their grouping.
    Operation *parent = idle->getParentOp();
    if (isa_and_nonnull<ParOp, MultiOp>(parent) && anyTimeVaries(parent))
      return failure();
    FlatSymbolRefAttr device = idle.getDeviceAttr();
    bool covered = false;
    for (Operation &sibling : *idle->getBlock()) {
      if (&sibling == idle.getOperation())
        continue;
      sibling.walk([&](Operation *op) {
        if (auto e = dyn_cast<ElementOp>(op))
          covered |= e.getDeviceAttr() == device;
        else if (auto i = dyn_cast<IdleOp>(op))
          covered |= i.getDeviceAttr() == device;
        return covered ? WalkResult::interrupt() : WalkResult::advance();
      });
      if (covered)
        break;
    }
    if (!covered)
      return failure();
    rewriter.eraseOp(idle);
    return success();
  }
};

/// Consecutive idles on one device in a sequence are one idle.
struct MergeAdjacentIdles : OpRewritePattern<IdleOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(IdleOp idle,
                                PatternRewriter &rewriter) const override {
    if (!isa_and_nonnull<SeqOp>(idle->getParentOp()))
      return failure();
    auto next = dyn_cast_or_null<IdleOp>(idle->getNextNode());
    if (!next || next.getDeviceAttr() != idle.getDeviceAttr() ||
        idle.getDynamicAttr() || next.getDynamicAttr())
      return failure();
    double sum = idle.getDuration().convertToDouble() +
                 next.getDuration().convertToDouble();
    rewriter.modifyOpInPlace(
        idle, [&] { idle.setDurationAttr(rewriter.getF64FloatAttr(sum)); });
    rewriter.eraseOp(next);
    return success();
  }
};
} // namespace

void IdleOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<DropZeroIdle, MergeAdjacentIdles>(context);
}
void SeqOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<FlattenNested<SeqOp>>(context);
}
void ParOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<FlattenNested<ParOp>>(context);
}
void MultiOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<FlattenNested<MultiOp>>(context);
}

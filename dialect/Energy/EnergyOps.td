//===- EnergyOps.td - energy dialect operations ------------*- tablegen -*-===//

#ifndef ENERGY_OPS_TD
#define ENERGY_OPS_TD

include "dialect/Energy/EnergyDialect.td"
include "dialect/Energy/EnergyAttrs.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/OpBase.td"

def Energy_DeviceOp : Energy_Op<"device", [Symbol]> {
  let summary = "a device (or a lockstep device group) with its static power";
  let description = [{
    ```mlir
    energy.device @tp2 kind "2xA100-SXM4" static 120 W
    ```
    Declares a device that elements run on. `static` is the power the device
    draws whenever it is held at its device-wide operating point (Axiom P2:
    drawn once however many elements run on it). Devices that run in
    lockstep (a tensor-parallel pair) may be declared as one device with
    their static powers summed, as the paper's section 2.4 does.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$kind,
                       F64Attr:$static_power,
                       OptionalAttr<Energy_OpPointAttr>:$op_point);
  let assemblyFormat = [{
    $sym_name `kind` $kind `static` custom<Power>($static_power)
    (`at` $op_point^)? attr-dict
  }];
  let hasVerifier = 1;
}

// An element's signature or a composition's closure, stored inline
// (energy::SigData): no attribute is created or uniqued per op. The generic form and bytecode still show
// it as `#energy.sig<...>`; absent, it is left out.
def Energy_SigProp
    : Property<"std::optional<::energy::SigData>", "optional signature"> {
  let defaultValue = "std::nullopt";
  let convertToAttribute = [{
    return ::energy::sigPropertyAttr($_ctxt, $_storage);
  }];
  let convertFromAttribute = [{
    return ::energy::sigPropertyFromAttr($_storage, $_attr, $_diag);
  }];
  let hashProperty = "::llvm::hash_value($_storage)";
  let writeToMlirBytecode = [{
    $_writer.writeAttribute(::energy::sigPropertyAttr($_ctxt, $_storage))
  }];
  let readFromMlirBytecode = [{
    ::mlir::Attribute attr;
    if (::mlir::failed($_reader.readAttribute(attr)) ||
        ::mlir::failed(::energy::sigPropertyFromAttr($_storage, attr, nullptr)))
      return ::mlir::failure();
  }];
}

def Energy_ElementOp : Energy_Op<"element"> {
  let summary = "an energy element: a kernel, layer, stage, step or job";
  let description = [{
    ```mlir
    energy.element @prefix on @tp2 sig <T = 1.55 ms, d = 900 mJ, sigma_T = 10 us>
    ```
    A leaf of the composition with its signature. The static power is the
    device's unless the signature overrides it (`s = 61 W`). An element
    without a signature is valid IR (a later pass fills it) but cannot be
    evaluated.

    Syntax: `energy.element @name on @device (sig <...>)? (at <...>)?
    attr-dict`.

    Storage: `sig` is a property holding the signature's fields as doubles
    (`energy::SigData`), not a uniqued attribute; the generic form writes it
    `sig = #energy.sig<...>`, or `sig = none` when absent.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, FlatSymbolRefAttr:$device,
                       Energy_SigProp:$sig,
                       OptionalAttr<Energy_OpPointAttr>:$op_point);
  let extraClassDeclaration = [{
    /// The signature as `#energy.sig` (built and uniqued on each call; null
    /// when absent), and set from one (null clears it).
    SignatureAttr getSigAsAttr();
    void setSigFromAttr(SignatureAttr sig);
  }];
  // `$sym_name on $device (sig $sig)? (at $op_point)? attr-dict`, written
  // by hand so that printing does not materialize the properties as a
  // dictionary per op (EnergyOps.cpp; 10^6 elements print 2x faster).
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Energy_IdleOp : Energy_Op<"idle"> {
  let summary = "an idle element: a device held without work";
  let description = [{
    ```mlir
    energy.idle on @gpu1 for 2 ms
    ```
    Zero dynamic energy, the static power of its device, a duration set by
    the schedule (CALCULUS.md section 1). A `dynamic` energy may be written
    only to be rejected: idle elements have none.

    Syntax: `energy.idle on @device for <time> (dynamic <energy>)?
    attr-dict`.
  }];
  let arguments = (ins FlatSymbolRefAttr:$device, F64Attr:$duration,
                       OptionalAttr<F64Attr>:$dynamic);
  // `on $device for custom<IdleSpan>($duration, $dynamic) attr-dict`, by
  // hand for the same reason as energy.element.
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

class Energy_CompositionOp<string mnemonic, string symbol>
    : Energy_Op<mnemonic, [NoTerminator, SingleBlock, NoRegionArguments]> {
  let arguments = (ins OptionalAttr<SymbolNameAttr>:$sym_name,
                       Energy_SigProp:$closure);
  let regions = (region SizedRegion<1>:$body);
  // `($sym_name^)? (-> sig $closure^)? attr-dict-with-keyword $body`, by
  // hand for the same reason as energy.element.
  let hasCustomAssemblyFormat = 1;
  let hasRegionVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    static constexpr const char *operatorSymbol = "}] # symbol # [{";
  }];
}

def Energy_SeqOp : Energy_CompositionOp<"seq", "⊗"> {
  let summary = "sequential composition (⊗)";
  let description = [{
    Operands run one after another on the same set of devices.
    `T = sum T_i`, `d = sum d_i`, `var_E = sum var_E_i` (CALCULUS.md
    section 2). `--energy-evaluate` attaches the closure signature as
    `-> sig <...>` (Property 5.3: every composite is an element).

    Syntax (also par and multi): `energy.seq (@name)? (-> sig <...>)?
    (attributes {...})? { ... }`. The closure is a property like an
    element's `sig` (generic form: `closure = #energy.sig<...>` or `none`).
  }];
}

def Energy_ParOp : Energy_CompositionOp<"par", "⊕"> {
  let summary = "same-device parallel composition (⊕)";
  let description = [{
    Operands start together on ONE device with ONE static power, which is
    drawn once over the makespan: `E = s max(T_i) + sum d_i`,
    `var_E = sum var_d_i + s^2 Var(max T_i)` with Clark's Var(max), folded
    pairwise. Later starters are written `energy.seq { energy.idle ...; X }`.
  }];
}

def Energy_MultiOp : Energy_CompositionOp<"multi", "⊕multi"> {
  let summary = "cross-device parallel composition (⊕multi)";
  let description = [{
    Operands start together on disjoint device sets; shorter ones are padded
    with idle at their own static power:
    `E = (sum s_i) max(T_i) + sum d_i`,
    `var_E = sum var_d_i + (sum s_i)^2 Var(max T_i)`.
  }];
}

def Energy_CompositeOp : Energy_Op<"composite",
    [NoTerminator, SingleBlock, NoRegionArguments]> {
  let summary = "a directly measured composite";
  let description = [{
    ```mlir
    energy.composite @layer sig <T = 4.32 ms, d = 2.8 J> {
      energy.element @a on @gpu ...
    }
    ```
    A composite characterized as a whole (for example because its parts
    interact). It contributes its own measured signature; its parts are kept
    for reference and evaluated only to report their closures. Its devices
    are the union of its parts'; its static power is `s` of its signature,
    or the sum of those devices' static powers.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       OptionalAttr<Energy_SignatureAttr>:$sig);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name (`sig` $sig^)? attr-dict-with-keyword $body
  }];
  let hasRegionVerifier = 1;
}

def Energy_InteractionOp : Energy_Op<"interaction"> {
  let summary = "an edge of the interaction graph";
  let description = [{
    ```mlir
    energy.interaction @hot -> @sensitive mechanism "thermal" perturbation 12 J
    energy.interaction @a -- @b mechanism "contention" perturbation 3 J, 4 J
    ```
    Recorded by `--energy-reduce` where the Reduction Theorem fails
    (CALCULUS.md section 4): directed (`->`) for an entry-context effect of
    `from` on `to`, undirected (`--`) for runtime interference, with each
    endpoint's perturbation of energy (signed; the second only for
    undirected edges). `mechanism` is one of "thermal", "cache",
    "power-delivery" and "contention", or several entry-context ones joined
    by `+`. The graph starts empty and grows only from failed checks.
  }];
  let arguments = (ins FlatSymbolRefAttr:$from, FlatSymbolRefAttr:$to,
                       UnitAttr:$directed, StrAttr:$mechanism,
                       F64Attr:$perturbation,
                       OptionalAttr<F64Attr>:$reverse_perturbation);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::llvm::LogicalResult verifyEndpoints();
  }];
}

#endif // ENERGY_OPS_TD

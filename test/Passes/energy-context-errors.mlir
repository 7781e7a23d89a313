// RUN: energy-opt %s --energy-propagate-context -split-input-file -verify-diagnostics
// RUN: not energy-opt %s --energy-reduce="confidence=2" -split-input-file 2>&1 | FileCheck %s --check-prefix=CONF
// CONF: energy-reduce: confidence must lie in (0, 1)

// expected-error@+1 {{'energy.device' op energy.thermal needs 'capacitance'}}
energy.device @bad kind "X" static 1 W {energy.thermal = {resistance = 0.1, ambient = 30.0}}

// -----

// expected-error@+1 {{'energy.device' op energy.thermal 'leakage' must be a float}}
energy.device @bad kind "X" static 1 W {energy.thermal = {resistance = 0.1, capacitance = 1.0, ambient = 30.0, leakage = "high"}}

// -----

// expected-error@+1 {{'energy.device' op energy.thermal resistance and capacitance must be positive}}
energy.device @bad kind "X" static 1 W {energy.thermal = {resistance = 0.0, capacitance = 1.0, ambient = 30.0}}

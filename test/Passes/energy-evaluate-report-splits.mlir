// Every split of -split-input-file reaches the one report: the first
// split's root (10 W x 1 s + 2 J) is not lost to the second's (15 J).
// RUN: rm -f %t.json
// RUN: energy-opt %s -split-input-file --energy-evaluate="report=%t.json" -o /dev/null
// RUN: FileCheck %s < %t.json
// A module evaluated twice in one run replaces its own entries: one root.
// RUN: printf 'energy.device @g kind "A100" static 10 W\nenergy.seq @only {\n  energy.element @a on @g sig <T = 1 s, d = 2 J>\n}\n' > %t.one.mlir
// RUN: energy-opt %t.one.mlir --energy-evaluate="report=%t.one.json" --energy-evaluate="report=%t.one.json" -o /dev/null
// RUN: %python -c "import json, sys; d = json.load(open(sys.argv[1])); print(len(d['roots']), len(d['composites']))" %t.one.json | FileCheck %s --check-prefix=TWICE
// TWICE: 1 1

// CHECK:      "roots": [
// CHECK:        "E_J": 12,
// CHECK:        "loc": "loc(\"{{.*}}energy-evaluate-report-splits.mlir\":[[#]]:1)",
// CHECK-NEXT:   "name": "first",
// CHECK-NEXT:   "op": "energy.seq",
// CHECK:        "E_J": 15,
// CHECK:        "name": "second",
// CHECK-NEXT:   "op": "energy.seq",

energy.device @g kind "A100" static 10 W
energy.seq @first {
  energy.element @a on @g sig <T = 1 s, d = 2 J>
}

// -----

energy.device @g kind "A100" static 10 W
energy.seq @second {
  energy.element @a on @g sig <T = 1 s, d = 5 J>
}

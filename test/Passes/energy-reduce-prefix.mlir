// A prefix that accumulates a bias past its bound is flagged where it first
// does (@c, heated by @a: +10.56 J); the elements after it that move nothing
// themselves (marked insensitive: realized = null) fail the prefix check
// only through @c's bias, which characterizing @a's and @c's prefix removes:
// they are not flagged, and no 0 J edge is recorded for them.
// RUN: energy-opt %s --energy-propagate-context --energy-reduce -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// REMARK: energy-reduce-prefix.mlir:[[@LINE+10]]:3: remark: entry context from @a (thermal) shifts its energy by 10.56 J: not reducible
// REMARK-NOT: remark
// RUN: FileCheck %s < %t.mlir
// CHECK-COUNT-1: energy.interaction
// CHECK-NOT: energy.interaction
// CHECK-NOT: energy.element @hot {{.*}}energy.needs_characterization
// CHECK-NOT: energy.element @z {{.*}}energy.needs_characterization
energy.device @gpu kind "A100" static 60 W {energy.thermal = {resistance = 0.1, capacitance = 50.0, ambient = 30.0, leakage = 0.004}}
energy.seq @s {
  energy.element @a on @gpu sig <T = 5 s, d = 1440 J> {energy.insensitive}
  energy.element @c on @gpu sig <T = 2 s, d = 100 J>
  energy.element @hot on @gpu sig <T = 10 s, d = 100 J> {energy.insensitive}
  energy.element @z on @gpu sig <T = 1 ms, d = 1 J> {energy.insensitive}
}

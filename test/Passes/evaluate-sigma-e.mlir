// A measured signature's sigma_E is not an input: its variance of E is
// s^2 var_T + var_d (Axiom P1), and a sigma_E written otherwise would be
// ignored without a word. Said at the element (a consistent one, as
// --energy-evaluate would print it, is not): @all's P1 value is
// sqrt((70 W x 4 us)^2 + (5 mJ)^2) = 5.008 mJ, not 6 mJ.
// RUN: energy-opt %s --energy-evaluate -o /dev/null 2>&1 | FileCheck %s
// CHECK: warning: energy-evaluate: sigma_E = 6 mJ is not used: a measured signature's variance of E is s^2 var_T + var_d (Axiom P1; here sigma_E = 5.008 mJ); give sigma_d (and sigma_T) instead
// CHECK-NOT: warning
energy.device @tp2 kind "2xA100" static 70 W
energy.seq {
  energy.element @all on @tp2 sig <T = 2 ms, d = 3 J, sigma_T = 4 us, sigma_d = 5 mJ, sigma_E = 6 mJ>
  energy.element @ok on @tp2 sig <T = 2 ms, d = 3 J, sigma_d = 5 mJ, sigma_E = 5 mJ>
}

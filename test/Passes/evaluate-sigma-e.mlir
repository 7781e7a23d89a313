// A measured signature's variance of E is s^2 var_T + var_d (Axiom P1). A
// sigma_E written beside sigma_d that disagrees with it would be ignored
// without a word: said at the element (a consistent one, as
// --energy-evaluate would print it, is not): @all's P1 value is
// sqrt((70 W x 4 us)^2 + (5 mJ)^2) = 5.008 mJ, not 6 mJ.
// A sigma_E without sigma_d (the paper's signature carries var_E, Eq. 6)
// gives var_d = sigma_E^2 - s^2 var_T: @given's sigma_T = 10 ms at 60 W and
// sigma_E = 2 J give sigma_d = sqrt(4 - 0.36) J = 1.908 J, so the seq of it
// and @plain (sigma_d = 1 J) has sigma_E = sqrt(4 + 1) J = 2.236 J. One
// below s sigma_T is no measurement's: said, and left at sigma_d = 0.
// RUN: energy-opt %s --energy-evaluate -o /dev/null 2>&1 | FileCheck %s
// RUN: energy-opt %s --energy-evaluate 2>/dev/null | FileCheck %s --check-prefix=GIVEN
// CHECK: warning: energy-evaluate: sigma_E = 6 mJ is not used: a measured signature's variance of E is s^2 var_T + var_d (Axiom P1); here sigma_E = 5.008 mJ; give sigma_d (and sigma_T), or sigma_E without sigma_d
// CHECK: warning: energy-evaluate: sigma_E = 500 mJ is not used: a measured signature's variance of E is s^2 var_T + var_d (Axiom P1); s sigma_T alone is 600 mJ, more than it (no measurement's sigma_E is below s sigma_T)
// CHECK-NOT: warning
// GIVEN: energy.seq @withSigmaE -> sig <{{.*}}sigma_E = 2.236067977
energy.device @tp2 kind "2xA100" static 70 W
energy.seq {
  energy.element @all on @tp2 sig <T = 2 ms, d = 3 J, sigma_T = 4 us, sigma_d = 5 mJ, sigma_E = 6 mJ>
  energy.element @ok on @tp2 sig <T = 2 ms, d = 3 J, sigma_d = 5 mJ, sigma_E = 5 mJ>
}
energy.device @g kind "A100" static 60 W
energy.seq @withSigmaE {
  energy.element @given on @g sig <T = 1 s, d = 1 J, sigma_T = 10 ms, sigma_E = 2 J>
  energy.element @plain on @g sig <T = 1 s, d = 1 J, sigma_d = 1 J>
}
energy.element @below on @g sig <T = 1 s, d = 1 J, sigma_T = 10 ms, sigma_E = 500 mJ>

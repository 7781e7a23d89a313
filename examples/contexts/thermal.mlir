// Thermal coupling (docs/CONTEXTS.md): a 60 W device, R = 0.1 K/W,
// C = 50 J/K (tau = 5 s), ambient 30 degC, leakage +0.4 %/K. @hot (348 W
// for 5 s, insensitive to temperature) heats the device to
// 30 + 34.8 (1 - e^-1) = 51.9978 degC; @cool then leaks
// 60 x 0.004 x 21.9978 = 5.2795 W more: +10.559 J over its 2 s. Run
// --energy-propagate-context --energy-reduce --energy-evaluate: the
// Reduction Theorem says the pair is order-sensitive and keeps it as one
// irreducible prefix (a remark), priced with the context model.
energy.device @gpu kind "A100" static 60 W {energy.thermal = {resistance = 0.1, capacitance = 50.0, ambient = 30.0, leakage = 0.004}}
energy.seq @hot_first {
  energy.element @hot on @gpu sig <T = 5 s, d = 1440 J, sigma_d = 1 J> {energy.insensitive}
  energy.element @cool on @gpu sig <T = 2 s, d = 100 J, sigma_d = 1 J>
}

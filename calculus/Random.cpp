//===- Random.cpp - Seeded random streams ---------------------------------===//

#include "calculus/Random.h"

#include <cmath>

namespace energy {
namespace calculus {

namespace {
uint64_t splitmix64(uint64_t &x) {
  uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
} // namespace

Rng::Rng(uint64_t seed, uint64_t stream) {
  uint64_t x = seed ^ (stream * 0xD1B54A32D192ED03ull);
  for (uint64_t &v : s)
    v = splitmix64(x);
}

namespace {
struct Ziggurat {
  double w[128], f[128];
  uint32_t k[128];
  static constexpr double r = 3.442619855899, m1 = 2147483648.0;
  Ziggurat() {
    double dn = r, tn = dn, vn = 9.91256303526217e-3;
    double q = vn / std::exp(-0.5 * dn * dn);
    k[0] = uint32_t(dn / q * m1);
    k[1] = 0;
    w[0] = q / m1;
    w[127] = dn / m1;
    f[0] = 1;
    f[127] = std::exp(-0.5 * dn * dn);
    for (int i = 126; i >= 1; --i) {
      dn = std::sqrt(-2 * std::log(vn / dn + std::exp(-0.5 * dn * dn)));
      k[i + 1] = uint32_t(dn / tn * m1);
      tn = dn;
      f[i] = std::exp(-0.5 * dn * dn);
      w[i] = dn / m1;
    }
  }
};
const Ziggurat &ziggurat() {
  static const Ziggurat z;
  return z;
}
} // namespace

double Rng::normal() {
  const Ziggurat &z = ziggurat();
  for (;;) {
    uint64_t u = (*this)();
    unsigned i = unsigned(u & 127);
    int32_t hz = int32_t(uint32_t(u >> 32));
    uint32_t mag = hz < 0 ? uint32_t(-(int64_t)hz) : uint32_t(hz);
    double x = hz * z.w[i];
    if (mag < z.k[i])
      return x; // inside the layer's rectangle: ~98.8 % of draws
    if (i == 0) {
      // The tail beyond r (Marsaglia 1964).
      double a, b;
      do {
        a = -std::log(uniform()) / Ziggurat::r;
        b = -std::log(uniform());
      } while (b + b < a * a);
      return hz > 0 ? Ziggurat::r + a : -Ziggurat::r - a;
    }
    if (z.f[i] + uniform() * (z.f[i - 1] - z.f[i]) < std::exp(-0.5 * x * x))
      return x;
  }
}

} // namespace calculus
} // namespace energy

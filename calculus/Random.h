//===- Random.h - Seeded random streams for Monte Carlo -------*- C++ -*-===//
//
// xoshiro256** (Blackman & Vigna 2018) seeded from (seed, stream) by
// splitmix64, and standard normals by the ziggurat method: the same numbers
// on every platform and standard library (std::normal_distribution's are
// implementation-defined), so a seeded simulation is reproducible anywhere.
//
//===----------------------------------------------------------------------===//

#ifndef CALCULUS_RANDOM_H
#define CALCULUS_RANDOM_H

#include <cstdint>

namespace energy {
namespace calculus {

/// A UniformRandomBitGenerator; stream `stream` of seed `seed`.
struct Rng {
  using result_type = uint64_t;
  uint64_t s[4];
  Rng(uint64_t seed, uint64_t stream);
  static constexpr uint64_t min() { return 0; }
  static constexpr uint64_t max() { return ~uint64_t(0); }
  uint64_t operator()() {
    uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return r;
  }
  /// Uniform on (0, 1).
  double uniform() { return (double((*this)() >> 11) + 0.5) * 0x1.0p-53; }
  /// Standard normal by the ziggurat method (Marsaglia & Tsang 2000, 128
  /// layers), with the layer and the value taken from independent bits of
  /// one 64-bit output (the 32-bit original reuses bits, Doornik 2005).
  double normal();

private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
};

} // namespace calculus
} // namespace energy

#endif // CALCULUS_RANDOM_H

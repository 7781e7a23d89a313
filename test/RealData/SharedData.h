//===- SharedData.h - where the real-data tests find their files -*- C++
//-*-===//
//
// The datasets from public artifacts are never copied into the repository:
// tests read them in place under ENERGY_SHARED_DATA, which lit sets from the
// same path as its `shared-data` feature (test/lit.cfg.py). The tests that
// include this header run only where that folder exists; without the
// variable they fail loudly instead of passing on nothing.
//
//===----------------------------------------------------------------------===//

#ifndef TEST_REALDATA_SHAREDDATA_H
#define TEST_REALDATA_SHAREDDATA_H

#include <cstdio>
#include <cstdlib>
#include <string>

namespace energy {
namespace testing {

/// `relative` under the shared data folder; aborts when the variable is
/// unset (lit always sets it).
inline std::string sharedData(const std::string &relative) {
  const char *root = std::getenv("ENERGY_SHARED_DATA");
  if (!root || !*root) {
    std::fprintf(stderr, "ENERGY_SHARED_DATA is not set: run these tests "
                         "through lit (test/RealData/*.test)\n");
    std::abort();
  }
  return std::string(root) + "/" + relative;
}

} // namespace testing
} // namespace energy

#endif // TEST_REALDATA_SHAREDDATA_H

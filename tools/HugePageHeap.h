//===- HugePageHeap.h - back the tools' heap with huge pages ---*- C++ -*-===//
//
// Parsing a schedule of a million ops allocates ~800 MiB in small pieces
// (operations, attribute storage, names). With 4 KiB pages that is 160,000
// page faults, and TLB entries that cover 4 KiB each: measured on the 10^6-element tree,
// 1.3 s of the 7.6 s parse. Linux backs an `madvise(MADV_HUGEPAGE)` region
// with 2 MiB pages when transparent huge pages are in `madvise` or `always`
// mode, so the tools reserve the first GiB of glibc's main heap up front
// (M_TOP_PAD: address space only; pages are committed as they are touched)
// and advise it. Nothing else changes: memory beyond the first GiB, other
// arenas and mmap'd blocks keep ordinary pages; RSS grows in 2 MiB steps.
//
// Opt out with ENERGY_HUGE_PAGE_HEAP=0. A no-op off Linux/glibc.
//
//===----------------------------------------------------------------------===//

#ifndef ENERGY_TOOLS_HUGEPAGEHEAP_H
#define ENERGY_TOOLS_HUGEPAGEHEAP_H

#include <cstdint>
#include <cstdlib> // defines __GLIBC__ on glibc
#include <cstring>
#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace energy::tools {

inline void adviseHugePageHeap() {
#if defined(__linux__) && defined(__GLIBC__) && defined(MADV_HUGEPAGE)
  if (const char *env = std::getenv("ENERGY_HUGE_PAGE_HEAP");
      env && std::strcmp(env, "0") == 0)
    return;
  constexpr std::size_t reserve = std::size_t(1) << 30;
  constexpr std::uintptr_t huge = std::uintptr_t(2) << 20;
  if (mallopt(M_TOP_PAD, int(reserve)) != 1)
    return;
  // The next extension of the heap's top takes the pad with it: allocate
  // until the break moves, then give the blocks back.
  void *before = sbrk(0);
  void *blocks[64];
  int n = 0;
  while (sbrk(0) == before && n < 64)
    blocks[n++] = std::malloc(64 * 1024 - 64);
  void *after = sbrk(0);
  for (int i = 0; i < n; ++i)
    std::free(blocks[i]);
  if (after == before) {
    // No reservation (e.g. strict overcommit refused it; glibc then falls
    // back to mmap): back to glibc's default pad, so later growth does not
    // keep asking for a GiB.
    (void)mallopt(M_TOP_PAD, 128 * 1024);
    return;
  }
  auto lo = (reinterpret_cast<std::uintptr_t>(before) + huge - 1) & ~(huge - 1);
  auto hi = reinterpret_cast<std::uintptr_t>(after) & ~(huge - 1);
  if (hi > lo)
    (void)madvise(reinterpret_cast<void *>(lo), hi - lo, MADV_HUGEPAGE);
#endif
}

} // namespace energy::tools

#endif // ENERGY_TOOLS_HUGEPAGEHEAP_H

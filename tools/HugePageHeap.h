//===- HugePageHeap.h - back the tools' heap with huge pages ---*- C++ -*-===//
//
// Parsing a schedule of a million ops allocates ~800 MiB in small pieces
// (operations, attribute storage, names). With 4 KiB pages that is 160,000
// page faults, and TLB entries that cover 4 KiB each: measured on the
// 10^6-element tree, 1.3 s of the 7.6 s parse. Linux backs an
// `madvise(MADV_HUGEPAGE)` region with 2 MiB pages when transparent huge pages
// are in `madvise` or `always` mode, so the tools reserve the first GiB of
// glibc's main heap up front (M_TOP_PAD: address space only; pages are
// committed as they are touched) and advise it. Nothing else changes: memory
// beyond the first GiB, other arenas and mmap'd blocks keep ordinary pages; RSS
// grows in 2 MiB steps.
//
// Committing those pages (the kernel zeroing 2 MiB at a time) still costs
// the parsing thread: 10-15 % of a 10^6-element parse on this VM, whose host
// backs fresh memory slowly. So a second thread, on the core the parser
// leaves idle, commits the advised region just ahead of the allocator with
// `madvise(MADV_POPULATE_WRITE)` once the heap has grown past its first
// 32 MiB, keeping at most `lead` bytes committed beyond where the program
// has got to: RSS exceeds what the heap uses by at most that, and a small
// run commits nothing (commitAheadOfHeap). Measured: the 10^6-element
// parse, the Kineto import and `--sched-expand` of a 10^6-task pipeline
// each 0.7-1.1 s faster (bench/RESULTS.md).
// MADV_POPULATE_WRITE faults pages in as a write would without writing, so
// memory the allocator already handed out is left as it is. Not on one core.
//
// Opt out with ENERGY_HUGE_PAGE_HEAP=0 (both) or ENERGY_COMMIT_AHEAD=0 (the
// second thread only). A no-op off Linux/glibc, and under AddressSanitizer
// (whose allocator is not glibc's heap).
//
//===----------------------------------------------------------------------===//

#ifndef ENERGY_TOOLS_HUGEPAGEHEAP_H
#define ENERGY_TOOLS_HUGEPAGEHEAP_H

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib> // defines __GLIBC__ on glibc
#include <cstring>
#include <thread>
#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace energy::tools {

#if defined(__linux__) && defined(__GLIBC__) && defined(MADV_POPULATE_WRITE)
/// Commits [lo, hi) on a detached thread, ahead of the allocator. Where the
/// allocator is is read without taking its lock: the first huge page of
/// every `block` is left for the parser to fault in (a sentinel), and
/// `mincore` says which sentinels it has reached. (mallinfo2 would say it
/// exactly, but it walks the free lists under the main arena's lock: 6 % of
/// a 10^6-element run, holding up the parser's frees.)
inline void commitAheadOfHeap(std::uintptr_t lo, std::uintptr_t hi) {
  if (std::thread::hardware_concurrency() < 2)
    return;
  if (const char *env = std::getenv("ENERGY_COMMIT_AHEAD");
      env && std::strcmp(env, "0") == 0)
    return;
  std::thread([lo, hi] {
    constexpr std::uintptr_t huge = std::uintptr_t(2) << 20;
    constexpr std::uintptr_t block = std::uintptr_t(32) << 20;
    constexpr std::uintptr_t lead = 4 * block; // the parser takes ~150 MiB/s
    constexpr int pollMs = 5;
    // The first block is the program's own: nothing is committed before the
    // heap has grown past it, so a small run keeps its small RSS.
    std::uintptr_t done = lo + block; // committed below, but the sentinels
    std::uintptr_t reached = lo;      // last block whose sentinel is touched
    long page = sysconf(_SC_PAGESIZE);
    while (done < hi) {
      // Sentinels the program has faulted in since the last look.
      for (std::uintptr_t b = reached + block; b < hi; b += block) {
        unsigned char resident = 0;
        if (mincore(reinterpret_cast<void *>(b), std::size_t(page),
                    &resident) != 0)
          return;
        if (!(resident & 1))
          break;
        reached = b;
      }
      if (reached == lo || done >= std::min(hi, reached + lead)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(pollMs));
        continue;
      }
      // lo and hi are huge-page aligned; the last block ends at hi.
      std::uintptr_t end = std::min(hi, done + block);
      std::uintptr_t from = done + huge; // past the block's sentinel
      if (end > from && madvise(reinterpret_cast<void *>(from), end - from,
                                MADV_POPULATE_WRITE) != 0)
        return; // not supported (before Linux 5.14) or no memory: stop
      done = end;
    }
  }).detach();
}
#endif

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ENERGY_UNDER_ASAN 1
#endif
#endif

inline void adviseHugePageHeap() {
#if defined(__linux__) && defined(__GLIBC__) && defined(MADV_HUGEPAGE) &&      \
    !defined(ENERGY_UNDER_ASAN)
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
#ifdef MADV_POPULATE_WRITE
  if (hi > lo)
    commitAheadOfHeap(lo, hi);
#endif
#endif
}

} // namespace energy::tools

#endif // ENERGY_TOOLS_HUGEPAGEHEAP_H

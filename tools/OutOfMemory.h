//===- OutOfMemory.h - running out of memory said, not a bare abort -*- C++
//-*-===//
//
// An allocation the machine cannot give (an input near the limit of one
// input, runtime/formats/Input.h, whose parsed form is tens of times its
// text; a ulimit) throws std::bad_alloc, which with exceptions off ends the
// tool in std::terminate (LLVM's containers report theirs through
// llvm::report_bad_alloc_error, which aborts too): "Aborted", exit 134, no
// word why. Each tool's main
// installs (after InitLLVM, whose own handler aborts) a new-handler that
// says so and exits with status 1; atexit handlers run, so an output begun
// is removed, not left half written. energy-prof passes the runtime's
// restore of the GPUs it holds changed (clocks, power limits), run first.
//
//===----------------------------------------------------------------------===//

#ifndef TOOLS_OUTOFMEMORY_H
#define TOOLS_OUTOFMEMORY_H

#include "llvm/Support/ErrorHandling.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <unistd.h>

namespace energy {
namespace tools {

namespace detail {
struct OutOfMemory {
  const char *tool = "energy";
  void (*restore)() = nullptr;
};
inline OutOfMemory &oom() {
  static OutOfMemory state;
  return state;
}
/// The message, the tool's restore, exit 1. Nothing allocated before the
/// restore: fixed text to the descriptor.
[[noreturn]] inline void outOfMemory() {
  static const char msg[] =
      ": error: out of memory (an input too large to hold parsed on this "
      "machine? ENERGY_MAX_INPUT_MB lowers the limit of one input)\n";
  const OutOfMemory &state = oom();
  ssize_t ignored = ::write(2, state.tool, std::strlen(state.tool));
  ignored = ::write(2, msg, sizeof msg - 1);
  (void)ignored;
  if (state.restore)
    state.restore();
  std::exit(1);
}
} // namespace detail

/// Installs the handler for `tool` ("energy-opt"); `restore` (optional)
/// runs before the exit: what the tool must undo on every exit path.
inline void sayOutOfMemory(const char *tool, void (*restore)() = nullptr) {
  detail::oom() = {tool, restore};
  // operator new's failures; the handler is removed first, so that an
  // allocation after it (an atexit handler's) fails as before.
  std::set_new_handler([] {
    std::set_new_handler(nullptr);
    detail::outOfMemory();
  });
  // LLVM's own (SmallVector, safe_malloc: llvm::report_bad_alloc_error).
  llvm::install_bad_alloc_error_handler(
      [](void *, const char *, bool) { detail::outOfMemory(); });
}

} // namespace tools
} // namespace energy

#endif // TOOLS_OUTOFMEMORY_H

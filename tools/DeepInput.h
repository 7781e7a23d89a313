//===- DeepInput.h - deep IR text without a stack overflow ------*- C++ -*-===//
//
// MLIR's parser recurses once per nested region, attribute, array or type,
// on the calling thread's stack: about 2 KB per level of the generic form
// `"energy.seq"() ({ ... })`, one byte of input per level of `[[[[`. On the
// main thread's 8 MB that overflows near 4,000 levels of composition, or on
// a few thousand brackets.
//
// The tools therefore
//  1. refuse text whose brackets (`(`, `[`, `{`, `<`) nest deeper than
//     kMaxTextNesting, with the location where the limit is passed, before
//     anything parses it (strings and `//` comments skipped; `->`, `<=` and
//     `>=` are not brackets), and the same for aliases (`#a1 = [#a0]`: a
//     chain of aliases nests as deep as the brackets it stands for, and the
//     printer recurses through it);
//  2. parse, verify and run passes of text nested deeper than
//     kMainStackNesting on a thread with a kParseStackBytes stack
//     (reserved, not committed: only the pages a deep input touches are
//     used), which holds kMaxTextNesting levels of the deepest-stacking
//     construct with room to spare, and all MLIR bytecode (not scanned).
//     Shallower text (every real input) stays on the main thread; the deep
//     stack's thread is kept on the main arena (M_ARENA_MAX), whose heap
//     tools/HugePageHeap.h backs with huge pages.
// The dialect's own limit is tighter: compositions nest at most 1,000
// levels (EnergyOps.cpp), refused by the parser in the custom form and by
// the verifier in the generic form. Stock mlir-opt with the plugin has
// neither 1 nor 2; there the generic form deeper than its stack allows
// overflows in upstream's parser, as for any dialect.
//
//===----------------------------------------------------------------------===//

#ifndef TOOLS_DEEPINPUT_H
#define TOOLS_DEEPINPUT_H

#include "mlir/Bytecode/BytecodeReader.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstring>
#include <pthread.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace energy::tools {

/// Brackets of every kind, counted together.
constexpr unsigned kMaxTextNesting = 16384;
/// What the main thread's 8 MB stack takes with room to spare: 1,900
/// levels of the generic form (3,800 brackets) parse, verify and evaluate
/// there; 4,000 do not.
constexpr unsigned kMainStackNesting = 2048;
/// 16,384 levels of the generic form take ~40 MB of stack; 1 GiB leaves
/// margin for the passes' own recursion over the (verified, at most 1,000
/// levels deep) trees.
constexpr unsigned kParseStackBytes = 1u << 30;

/// Moves `p` past a string literal (with backslash escapes) or a `//`
/// comment that starts at it; false where none does.
inline bool skipStringOrComment(const char *&p, const char *end) {
  if (*p == '"') {
    for (++p; p != end && *p != '"'; ++p)
      if (*p == '\\' && p + 1 != end)
        ++p;
    if (p != end)
      ++p;
    return true;
  }
  if (*p == '/' && p + 1 != end && p[1] == '/') {
    while (p != end && *p != '\n')
      ++p;
    return true;
  }
  return false;
}

/// How deep the brackets of `text` nest, up to `limit` + 1; `tooDeep` is
/// where they first pass `limit` (nullptr: they do not).
inline unsigned textNesting(llvm::StringRef text, const char *&tooDeep,
                            unsigned limit = kMaxTextNesting) {
  unsigned depth = 0, deepest = 0;
  tooDeep = nullptr;
  const char *p = text.begin(), *end = text.end();
  while (p != end) {
    char c = *p;
    if (skipStringOrComment(p, end))
      continue;
    bool next = p + 1 != end;
    if (c == '(' || c == '[' || c == '{' ||
        (c == '<' && !(next && p[1] == '='))) {
      deepest = std::max(deepest, ++depth);
      if (depth > limit) {
        tooDeep = p;
        return deepest;
      }
    } else if (c == ')' || c == ']' || c == '}' ||
               (c == '>' && !(next && p[1] == '=') &&
                !(p != text.begin() && p[-1] == '-'))) {
      if (depth)
        --depth;
    }
    ++p;
  }
  return deepest;
}

/// How deep the attribute and type aliases of `text` nest: an alias
/// definition (`#name = ...` or `!name = ...` at bracket depth 0, anywhere
/// on a line; they precede their uses) is as deep as its body's brackets
/// plus the deepest alias it names (`#other`, `!other`: no `.`, which names
/// a dialect's attribute, and no `<` after); a body runs to the next
/// definition. A chain of one-bracket aliases is as deep to the printer as
/// the brackets it stands for. `tooDeep`: the definition where the depth
/// first passes `limit` (nullptr: none).
inline unsigned aliasNesting(llvm::StringRef text, const char *&tooDeep,
                             unsigned limit = kMaxTextNesting) {
  tooDeep = nullptr;
  llvm::StringMap<unsigned> depthOf; // by sigil and name ("#a", "!t")
  unsigned deepest = 0, depth = 0;
  auto isIdent = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
           c == '$' || c == '.';
  };
  // The definition being read: its key, where it starts, its body's
  // deepest bracket and the deepest alias it names.
  std::string current;
  const char *currentAt = nullptr;
  unsigned bodyDepth = 0, named = 0;
  auto finish = [&]() -> bool {
    if (current.empty())
      return true;
    unsigned total = std::min(bodyDepth + named, limit + 1);
    depthOf[current] = total;
    deepest = std::max(deepest, total);
    current.clear();
    if (total > limit) {
      tooDeep = currentAt;
      return false;
    }
    return true;
  };
  const char *p = text.begin(), *end = text.end();
  while (p != end) {
    char c = *p;
    if (skipStringOrComment(p, end))
      continue;
    if (c == '#' || c == '!') {
      const char *q = p + 1;
      while (q != end && isIdent(*q))
        ++q;
      llvm::StringRef id(p + 1, size_t(q - p - 1));
      if (!id.empty() && !id.contains('.') && (q == end || *q != '<')) {
        // A definition: at depth 0, then `=` (not `==`).
        const char *r = q;
        while (r != end &&
               (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r'))
          ++r;
        std::string key = std::string(1, c) + id.str();
        if (depth == 0 && r != end && *r == '=' &&
            (r + 1 == end || r[1] != '=')) {
          if (!finish())
            return deepest;
          current = key;
          currentAt = p;
          bodyDepth = named = 0;
          p = r + 1;
          continue;
        }
        if (!current.empty()) {
          auto it = depthOf.find(key);
          if (it != depthOf.end())
            named = std::max(named, it->second);
        }
      }
      p = q;
      continue;
    }
    bool next = p + 1 != end;
    if (c == '(' || c == '[' || c == '{' ||
        (c == '<' && !(next && p[1] == '='))) {
      ++depth;
      if (!current.empty())
        bodyDepth = std::max(bodyDepth, depth);
    } else if (c == ')' || c == ']' || c == '}' ||
               (c == '>' && !(next && p[1] == '=') &&
                !(p != text.begin() && p[-1] == '-'))) {
      if (depth)
        --depth;
    }
    ++p;
  }
  finish();
  return deepest;
}

/// Checks the buffer `bufferId` of `sm`; reports `file:line:col: error:`
/// through it and returns false where the text is too deep or holds a NUL
/// byte (gzip data said as such). `depth`: how
/// deep it nests, its aliases' nesting added (what onParseStack reads).
/// MLIR bytecode is not text: it is not scanned; its reader keeps its own
/// stack of regions, but the verifier and the printer recurse per level,
/// so it is read on the deep stack (12,000 nested modules overflowed the
/// main thread's).
inline bool checkNesting(llvm::SourceMgr &sm, unsigned bufferId,
                         unsigned &depth) {
  const llvm::MemoryBuffer *buffer = sm.getMemoryBuffer(bufferId);
  depth = 0;
  if (mlir::isBytecode(buffer->getMemBufferRef())) {
    depth = kMainStackNesting + 1;
    return true;
  }
  // Text holds no NUL byte: MLIR's lexer reads one as blank space, so a
  // file of zeros (a sparse file, a disk's unwritten blocks) would be an
  // empty module and binary data parse partly. Said at its place, without
  // quoting the line (binary data).
  llvm::StringRef text = buffer->getBuffer();
  if (size_t nul = text.find('\0'); nul != llvm::StringRef::npos) {
    auto [line, col] =
        sm.getLineAndColumn(llvm::SMLoc::getFromPointer(text.data() + nul));
    bool gzip = text.size() >= 2 && uint8_t(text[0]) == 0x1f &&
                uint8_t(text[1]) == 0x8b;
    std::string where = (buffer->getBufferIdentifier() + ":" +
                         llvm::Twine(line) + ":" + llvm::Twine(col))
                            .str();
    llvm::WithColor::error(llvm::errs(), where)
        << (gzip ? "gzip-compressed data, not MLIR text: decompress it "
                   "first (gunzip)"
                 : "a NUL byte: binary data, not MLIR text (the parser "
                   "would read it as blank space)")
        << "\n";
    return false;
  }
  const char *at = nullptr;
  depth = textNesting(buffer->getBuffer(), at);
  if (at) {
    sm.PrintMessage(llvm::SMLoc::getFromPointer(at), llvm::SourceMgr::DK_Error,
                    "brackets nested deeper than " +
                        llvm::Twine(kMaxTextNesting) +
                        " levels; energy compositions nest at most 1000 "
                        "levels (flatten the tree: a seq directly inside a "
                        "seq is the same seq)");
    return false;
  }
  unsigned aliases = aliasNesting(buffer->getBuffer(), at);
  if (at) {
    sm.PrintMessage(llvm::SMLoc::getFromPointer(at), llvm::SourceMgr::DK_Error,
                    "aliases nested deeper than " +
                        llvm::Twine(kMaxTextNesting) +
                        " levels (each alias's brackets and the aliases it "
                        "names counted)");
    return false;
  }
  depth += aliases;
  return true;
}

/// Runs `body` for text nested `depth` deep and returns its result: on the
/// calling thread, or past kMainStackNesting on a thread with a deep stack
/// (kParseStackBytes, or a quarter or a sixteenth of it where the address
/// space is limited). Where no such thread can be created, an error in
/// `tool`'s name and 1, not an abort.
template <typename Fn>
int onParseStack(unsigned depth, llvm::StringRef tool, Fn &&body) {
  if (depth <= kMainStackNesting)
    return body();
  struct Call {
    Fn *body;
    int rc = 1;
    static void *run(void *self) {
      auto *call = static_cast<Call *>(self);
      call->rc = (*call->body)();
      return nullptr;
    }
  } call{&body};
  int err = 0;
#if defined(__GLIBC__)
  // The thread allocates from the main heap (whose first GiB
  // tools/HugePageHeap.h backs with huge pages), not from an arena of its
  // own: it parses while the caller waits, so nothing contends for it.
  mallopt(M_ARENA_MAX, 1);
#endif
  for (size_t stack : {size_t(kParseStackBytes), size_t(kParseStackBytes) / 4,
                       size_t(kParseStackBytes) / 16}) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, stack);
    pthread_t thread;
    err = pthread_create(&thread, &attr, &Call::run, &call);
    pthread_attr_destroy(&attr);
    if (err == 0) {
      pthread_join(thread, nullptr);
      return call.rc;
    }
  }
  llvm::WithColor::error(llvm::errs(), tool)
      << "the input nests " << depth
      << " brackets deep, past what the main thread's stack takes ("
      << kMainStackNesting << "), and no thread with a deeper stack could be "
      << "created: " << std::strerror(err) << "\n";
  return 1;
}

} // namespace energy::tools

#endif // TOOLS_DEEPINPUT_H

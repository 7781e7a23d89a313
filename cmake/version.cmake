# Writes OUT (a C++ fragment) with the project's version and the source
# tree's git revision; the file changes only when they do, so a rebuild
# recompiles one translation unit at most. Run at every build
# (tools/CMakeLists.txt, target energy-version).
execute_process(COMMAND git -C "${SRC}" rev-parse --short=12 HEAD
                OUTPUT_VARIABLE rev OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE rc ERROR_QUIET)
if(NOT rc EQUAL 0 OR rev STREQUAL "")
  set(rev "unknown")
else()
  execute_process(COMMAND git -C "${SRC}" status --porcelain
                          --untracked-files=no
                  OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_QUIET)
  if(NOT dirty STREQUAL "")
    set(rev "${rev}-dirty")
  endif()
endif()
file(WRITE "${OUT}.tmp"
     "#define ENERGY_VERSION \"${VERSION}\"\n#define ENERGY_GIT_REVISION \"${rev}\"\n")
configure_file("${OUT}.tmp" "${OUT}" COPYONLY)

# iobench_set_warnings(target): the project's warning set, per target (never via CMAKE_CXX_FLAGS).
function(iobench_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wold-style-cast -Wcast-align -Wunused -Woverloaded-virtual
                                           # g++ 12 flags every member a designated initializer
                                           # leaves to its default; that is the point of them.
                                           -Wno-missing-field-initializers)
  # g++ 12 at -O2/-O3 reports inlined libstdc++ std::string and std::optional code as out of
  # bounds, overlapping or uninitialized (GCC PR 105329, 105651, 105562: false positives).
  # ASan+UBSan builds check the real thing.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-array-bounds -Wno-restrict
                                             -Wno-stringop-overflow -Wno-stringop-overread
                                             -Wno-maybe-uninitialized)
  endif()
  if(IOBENCH_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

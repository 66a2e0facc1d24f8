# iobench_set_warnings(target): the project's warning set, per target (never via CMAKE_CXX_FLAGS).
function(iobench_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wold-style-cast -Wcast-align -Wunused -Woverloaded-virtual
                                           # g++ 12 flags every member a designated initializer
                                           # leaves to its default; that is the point of them.
                                           -Wno-missing-field-initializers)
  if(IOBENCH_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

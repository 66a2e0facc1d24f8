# iobench_add_plugin(NAME <name> SOURCES <src>...): builds an external workload plugin as a
# MODULE library (no "lib" prefix, hidden visibility) that `iobench --plugin <name>.so` loads.
# Installed with the package so out-of-tree plugins use it after find_package(iobench). It adds no
# warning flags (nor -Werror): those are the plugin author's choice; the public headers compile
# warning-free under -Wall -Wextra -Wpedantic -Wconversion -Wshadow (tests/headers).
function(iobench_add_plugin)
  cmake_parse_arguments(ARG "" "NAME" "SOURCES" ${ARGN})
  if(NOT ARG_NAME OR NOT ARG_SOURCES)
    message(FATAL_ERROR "iobench_add_plugin: NAME and SOURCES are required")
  endif()
  add_library(${ARG_NAME} MODULE ${ARG_SOURCES})
  target_link_libraries(${ARG_NAME} PRIVATE iobench::iobench)
  set_target_properties(${ARG_NAME} PROPERTIES PREFIX "" CXX_VISIBILITY_PRESET hidden
                                               VISIBILITY_INLINES_HIDDEN ON)
  target_compile_features(${ARG_NAME} PRIVATE cxx_std_20)
endfunction()

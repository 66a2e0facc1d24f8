# What a distribution package carries besides the library and the binary: the manual page, the
# shell completions (generated from the built binary's registry, so they list its workloads,
# params, enum values, engines and suites), and the .deb that `cpack -G DEB` builds from all of it
# (tests/packaging checks it by unpacking it into a scratch root).

# (The fuzz build's binary is instrumented for libFuzzer: it is not run at build time there.)
if(IOBENCH_FUZZ)
  return()
endif()

set(IOBENCH_COMPLETION_DIR ${PROJECT_BINARY_DIR}/completion)
set(IOBENCH_BASH_COMPLETION ${IOBENCH_COMPLETION_DIR}/iobench)
set(IOBENCH_ZSH_COMPLETION ${IOBENCH_COMPLETION_DIR}/_iobench)
foreach(shell bash zsh)
  if(shell STREQUAL "bash")
    set(out ${IOBENCH_BASH_COMPLETION})
  else()
    set(out ${IOBENCH_ZSH_COMPLETION})
  endif()
  add_custom_command(OUTPUT ${out}
                     COMMAND ${CMAKE_COMMAND} -E make_directory ${IOBENCH_COMPLETION_DIR}
                     COMMAND ${CMAKE_COMMAND} -DIOBENCH=$<TARGET_FILE:iobench> -DSHELL=${shell}
                             -DOUT=${out} -P ${PROJECT_SOURCE_DIR}/cmake/write_completion.cmake
                     DEPENDS iobench ${PROJECT_SOURCE_DIR}/cmake/write_completion.cmake
                     COMMENT "Generating the ${shell} completion of iobench" VERBATIM)
endforeach()
add_custom_target(iobench_completions ALL DEPENDS ${IOBENCH_BASH_COMPLETION}
                                                  ${IOBENCH_ZSH_COMPLETION})

install(FILES ${PROJECT_SOURCE_DIR}/docs/man/iobench.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
# Where Debian's bash-completion and zsh look for completions of installed commands.
install(FILES ${IOBENCH_BASH_COMPLETION}
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${IOBENCH_ZSH_COMPLETION} DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)

# One package with everything (binary, library, MPI module, headers, CMake and pkg-config files,
# manual page, completions), as the issue asks; the run-time dependencies come from
# dpkg-shlibdeps, the headers' (they include fmt) are named here.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME iobench)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "filesystem I/O benchmarks: bonnie++, tiotest, dbench, disk")
set(CPACK_PACKAGE_DESCRIPTION
    "iobench runs the workloads of bonnie++, tiotest/tiobench, dbench and the multi-target \
large-file test on one measurement core, prints each family's classic output, writes JSON, \
compares runs and writes an HTML report. Includes the C++20 library libiobench with its \
headers, CMake package and pkg-config file.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "iobench developers <iobench-devel@localhost>")
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libfmt-dev (>= 9)")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "openmpi-bin, bonnie++, dbench, fio")
include(CPack)

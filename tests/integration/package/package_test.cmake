# The package test: installs iobench from IOBENCH_BUILD_DIR into a staging prefix and uses it as a
# stranger would, with no build or source tree on any include or library path:
# - the installed `iobench` runs from the prefix, and from a copy of it elsewhere (RPATH $ORIGIN);
# - examples/consumer and examples/plugin_metadata build out of tree with find_package(iobench),
#   warning-free under -Wall -Wextra -Wpedantic -Wconversion -Wshadow (installed headers not
#   treated as system headers);
# - the consumer runs every family at tiny sizes; its JSON holds exactly the bytes and ops asked;
# - the metadata plugin runs in the installed binary, also with its create phase cut short;
# - a one-file program builds with `pkg-config --cflags --libs iobench` alone (no -std, no -I),
#   and with find_package(iobench) alone, and runs: it reads a phase's throughput accessor and
#   instantiates IoDriver, whose inline fmt calls need the package's declared fmt dependency.
# Inputs: IOBENCH_BUILD_DIR, IOBENCH_SOURCE_DIR, WORK_DIR, GENERATOR, CXX_COMPILER, PKG_CONFIG,
# CXX_LAUNCHER (ccache or empty).
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
set(strict_flags "-Wall -Wextra -Wpedantic -Wconversion -Wshadow -Werror")
# A plain environment: nothing from the build may leak in through the loader or pkg-config.
unset(ENV{LD_LIBRARY_PATH})
unset(ENV{PKG_CONFIG_PATH})

function(run_step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

function(require_match text regex what)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "${what}: expected to match '${regex}', got:\n${text}")
  endif()
endfunction()

function(require_no_build_tree file)
  file(READ ${file} text)
  # (WORK_DIR itself is inside the build tree: look for the library's own directories.)
  foreach(tree ${IOBENCH_BUILD_DIR}/libiobench ${IOBENCH_BUILD_DIR}/plugins
               ${IOBENCH_SOURCE_DIR}/libiobench ${IOBENCH_SOURCE_DIR}/plugins)
    string(FIND "${text}" "${tree}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "${file} refers to the build or source tree (${tree})")
    endif()
  endforeach()
endfunction()

# Configures and builds an example out of tree against the staged prefix only.
function(build_example name source_dir)
  run_step(${CMAKE_COMMAND} -S ${source_dir} -B ${WORK_DIR}/${name} -G ${GENERATOR}
           -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_CXX_COMPILER_LAUNCHER=${CXX_LAUNCHER}
           -DCMAKE_PREFIX_PATH=${prefix}
           -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF
           -DCMAKE_NO_SYSTEM_FROM_IMPORTED=ON -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
           "-DCMAKE_CXX_FLAGS=${strict_flags}")
  run_step(${CMAKE_COMMAND} --build ${WORK_DIR}/${name})
  require_no_build_tree(${WORK_DIR}/${name}/compile_commands.json)
  require_no_build_tree(${WORK_DIR}/${name}/build.ninja)
endfunction()

# `binary` loads libiobench from the staged prefix.
function(require_prefix_library binary)
  run_step(ldd ${binary})
  require_match("${last_output}" "libiobench\\.so\\.[0-9.]+ => ${prefix}/lib/" "ldd ${binary}")
endfunction()

# JSON helpers over CMake's own parser (independent of iobench's writer).
function(json_get out json)
  string(JSON value ERROR_VARIABLE error GET "${json}" ${ARGN})
  if(error)
    message(FATAL_ERROR "JSON: ${ARGN}: ${error}")
  endif()
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

# The phase `phase_name` of the step named `step_name` in the result document `json`.
function(json_phase out json step_name phase_name)
  string(JSON steps LENGTH "${json}" steps)
  math(EXPR last "${steps} - 1")
  foreach(s RANGE ${last})
    json_get(name "${json}" steps ${s} name)
    if(NOT name STREQUAL step_name)
      continue()
    endif()
    json_get(status "${json}" steps ${s} status)
    if(NOT status STREQUAL "ok")
      json_get(message "${json}" steps ${s} message)
      message(FATAL_ERROR "step '${step_name}' is ${status}: ${message}")
    endif()
    string(JSON phases LENGTH "${json}" steps ${s} phases)
    math(EXPR last_phase "${phases} - 1")
    foreach(p RANGE ${last_phase})
      json_get(pname "${json}" steps ${s} phases ${p} name)
      if(pname STREQUAL phase_name)
        json_get(phase "${json}" steps ${s} phases ${p})
        set(${out} "${phase}" PARENT_SCOPE)
        return()
      endif()
    endforeach()
  endforeach()
  message(FATAL_ERROR "no phase '${phase_name}' in step '${step_name}'")
endfunction()

# Checks ops_by_kind.<kind>.ops and .bytes of a phase.
function(expect_op phase kind ops bytes what)
  json_get(got_ops "${phase}" ops_by_kind ${kind} ops)
  json_get(got_bytes "${phase}" ops_by_kind ${kind} bytes)
  if(NOT got_ops EQUAL ops OR NOT got_bytes EQUAL bytes)
    message(FATAL_ERROR
            "${what} ${kind}: expected ${ops} ops, ${bytes} bytes; got ${got_ops}, ${got_bytes}")
  endif()
endfunction()

# --- the installed package -------------------------------------------------------------------
run_step(${CMAKE_COMMAND} --install ${IOBENCH_BUILD_DIR} --prefix ${prefix})
foreach(installed include/iobench/iobench.hpp include/iobench/workloads.hpp
                  include/iobench/testing.hpp include/iobench/version.hpp
                  lib/pkgconfig/iobench.pc lib/cmake/iobench/iobenchConfig.cmake)
  if(NOT EXISTS ${prefix}/${installed})
    message(FATAL_ERROR "not installed: ${installed}")
  endif()
endforeach()
file(GLOB internal ${prefix}/include/iobench/*slot* ${prefix}/include/plugins)
if(internal)
  message(FATAL_ERROR "internal headers installed: ${internal}")
endif()

# The installed binary runs from the prefix, and from a copy of the prefix elsewhere.
run_step(${prefix}/bin/iobench --version)
require_match("${last_output}" "^iobench [0-9]+\\.[0-9]+\\.[0-9]+" "iobench --version")
file(COPY ${prefix}/ DESTINATION ${WORK_DIR}/moved)
run_step(${WORK_DIR}/moved/bin/iobench list)
require_match("${last_output}" "bonnie:.*dbench:.*disk:.*filebench:.*mdtest:.*tiobench:.*tiotest:" "iobench list")

# --- examples/consumer: every family at tiny sizes --------------------------------------------
build_example(consumer ${IOBENCH_SOURCE_DIR}/examples/consumer)
require_prefix_library(${WORK_DIR}/consumer/consumer)
file(MAKE_DIRECTORY ${WORK_DIR}/target)
file(WRITE ${WORK_DIR}/tiny.load
     "Deltree \"\\clients\\client1\" NT_STATUS_OK\n"
     "Mkdir \"\\clients\" NT_STATUS_OK\n"
     "Mkdir \"\\clients\\client1\" NT_STATUS_OK\n"
     "NTCreateX \"\\clients\\client1\\f.doc\" 0x40 0x2 9938 NT_STATUS_OK\n"
     "WriteX 9938 0 4096 4096 NT_STATUS_OK\n"
     "ReadX 9938 0 4096 4096 NT_STATUS_OK\n"
     "Close 9938 NT_STATUS_OK\n"
     "Unlink \"\\clients\\client1\\f.doc\" 0x6 NT_STATUS_OK\n")
set(result ${WORK_DIR}/consumer/result.json)
run_step(${WORK_DIR}/consumer/consumer ${WORK_DIR}/target ${result} --size=256k
         --tiotest-size=256k --bonnie-size=2 --bonnie-files=1 --bonnie-per-char=0
         --dbench-loadfile=${WORK_DIR}/tiny.load --dbench-time=1s --dbench-once)
set(consumer_output "${last_output}")
foreach(line "disk write 4k +ok" "disk write 64k +ok" "tiotest +ok" "dbench 2 clients +ok"
             "bonnie +ok" "Version 2\\.00a +------Sequential Output"
             "result\\.json read back: [0-9]+ step\\(s\\), the same figures")
  require_match("${consumer_output}" "${line}" "consumer output")
endforeach()
file(GLOB left ${WORK_DIR}/target/*)
if(left)
  message(FATAL_ERROR "the consumer left files in its target: ${left}")
endif()

file(READ ${result} json)
json_get(schema "${json}" schema)
require_match("${schema}" "^${RESULT_SCHEMA}$" "schema")
# disk: 256 KiB in 4 KiB and in 64 KiB writes, one fsync each.
json_phase(phase "${json}" "disk write 4k" write)
expect_op("${phase}" write 64 262144 "disk 4k")
expect_op("${phase}" fsync 1 0 "disk 4k")
json_phase(phase "${json}" "disk write 64k" write)
expect_op("${phase}" write 4 262144 "disk 64k")
# tiotest: 2 threads x 256 KiB sequentially, 2 x 1000 random ops of 4 KiB.
json_phase(phase "${json}" tiotest Write)
expect_op("${phase}" write 128 524288 "tiotest Write")
json_phase(phase "${json}" tiotest "Random Read")
expect_op("${phase}" read 2000 8192000 "tiotest Random Read")
# dbench: 2 clients, the 8-line loadfile once each.
json_phase(phase "${json}" "dbench 2 clients" execute)
expect_op("${phase}" WriteX 2 8192 "dbench")
expect_op("${phase}" ReadX 2 8192 "dbench")
expect_op("${phase}" NTCreateX 2 0 "dbench")
json_get(ops "${phase}" ops)
if(NOT ops EQUAL 16)
  message(FATAL_ERROR "dbench: expected 16 ops, got ${ops}")
endif()
# bonnie: a 2 MiB file in 8 KiB chunks, 8192 seeks; 1024 files created and deleted.
json_phase(phase "${json}" bonnie put_block)
expect_op("${phase}" write 256 2097152 "bonnie put_block")
json_phase(phase "${json}" bonnie get_block)
expect_op("${phase}" read 256 2097152 "bonnie get_block")
json_phase(phase "${json}" bonnie seeks)
json_get(ops "${phase}" ops)
if(NOT ops EQUAL 8192)
  message(FATAL_ERROR "bonnie seeks: expected 8192, got ${ops}")
endif()
json_phase(phase "${json}" bonnie ran_del)
expect_op("${phase}" delete 1024 0 "bonnie ran_del")

# --- examples/plugin_metadata in the installed binary -------------------------------------------
build_example(metadata ${IOBENCH_SOURCE_DIR}/examples/plugin_metadata)
set(plugin ${WORK_DIR}/metadata/metadata_plugin.so)
require_prefix_library(${plugin})
run_step(${prefix}/bin/iobench --plugin ${plugin} run metadata -d ${WORK_DIR}/target files=300
         threads=2 --format json -o ${WORK_DIR}/metadata.json -q)
file(READ ${WORK_DIR}/metadata.json json)
foreach(name_kind create:create stat:stat unlink:unlink)
  string(REPLACE ":" ";" pair ${name_kind})
  list(GET pair 0 name)
  list(GET pair 1 kind)
  json_phase(phase "${json}" metadata ${name})
  expect_op("${phase}" ${kind} 600 0 "metadata ${name}")
endforeach()
# Its create phase cut after 50 ms: stat and unlink take exactly the files it made.
run_step(${prefix}/bin/iobench --plugin ${plugin} run metadata -d ${WORK_DIR}/target
         files=100000000 threads=2 create_time=50ms --format json -o ${WORK_DIR}/metadata.json
         -q)
file(READ ${WORK_DIR}/metadata.json json)
json_phase(phase "${json}" metadata create)
json_get(made "${phase}" counters files_created)
json_phase(phase "${json}" metadata stat)
expect_op("${phase}" stat ${made} 0 "metadata stat after a cut create")
json_phase(phase "${json}" metadata unlink)
expect_op("${phase}" unlink ${made} 0 "metadata unlink after a cut create")
file(GLOB left ${WORK_DIR}/target/*)
if(left)
  message(FATAL_ERROR "the metadata plugin left files in its target: ${left}")
endif()

# --- pkg-config alone ----------------------------------------------------------------------------
set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
run_step(${PKG_CONFIG} --cflags --libs iobench)
string(STRIP "${last_output}" pc_flags)
require_match("${pc_flags}" "-liobench" "pkg-config --libs")
separate_arguments(pc_args UNIX_COMMAND "${pc_flags}")
separate_arguments(strict_args UNIX_COMMAND "${strict_flags}")
# The flags come from the .pc file alone: no -std (it gives -std=c++20), no -I, no -lfmt (its
# Requires: fmt does; IoDriver calls fmt inline).
require_match("${pc_flags}" "-std=c\\+\\+20" "pkg-config --cflags")
run_step(${PKG_CONFIG} --print-requires iobench)
require_match("${last_output}" "^fmt" "pkg-config --print-requires")
run_step(${CXX_COMPILER} ${strict_args}
         ${IOBENCH_SOURCE_DIR}/tests/integration/package/one_file.cpp ${pc_args}
         -Wl,-rpath,${prefix}/lib -o ${WORK_DIR}/one_file)
require_prefix_library(${WORK_DIR}/one_file)

# The same program through find_package(iobench) and iobench::iobench alone.
unset(ENV{PKG_CONFIG_PATH})
build_example(find_package_consumer
              ${IOBENCH_SOURCE_DIR}/tests/integration/package/find_package_consumer)
require_prefix_library(${WORK_DIR}/find_package_consumer/one_file)

foreach(one_file ${WORK_DIR}/one_file ${WORK_DIR}/find_package_consumer/one_file)
  run_step(${one_file} ${WORK_DIR}/target)
  foreach(line "one_file: ok, 32 writes, 131072 bytes" "one_file: [0-9]+ bytes/s over [0-9]+ ns"
               "one_file: IoDriver 16 writes, 65536 bytes")
    require_match("${last_output}" "${line}" "${one_file}")
  endforeach()
endforeach()

message(STATUS "consumer:\n${consumer_output}")

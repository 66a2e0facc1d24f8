# Installs iobench from IOBENCH_BUILD_DIR into a staging prefix, then configures, builds and runs
# examples/consumer and builds examples/plugin_hello out of tree against that prefix.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run_step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

run_step(${CMAKE_COMMAND} --install ${IOBENCH_BUILD_DIR} --prefix ${prefix})
run_step(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${WORK_DIR}/consumer -G ${GENERATOR}
         -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_RPATH=${prefix}/lib)
run_step(${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
run_step(${WORK_DIR}/consumer/consumer ${WORK_DIR}/consumer/probe.dat 1m)
if(NOT last_output MATCHES "iobench [0-9.]+: 256 reads, mean [0-9]+ ns")
  message(FATAL_ERROR "unexpected consumer output: ${last_output}")
endif()
if(EXISTS ${WORK_DIR}/consumer/probe.dat)
  message(FATAL_ERROR "consumer left its file behind")
endif()
run_step(${CMAKE_COMMAND} -S ${PLUGIN_SOURCE_DIR} -B ${WORK_DIR}/plugin -G ${GENERATOR}
         -DCMAKE_PREFIX_PATH=${prefix})
run_step(${CMAKE_COMMAND} --build ${WORK_DIR}/plugin)
if(NOT EXISTS ${WORK_DIR}/plugin/hello_plugin.so)
  message(FATAL_ERROR "out-of-tree plugin was not built")
endif()
message(STATUS "consumer: ${last_output}")

# Writes `IOBENCH completion SHELL` to OUT (a build step: add_custom_command cannot redirect
# portably). Fails the build with iobench's message if the binary refuses.
execute_process(COMMAND ${IOBENCH} completion ${SHELL} OUTPUT_FILE ${OUT}.tmp
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  file(REMOVE ${OUT}.tmp)
  message(FATAL_ERROR "${IOBENCH} completion ${SHELL} failed (${rc}): ${err}")
endif()
file(RENAME ${OUT}.tmp ${OUT})

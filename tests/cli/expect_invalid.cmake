# Runs `kbench validate --no-device --oracle TASK` (or, with
# -DSUBCOMMAND=audit, `kbench audit TASK`) and passes when it exits with
# status 1 (the task is invalid) and its output matches REGEX.
if(SUBCOMMAND STREQUAL "audit")
  execute_process(COMMAND ${CMD} audit ${TASK} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
else()
  execute_process(COMMAND ${CMD} validate --no-device --oracle ${TASK}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
endif()
message("${out}${err}")
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "expected exit status 1 (task invalid), got ${rc}")
endif()
if(NOT "${out}${err}" MATCHES "${REGEX}")
  message(FATAL_ERROR "the output does not say: ${REGEX}")
endif()

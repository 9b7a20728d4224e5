# cmake -DCOMMAND="exe;arg;..." -DEXPECT=<exit status> -P kvmodelExpectExit.cmake
# Runs COMMAND and fails unless it exits with EXPECT (for tests of error exits).
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE rc)
if(NOT rc STREQUAL "${EXPECT}")
    message(FATAL_ERROR "expected exit status ${EXPECT}, got '${rc}' from: ${COMMAND}")
endif()

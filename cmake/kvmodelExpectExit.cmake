# cmake -DCOMMAND="exe;arg;..." -DEXPECT=<exit status> [-DEXPECT_STDERR=<regex>]
#       -P kvmodelExpectExit.cmake
# Runs COMMAND and fails unless it exits with EXPECT (for tests of error exits)
# and, when EXPECT_STDERR is given, its standard error matches that regex.
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc STREQUAL "${EXPECT}")
    message(FATAL_ERROR "expected exit status ${EXPECT}, got '${rc}' from: ${COMMAND}\n${err}")
endif()
if(DEFINED EXPECT_STDERR AND NOT err MATCHES "${EXPECT_STDERR}")
    message(FATAL_ERROR "standard error of ${COMMAND} does not match '${EXPECT_STDERR}':\n${err}")
endif()

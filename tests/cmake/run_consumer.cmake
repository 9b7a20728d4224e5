# tests/cmake/run_consumer.cmake — run by the ctest tests consumer_add_subdirectory
# and consumer_find_package:
#
#   cmake -DMODE=add_subdirectory|find_package -DCONSUMER_SOURCE_DIR=...
#         -DCONSUMER_BINARY_DIR=... -DKVMODEL_SOURCE_DIR=...
#         [-DKVMODEL_BINARY_DIR=... -DINSTALL_PREFIX=...]   (find_package)
#         [-DGENERATOR=... -DCXX_COMPILER=... -DLAUNCHER=... -DBUILD_TYPE=...]
#         -P run_consumer.cmake
#
# find_package first installs this build tree's development component into
# INSTALL_PREFIX. Then both configure the consumer, build it and run it.
cmake_minimum_required(VERSION 3.21)

foreach(var MODE CONSUMER_SOURCE_DIR CONSUMER_BINARY_DIR KVMODEL_SOURCE_DIR)
    if(NOT ${var})
        message(FATAL_ERROR "run_consumer.cmake: -D${var}=... is required")
    endif()
endforeach()
if(NOT BUILD_TYPE)
    set(BUILD_TYPE Release)
endif()
# BUILD_TYPE is the kvmodel build's configuration (what gets installed). The
# consumer itself builds as Debug: the test checks what the package exports
# (targets, include paths, dependencies, the separately compiled engine), which
# no optimization level changes, and -O0 -g compiles the engine in about half
# the time -O3 takes (main.cpp here: 19 s against 34 s).
set(CONSUMER_BUILD_TYPE Debug)

function(run_step what)
    string(REPLACE ";" " " shown "${ARGN}")
    message(STATUS "consumer_${MODE}: ${what}: ${shown}")
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "consumer_${MODE}: ${what} failed (${rc})")
    endif()
endfunction()

set(configure_args
    -S "${CONSUMER_SOURCE_DIR}" -B "${CONSUMER_BINARY_DIR}"
    "-DCMAKE_BUILD_TYPE=${CONSUMER_BUILD_TYPE}"
    -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON)
if(GENERATOR)
    list(APPEND configure_args -G "${GENERATOR}")
endif()
if(CXX_COMPILER)
    list(APPEND configure_args "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
endif()
if(LAUNCHER)
    list(APPEND configure_args "-DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER}")
endif()

if(MODE STREQUAL "add_subdirectory")
    list(APPEND configure_args "-DKVMODEL_SOURCE_DIR=${KVMODEL_SOURCE_DIR}")
elseif(MODE STREQUAL "find_package")
    if(NOT KVMODEL_BINARY_DIR OR NOT INSTALL_PREFIX)
        message(FATAL_ERROR "run_consumer.cmake: find_package needs -DKVMODEL_BINARY_DIR and -DINSTALL_PREFIX")
    endif()
    file(REMOVE_RECURSE "${INSTALL_PREFIX}")  # no stale headers from an earlier run
    run_step("install kvmodel" "${CMAKE_COMMAND}" --install "${KVMODEL_BINARY_DIR}"
             --prefix "${INSTALL_PREFIX}" --config "${BUILD_TYPE}" --component kvmodel_Development)
    list(APPEND configure_args "-DCMAKE_PREFIX_PATH=${INSTALL_PREFIX}")
else()
    message(FATAL_ERROR "run_consumer.cmake: unknown MODE '${MODE}'")
endif()

run_step("configure" "${CMAKE_COMMAND}" ${configure_args})

if(MODE STREQUAL "find_package")
    # The package must come from the fresh install, not from elsewhere on the machine.
    file(STRINGS "${CONSUMER_BINARY_DIR}/CMakeCache.txt" found_dir REGEX "^kvmodel_DIR:")
    string(REGEX REPLACE "^[^=]*=" "" found_dir "${found_dir}")
    file(REAL_PATH "${INSTALL_PREFIX}" prefix_real)
    file(REAL_PATH "${found_dir}" found_real)
    string(FIND "${found_real}" "${prefix_real}/" at)
    if(NOT at EQUAL 0)
        message(FATAL_ERROR "consumer_find_package: found kvmodel in '${found_dir}', not under '${INSTALL_PREFIX}'")
    endif()
endif()

run_step("build" "${CMAKE_COMMAND}" --build "${CONSUMER_BINARY_DIR}" --config "${CONSUMER_BUILD_TYPE}")

file(STRINGS "${CONSUMER_BINARY_DIR}/consumer-path-${CONSUMER_BUILD_TYPE}.txt" exe LIMIT_COUNT 1)
run_step("run" "${exe}")
message(STATUS "consumer_${MODE}: OK")

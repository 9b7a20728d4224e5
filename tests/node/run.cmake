# tests/node/run.cmake — ctest's driver of the Node.js suites (tests/node/*.js)
# against `kvmodel serve`:
#   cmake -DKVMODEL=<kvmodel binary> -DSCRIPT=<js file> -DNODE_DIR=<dir> -P run.cmake
# Installs the official client (npm install --ignore-scripts aerospike@VERSION:
# its prebuilt binaries ship in the package; no build, no server) into NODE_DIR
# once, then runs the script. Without node or npm, when the registry cannot be
# reached, or when node is older than 20 (no binary for it), the test is
# skipped (ctest SKIP_REGULAR_EXPRESSION "SKIP: ") with a message saying why.
set(AEROSPIKE_NODE_VERSION 6.7.1)
find_program(NODE node)
find_program(NPM npm)
if(NOT NODE OR NOT NPM)
    message("SKIP: node and npm are needed for the Node.js client tests (apt-get install nodejs npm)")
    return()
endif()
if(NOT EXISTS "${NODE_DIR}/node_modules/aerospike/package.json")
    file(MAKE_DIRECTORY "${NODE_DIR}")
    execute_process(COMMAND "${NPM}" install --ignore-scripts --no-audit --no-fund --prefix "${NODE_DIR}"
                            "aerospike@${AEROSPIKE_NODE_VERSION}"
                    RESULT_VARIABLE npm_status OUTPUT_VARIABLE npm_out ERROR_VARIABLE npm_out
                    TIMEOUT 300)
    if(NOT npm_status EQUAL 0)
        message("SKIP: npm install aerospike@${AEROSPIKE_NODE_VERSION} failed (no registry?):\n${npm_out}")
        return()
    endif()
endif()
set(ENV{NODE_PATH} "${NODE_DIR}/node_modules")
# The package ships binaries for Node 20 and newer; an older node cannot load it.
execute_process(COMMAND "${NODE}" -e "require('aerospike')" RESULT_VARIABLE load_status
                OUTPUT_VARIABLE load_out ERROR_VARIABLE load_out TIMEOUT 60)
if(NOT load_status EQUAL 0)
    message("SKIP: this node cannot load aerospike@${AEROSPIKE_NODE_VERSION} (it needs Node 20 or newer):\n${load_out}")
    return()
endif()
execute_process(COMMAND "${NODE}" "${SCRIPT}" "${KVMODEL}" RESULT_VARIABLE status TIMEOUT 240)
if(NOT status EQUAL 0)
    message(FATAL_ERROR "${SCRIPT}: failed (${status})")
endif()

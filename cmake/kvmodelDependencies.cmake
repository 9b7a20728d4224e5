# cmake/kvmodelDependencies.cmake
#
# Finds kvmodel's system dependencies. A dependency that is missing stops
# configuration with one line naming the Debian package that provides it:
#
#   kvmodel: Catch2 not found — install it with: apt-get install catch2
#
# kvmodel_require(<Package> <debian-package> [find_package arguments...])
#   Runs find_package(<Package> [arguments...] QUIET) and records a miss.
# kvmodel_check_requirements()
#   Stops configuration if anything recorded by kvmodel_require is missing,
#   naming every missing package on one line.

include_guard(GLOBAL)

macro(kvmodel_require _kvmodel_pkg _kvmodel_deb)
    find_package(${_kvmodel_pkg} ${ARGN} QUIET)
    if(NOT ${_kvmodel_pkg}_FOUND)
        list(APPEND KVMODEL_MISSING_PACKAGES "${_kvmodel_pkg}")
        list(APPEND KVMODEL_MISSING_DEBIAN_PACKAGES "${_kvmodel_deb}")
    endif()
endmacro()

function(kvmodel_check_requirements)
    if(NOT KVMODEL_MISSING_PACKAGES)
        return()
    endif()
    list(REMOVE_DUPLICATES KVMODEL_MISSING_DEBIAN_PACKAGES)
    list(JOIN KVMODEL_MISSING_PACKAGES ", " _what)
    list(JOIN KVMODEL_MISSING_DEBIAN_PACKAGES " " _debs)
    list(LENGTH KVMODEL_MISSING_PACKAGES _count)
    if(_count EQUAL 1)
        set(_it "it")
    else()
        set(_it "them")
    endif()
    # The leading space keeps CMake from re-wrapping the message: it stays one line.
    message(FATAL_ERROR " kvmodel: ${_what} not found — install ${_it} with: apt-get install ${_debs}")
endfunction()

# --- what the library itself needs (also re-found by kvmodelConfig.cmake) ---
kvmodel_require(Boost libboost-dev 1.70 CONFIG)  # Boost::headers (Container; the benchmarks also MultiIndex)
kvmodel_require(nlohmann_json nlohmann-json3-dev 3.9)
kvmodel_require(OpenSSL libssl-dev COMPONENTS Crypto)  # RIPEMD-160 key digests

# --- only for what this tree builds on top of the library ---
if(KVMODEL_BUILD_TESTS)
    kvmodel_require(Catch2 catch2 2.13)  # Catch2 v2 (single header <catch2/catch.hpp>)
endif()
if(KVMODEL_BUILD_BENCH)
    kvmodel_require(benchmark libbenchmark-dev)
endif()
if(KVMODEL_BUILD_TESTS OR KVMODEL_BUILD_BENCH)
    # Header-only msgpack, used to cross-check packed sizes. Newer releases
    # name the package msgpack-cxx (target msgpack-cxx); Debian 12's 4.x names
    # it msgpack (target msgpackc-cxx).
    find_package(msgpack-cxx CONFIG QUIET)
    if(NOT msgpack-cxx_FOUND)
        find_package(msgpack CONFIG QUIET)
        if(NOT msgpack_FOUND)
            list(APPEND KVMODEL_MISSING_PACKAGES msgpack-cxx)
            list(APPEND KVMODEL_MISSING_DEBIAN_PACKAGES libmsgpack-cxx-dev)
        endif()
    endif()
endif()
if(KVMODEL_BUILD_TESTS OR KVMODEL_BUILD_BENCH OR KVMODEL_BUILD_EXAMPLES OR KVMODEL_BUILD_TOOLS
   OR KVMODEL_BUILD_DOCS)
    set(THREADS_PREFER_PTHREAD_FLAG ON)
    find_package(Threads REQUIRED)
endif()

kvmodel_check_requirements()

# One name for msgpack whichever package provided it.
if(KVMODEL_BUILD_TESTS OR KVMODEL_BUILD_BENCH)
    if(NOT TARGET kvmodel_msgpack)
        add_library(kvmodel_msgpack INTERFACE)
        if(TARGET msgpack-cxx)
            target_link_libraries(kvmodel_msgpack INTERFACE msgpack-cxx)
        elseif(TARGET msgpackc-cxx)
            target_link_libraries(kvmodel_msgpack INTERFACE msgpackc-cxx)
        else()
            message(FATAL_ERROR " kvmodel: msgpack-cxx found but it defines no known target — install it with: apt-get install libmsgpack-cxx-dev")
        endif()
    endif()
endif()

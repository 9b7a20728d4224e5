# cmake/kvmodelAerospike.cmake
#
# kvmodel_find_aerospike([GLOBAL]) defines kvmodel::aerospike — kvmodel plus
# the official Aerospike C client, what <kvmodel/adapters/aerospike.hpp> needs —
# when the client's headers and library are found (hint: KVMODEL_AEROSPIKE_ROOT,
# AEROSPIKE_ROOT or CMAKE_PREFIX_PATH). Its users get KVMODEL_HAVE_AEROSPIKE=1. Otherwise it prints one STATUS line and defines nothing:
# everything else in kvmodel works without the client. Used by the build tree
# and by the installed kvmodelConfig.cmake.

include_guard(GLOBAL)

function(kvmodel_find_aerospike)
    if(TARGET kvmodel::aerospike)
        return()
    endif()
    # Hints: KVMODEL_AEROSPIKE_ROOT or AEROSPIKE_ROOT (CMake or environment
    # variables): an install prefix, or a client build's target/<platform> dir.
    # The static library is preferred: the shared one carries no rpath.
    find_path(KVMODEL_AEROSPIKE_INCLUDE_DIR aerospike/aerospike.h
              HINTS ${KVMODEL_AEROSPIKE_ROOT} ENV KVMODEL_AEROSPIKE_ROOT ${AEROSPIKE_ROOT} ENV AEROSPIKE_ROOT
              PATH_SUFFIXES include)
    find_library(KVMODEL_AEROSPIKE_LIBRARY NAMES libaerospike.a aerospike
                 HINTS ${KVMODEL_AEROSPIKE_ROOT} ENV KVMODEL_AEROSPIKE_ROOT ${AEROSPIKE_ROOT} ENV AEROSPIKE_ROOT
                 PATH_SUFFIXES lib lib64)
    mark_as_advanced(KVMODEL_AEROSPIKE_INCLUDE_DIR KVMODEL_AEROSPIKE_LIBRARY)
    if(NOT KVMODEL_AEROSPIKE_INCLUDE_DIR OR NOT KVMODEL_AEROSPIKE_LIBRARY)
        if(NOT KVMODEL_AEROSPIKE_REPORTED)
            message(STATUS "kvmodel: Aerospike C client not found — kvmodel::aerospike "
                           "(adapters/aerospike.hpp) is not available; everything else is")
            set(KVMODEL_AEROSPIKE_REPORTED TRUE CACHE INTERNAL "")
        endif()
        return()
    endif()
    set(_global "")
    if("GLOBAL" IN_LIST ARGN)
        set(_global GLOBAL)
    endif()
    if(NOT TARGET Threads::Threads)
        set(THREADS_PREFER_PTHREAD_FLAG ON)
        find_package(Threads REQUIRED)
    endif()
    # The client's own dependencies (its Makefile links ssl crypto z yaml pthread m).
    find_package(OpenSSL QUIET COMPONENTS SSL Crypto)
    find_package(ZLIB QUIET)
    find_library(KVMODEL_AEROSPIKE_YAML_LIBRARY NAMES yaml)
    mark_as_advanced(KVMODEL_AEROSPIKE_YAML_LIBRARY)
    if(NOT OpenSSL_FOUND OR NOT ZLIB_FOUND OR NOT KVMODEL_AEROSPIKE_YAML_LIBRARY)
        if(NOT KVMODEL_AEROSPIKE_REPORTED)
            message(STATUS "kvmodel: Aerospike C client found but its dependencies are not "
                           "(libssl-dev zlib1g-dev libyaml-dev) — kvmodel::aerospike is not available")
            set(KVMODEL_AEROSPIKE_REPORTED TRUE CACHE INTERNAL "")
        endif()
        return()
    endif()
    add_library(kvmodel::aerospike INTERFACE IMPORTED ${_global})
    set_target_properties(kvmodel::aerospike PROPERTIES
        INTERFACE_INCLUDE_DIRECTORIES "${KVMODEL_AEROSPIKE_INCLUDE_DIR}"
        INTERFACE_COMPILE_DEFINITIONS "KVMODEL_HAVE_AEROSPIKE=1"
        INTERFACE_LINK_LIBRARIES
            "kvmodel::kvmodel;${KVMODEL_AEROSPIKE_LIBRARY};OpenSSL::SSL;OpenSSL::Crypto;ZLIB::ZLIB;${KVMODEL_AEROSPIKE_YAML_LIBRARY};Threads::Threads;m;${CMAKE_DL_LIBS}")
    message(STATUS "kvmodel: Aerospike C client found: ${KVMODEL_AEROSPIKE_LIBRARY} — kvmodel::aerospike available")
endfunction()

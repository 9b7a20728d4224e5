# cmake/kvmodelAerospike.cmake
#
# kvmodel_find_aerospike([GLOBAL]) defines kvmodel::aerospike — kvmodel plus
# the official Aerospike C client, what <kvmodel/adapters/aerospike.hpp> needs —
# when the client's headers and library are found (hint: AEROSPIKE_ROOT or
# CMAKE_PREFIX_PATH). Otherwise it prints one STATUS line and defines nothing:
# everything else in kvmodel works without the client. Used by the build tree
# and by the installed kvmodelConfig.cmake.

include_guard(GLOBAL)

function(kvmodel_find_aerospike)
    if(TARGET kvmodel::aerospike)
        return()
    endif()
    find_path(KVMODEL_AEROSPIKE_INCLUDE_DIR aerospike/aerospike.h
              HINTS ${AEROSPIKE_ROOT} ENV AEROSPIKE_ROOT PATH_SUFFIXES include)
    find_library(KVMODEL_AEROSPIKE_LIBRARY NAMES aerospike
                 HINTS ${AEROSPIKE_ROOT} ENV AEROSPIKE_ROOT PATH_SUFFIXES lib lib64)
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
    add_library(kvmodel::aerospike INTERFACE IMPORTED ${_global})
    set_target_properties(kvmodel::aerospike PROPERTIES
        INTERFACE_INCLUDE_DIRECTORIES "${KVMODEL_AEROSPIKE_INCLUDE_DIR}"
        INTERFACE_LINK_LIBRARIES
            "kvmodel::kvmodel;${KVMODEL_AEROSPIKE_LIBRARY};Threads::Threads;${CMAKE_DL_LIBS}")
    message(STATUS "kvmodel: Aerospike C client found: ${KVMODEL_AEROSPIKE_LIBRARY} — kvmodel::aerospike available")
endfunction()

# cmake/kvmodelCompiled.cmake
#
# kvmodel_add_compiled() defines kvmodel::compiled: kvmodel with the CDT
# engine (cdt::apply, cdt::apply_bit_op, cdt::apply_hll_op) and sim::cluster's commands compiled
# once, in a static library, instead of in every translation unit that
# reaches them. A program links it in place of kvmodel::kvmodel:
#
#   target_link_libraries(app_tests PRIVATE kvmodel::compiled)
#
# Its users see KVMODEL_SEPARATE_COMPILATION (kvmodel/config.hpp): the headers
# then declare those functions instead of defining them. Results are the same;
# calls into the engine and the cluster are no longer inlined. The library is
# one generated .cpp (#include <kvmodel/src.hpp>) built in the user's own build
# tree, with the user's compiler and flags, and only when something links it
# (EXCLUDE_FROM_ALL): nothing compiled is installed, the package stays
# architecture independent. Used by the build tree (kvmodel's own tests, tools
# and examples link it) and by the installed kvmodelConfig.cmake.

include_guard(GLOBAL)

function(kvmodel_add_compiled)
    if(TARGET kvmodel_compiled)
        return()
    endif()
    set(source "${CMAKE_CURRENT_BINARY_DIR}/kvmodel_compiled.cpp")
    file(CONFIGURE OUTPUT "${source}" CONTENT "#include <kvmodel/src.hpp>\n")
    add_library(kvmodel_compiled STATIC EXCLUDE_FROM_ALL "${source}")
    add_library(kvmodel::compiled ALIAS kvmodel_compiled)
    target_compile_definitions(kvmodel_compiled PUBLIC KVMODEL_SEPARATE_COMPILATION)
    target_link_libraries(kvmodel_compiled PUBLIC kvmodel::kvmodel)
endfunction()

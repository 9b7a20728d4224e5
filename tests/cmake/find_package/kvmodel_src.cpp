// The one .cpp that compiles kvmodel's engine (KVMODEL_SEPARATE_COMPILATION).
#include <kvmodel/src.hpp>

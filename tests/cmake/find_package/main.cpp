// Uses kvmodel through find_package: the umbrella header and one value.
#include <kvmodel/kvmodel.hpp>

int main() {
    kvmodel::value v{42};
    return v.is_int() ? 0 : 1;
}

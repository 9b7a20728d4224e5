// Uses kvmodel through add_subdirectory: the umbrella header, and the CDT engine
// (a map put, then a read by key), so the consumer links whatever it needs.
#include <kvmodel/kvmodel.hpp>

#include <optional>
#include <string>

int main() {
    namespace cdt = kvmodel::cdt;
    std::optional<kvmodel::value> bin;
    auto put = cdt::apply(bin, cdt::map_ops::put(kvmodel::value{1}, kvmodel::value{std::string("one")}));
    auto got = cdt::apply(bin, cdt::map_ops::get_by_key(kvmodel::value{1}, cdt::return_type::value));
    return put && got && *got == kvmodel::value{std::string("one")} ? 0 : 1;
}

// tests/catch_main.cpp
//
// Catch2's main(), compiled once into kvmodel_catch_main and linked into every
// test executable. It installs kvmodel::throw_assertion_failure first, so a
// broken precondition (KVMODEL_ASSERT) throws kvmodel::assertion_failure
// instead of aborting and can be checked with REQUIRE_THROWS_AS.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <kvmodel/core/assert.hpp>

int main(int argc, char* argv[]) {
    kvmodel::set_assertion_handler(&kvmodel::throw_assertion_failure);
    return Catch::Session().run(argc, argv);
}

// tests/catch_main.cpp
//
// Catch2's main(), compiled once into kvmodel_catch_main and linked into every
// test executable. Tests build with KVMODEL_TESTING and KVMODEL_ASSERT_THROWS,
// so a broken precondition (KVMODEL_ASSERT) throws kvmodel::assertion_failure
// instead of aborting and can be checked with REQUIRE_THROWS_AS.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

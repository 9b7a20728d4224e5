// bench/compile_time/json_test.cpp — the yardstick: a typical test file of an
// app that uses nlohmann/json (Catch2, a few structs converted both ways,
// parsing, dumping, pointers, a merge). tools/compile_time.sh times it beside
// downstream_test.cpp.
#include <nlohmann/json.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace app_json_test {

using nlohmann::json;

struct address {
    std::string street;
    std::string city;
    int zip = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(address, street, city, zip)

struct person {
    std::string name;
    std::int64_t id = 0;
    double score = 0;
    std::vector<std::string> tags;
    std::map<std::string, int> counters;
    address home;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(person, name, id, score, tags, counters, home)

TEST_CASE("json: a struct round-trips", "[app][json]") {
    person p{"Ada", 7, 9.5, {"a", "b"}, {{"x", 1}, {"y", 2}}, {"Main St", "Springfield", 12345}};
    json j = p;
    CHECK(j["home"]["city"] == "Springfield");
    auto back = j.get<person>();
    CHECK(back.name == "Ada");
    CHECK(back.counters.at("y") == 2);
    CHECK(json::parse(j.dump()) == j);
    CHECK(json::parse(j.dump(2)) == j);
}

TEST_CASE("json: parsing, errors and pointers", "[app][json]") {
    auto j = json::parse(R"({"users": [{"name": "a", "age": 3}, {"name": "b", "age": 5}], "n": 2})");
    CHECK(j.at("/users/1/age"_json_pointer) == 5);
    CHECK(j["users"].size() == 2);
    int total = 0;
    for (const auto& u : j["users"]) total += u["age"].get<int>();
    CHECK(total == 8);
    CHECK_THROWS_AS(json::parse("{bad"), json::parse_error);
    CHECK_FALSE(json::accept("[1,"));
    CHECK(j.value("missing", 42) == 42);
    CHECK(j.contains("n"));
}

TEST_CASE("json: building and merging", "[app][json]") {
    json a = {{"x", 1}, {"y", {1, 2, 3}}, {"z", nullptr}};
    a["y"].push_back(4);
    a.merge_patch(json{{"z", "set"}});
    CHECK(a["z"] == "set");
    CHECK(a["y"].back() == 4);
    CHECK(a.find("absent") == a.end());
}

} // namespace app_json_test

// examples/scenarios/seed_scenarios.hpp
//
// Every seed scenario (see common.hpp).
#pragma once

#include "awards.hpp"
#include "conversation.hpp"
#include "events.hpp"
#include "pacman.hpp"
#include "world_records.hpp"

// The one place tests include Catch2 (v2, Debian) and RapidCheck's Catch glue.
#pragma once

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

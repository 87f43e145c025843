// The fixture backend fxr_good (tests/abi/fixtures/fixture_runtime.cpp) with fields put into its manifest,
// and what Runtime::create says of it: for the tests of the client's checks of a backend's manifest
// against the configuration (network keys, backend-specific [sandbox] keys).
#pragma once

#include <actionhost/client/runtime.hpp>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace actionhost::testing {

// A directory holding fxr_good whose manifest has the fields of `patch` (made once per patch per run).
std::string patched_fixture_dir(const nlohmann::json &patch);

// Runtime::create's RuntimeError text for fxr_good found in `dir`, with `set` applied to the
// configuration ("" when it created the runtime).
std::string create_error_in(const std::string &dir, const std::function<void(actionhost::client::Config &)> &set);

}  // namespace actionhost::testing

// A host core over the fixture modules only (tests/abi/fixtures, real .so modules loaded as any third
// party's), assembled as main.cpp assembles it, answering through the in-memory exchange the cli runtime
// uses. The install dir is a temporary directory: no plugin of the build is found, only the fixtures.
#pragma once

#include <unistd.h>

#include <actionhost/common/http/memory_exchange.hpp>
#include <actionhost/common/json_io.hpp>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/host_core.hpp"
#include "support/temp_dir.hpp"

namespace host_test {

struct FixtureHost {
    actionhost::testing::TempDir wd{"ahfixturehost"};
    std::unique_ptr<actionhost::host::HostCore> core;
    explicit FixtureHost(std::vector<std::string> plugins = {}, std::map<std::string, std::string> settings = {},
                         std::vector<std::string> flags = {}) {
        actionhost::host::Options o;
        o.port = 0;
        o.working_dir = wd.path();
        o.plugin_dirs = {AH_FIXTURE_DIR};
        o.plugins = std::move(plugins);
        o.settings = std::move(settings);
        o.plugin_flags = std::move(flags);
        core = std::make_unique<actionhost::host::HostCore>(actionhost::host::HostCoreSettings{
            o, wd.path(), static_cast<int>(getuid()), {}, [](actionhost::common::LogLevel, const std::string &) {}});
    }
    actionhost::common::http::ExchangeResponse request(const std::string &method, const std::string &path, const std::string &body = "",
                                                       std::vector<std::pair<std::string, std::string>> headers = {}) {
        return actionhost::common::http::exchange(
            [this](actionhost::common::http::Request &q, actionhost::common::http::Response &r) { core->handle(q, r); },
            {method, path, std::move(headers), body});
    }
    actionhost::common::http::ExchangeResponse act(const nlohmann::json &action) {
        return request("POST", "/execute_action", actionhost::common::dump_json(nlohmann::json{{"action", action}}));
    }
};

}  // namespace host_test

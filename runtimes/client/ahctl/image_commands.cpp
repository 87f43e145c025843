#include "image_commands.hpp"

#include "commands.hpp"
#include "progress.hpp"

#include <actionhost/client/errors.hpp>
#include <actionhost/client/images.hpp>
#include <actionhost/common/text.hpp>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <actionhost/common/json_write.hpp>

namespace ahctl {

using namespace actionhost::client;
using actionhost::common::printable_name;
using nlohmann::json;

int cmd_snapshot(const Options &o, OpenRuntime open) {
    if (o.args.size() != 1) throw UsageError("usage: ahctl -s SID snapshot NAME (see ahctl snapshot --help)");
    // A fresh sandbox has nothing of its own to keep: only a kept-alive one is snapshotted.
    if (!o.session) throw UsageError("snapshot needs a kept-alive sandbox: ahctl -s SID snapshot NAME");
    auto rt = open(o, false);
    const std::string digest = rt->snapshot(o.args[0]);
    rt->close();
    std::cout << digest << "\n";
    return kOk;
}

int cmd_images(const Options &o) {
    const auto images = list_images(load_config(o, current_environment()));
    if (o.json) {
        json out = json::array();
        for (const auto &i : images) out.push_back({{"name", i.name}, {"digest", i.digest}, {"created", i.created}});
        std::cout << actionhost::common::dump_json(out, 2) << "\n";
        return kOk;
    }
    std::printf("%-40s %-19s %s\n", "NAME", "DIGEST", "CREATED");
    for (const auto &i : images) {
        char when[32] = "-";
        const std::time_t t = static_cast<std::time_t>(i.created);
        if (std::tm tm{}; i.created > 0 && ::gmtime_r(&t, &tm) != nullptr) std::strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", &tm);
        std::printf("%-40s %-19s %s\n", printable_name(i.name).c_str(), printable_name(i.digest.substr(0, 19)).c_str(), when);
    }
    return kOk;
}

int cmd_push(const Options &o) {
    if (o.args.size() != 2) throw UsageError("usage: ahctl push NAME REGISTRY/PATH:TAG (see ahctl push --help)");
    auto progress = std::make_shared<Progress>("push", !o.quiet);
    std::string digest;
    try {
        digest = push_image(load_config(o, current_environment()), o.args[0], o.args[1],
                            [progress](const std::string &line) { progress->on_status("STATUS$UPLOADING", line); });
    } catch (...) {
        progress->finish();
        throw;
    }
    progress->finish();
    std::cout << digest << "\n";
    return kOk;
}

int cmd_rmi(const Options &o) {
    if (o.args.empty()) throw UsageError("rmi needs image names (ahctl images lists them)");
    const Config config = load_config(o, current_environment());
    int result = kOk;
    for (const auto &name : o.args) {
        try {
            const uint64_t freed = remove_image(config, name);
            std::cout << printable_name(name) << " (" << (freed + 500000) / 1000000 << " MB freed)\n";
        } catch (const RuntimeError &e) {
            std::cerr << "[ahctl] " << actionhost::common::printable_for_terminal(e.what()) << "\n";
            result = kActionFailed;
        }
    }
    return result;
}

}  // namespace ahctl

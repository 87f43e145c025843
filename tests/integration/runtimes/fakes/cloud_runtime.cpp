#include "cloud_runtime.hpp"

#include <cstdlib>

#include "support/host_process.hpp"

namespace cloud_fakes {

using namespace actionhost::client;
using actionhost::testing::TempDir;

std::string install_dir() {
    std::string d = actionhost::testing::build_path("");
    while (!d.empty() && d.back() == '/') d.pop_back();
    return d;
}

actionhost::testing::ProcessResult ahctl(const std::string &state_dir, const std::string &args) {
    using actionhost::testing::sh_word;
    return actionhost::testing::run_process(
        {"/bin/sh", "-c", sh_word(actionhost::testing::build_path("bin/ahctl")) + " --state-dir " + sh_word(state_dir) + " " + args + " 2>&1"}, 60);
}

std::unique_ptr<runtimes_test::StartedRuntime> make_cloud_runtime(const CloudRuntimeOptions &opt) {
    auto s = std::make_unique<runtimes_test::StartedRuntime>();
    s->workspace = std::make_unique<TempDir>("ahcloud-ws");
    s->state = std::make_unique<TempDir>("ahcloud-state");
    RuntimeOptions o;
    o.install_dir = install_dir();
    o.session_id = opt.session_id;
    o.config.set("core.runtime", opt.backend);
    o.config.set("core.workspace_base", s->workspace->path());
    o.config.set("core.workspace_mount_path_in_sandbox", s->workspace->path());
    o.config.set("core.state_dir", opt.state_dir.empty() ? s->state->path() : opt.state_dir);
    o.config.set("core.run_as_openhands", false);
    o.config.set("core.enable_browser", false);
    o.config.set(opt.backend + ".install_dir", install_dir());
    if (opt.tweak) opt.tweak(o.config);
    auto *raw = s.get();
    o.on_status = [raw](const std::string &st, const std::string &) { raw->statuses.push_back(st); };
    s->runtime = Runtime::create(std::move(o));
    s->workspace_inside = s->workspace->path();
    return s;
}

std::unique_ptr<runtimes_test::StartedRuntime> start_cloud_runtime(const CloudRuntimeOptions &o) {
    auto s = make_cloud_runtime(o);
    s->runtime->connect();
    return s;
}

ScopedEnv::ScopedEnv(std::string name, std::optional<std::string> value) : name_(std::move(name)) {
    if (const char *v = std::getenv(name_.c_str())) old_ = v;
    if (value) setenv(name_.c_str(), value->c_str(), 1);
    else unsetenv(name_.c_str());
}

ScopedEnv::~ScopedEnv() {
    if (old_) setenv(name_.c_str(), old_->c_str(), 1);
    else unsetenv(name_.c_str());
}

}  // namespace cloud_fakes

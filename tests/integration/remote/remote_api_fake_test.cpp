// The `remote` backend end to end against RemoteApiFake: a local Remote Runtime API that starts real
// hosts. Each test ends asserting the fake has no runtime and no process left.
#include <gtest/gtest.h>

#include <actionhost/client/errors.hpp>
#include <algorithm>
#include <filesystem>

#include "support/cloud_fakes/remote_api_fake.hpp"
#include "runtime_harness.hpp"
#include "support/host_process.hpp"

using namespace runtimes_test;
using namespace actionhost::client;
using actionhost::testing::RemoteApiFake;
using nlohmann::json;

namespace {

const char *kImage = "registry.fake.test/acme/actionhost:test";

std::string install_dir() {
    std::string d = actionhost::testing::build_path("");
    if (!d.empty() && d.back() == '/') d.pop_back();
    return d;
}

// The configuration every test starts from: the fake's URL and key, a seeded image, the workspace at the
// same path inside as outside (the fake's sandboxes share this machine's filesystem), short retry waits.
std::function<void(Config &)> remote_config(RemoteApiFake &fake, const std::function<void(Config &)> &more = {}) {
    return [&fake, more](Config &c) {
        c.set("sandbox.remote_runtime_api_url", fake.url());
        c.set("sandbox.api_key", fake.api_key());
        c.set("sandbox.runtime_container_image", kImage);
        c.set("core.workspace_mount_path_in_sandbox", c.get_string("core.workspace_base"));
        c.set("remote.retry_min_wait_s", 0.05);
        c.set("remote.retry_max_wait_s", 0.2);
        if (more) more(c);
    };
}

int count_calls(const RemoteApiFake &fake, const std::string &prefix) {
    auto calls = fake.calls();
    return static_cast<int>(std::count_if(calls.begin(), calls.end(), [&](const std::string &c) { return c.rfind(prefix, 0) == 0; }));
}

void expect_nothing_left(RemoteApiFake &fake) {
    EXPECT_EQ(fake.live_runtimes(), 0) << fake.runtimes().dump();
    EXPECT_EQ(fake.running_processes(), 0);
}

// A second client of an existing session.
std::unique_ptr<Runtime> client_of(RemoteApiFake &fake, const StartedRuntime &first, const std::function<void(Config &)> &more = {}) {
    RuntimeOptions o;
    o.install_dir = install_dir();
    o.session_id = first.runtime->session_id();
    o.config.set("core.runtime", "remote");
    o.config.set("core.workspace_base", first.workspace->path());
    o.config.set("core.state_dir", first.state->path());
    o.config.set("core.run_as_openhands", false);
    o.config.set("core.enable_browser", false);
    remote_config(fake, more)(o.config);
    auto rt = Runtime::create(std::move(o));
    rt->connect();
    return rt;
}

std::string connect_error(RemoteApiFake &fake, const std::function<void(Config &)> &more) {
    try {
        auto s = start_runtime("remote", remote_config(fake, more));
    } catch (const std::exception &e) {
        return e.what();
    }
    return "(connected)";
}

}  // namespace

TEST(RemoteApiFake, ConformanceSet) {
    RemoteApiFake fake;
    fake.add_image(kImage, install_dir());
    auto s = start_runtime("remote", remote_config(fake));
    check_bash(*s);
    check_read_write(*s);
    check_edit(*s);
    check_upload_download(*s);
    EXPECT_EQ(s->statuses.front(), "STATUS$STARTING_RUNTIME");
    EXPECT_EQ(s->statuses.back(), "STATUS$READY");

    // The /start request as OpenHands' RemoteRuntime sends it, and the session key the API issued used on the
    // wire.
    json start = fake.last_start_request();
    EXPECT_EQ(start["command"][0], "/openhands/actionhost/bin/actionhost");
    EXPECT_EQ(start["command"][1], "60000");
    EXPECT_EQ(start["session_id"], s->runtime->session_id());
    EXPECT_EQ(start["resource_factor"], 1);
    EXPECT_FALSE(start.contains("runtime_class"));
    EXPECT_FALSE(start["environment"].contains("SESSION_API_KEY"));
    json rt = fake.runtimes()[0];
    EXPECT_EQ(s->runtime->runtime_id(), rt["runtime_id"]);
    EXPECT_EQ(s->runtime->url(), rt["url"]);
    int proxied = 0;
    for (const auto &r : fake.requests()) {
        if (r.path.rfind("/" + rt["runtime_id"].get<std::string>() + "/", 0) != 0) continue;
        if (r.path.size() > 6 && r.path.substr(r.path.size() - 6) == "/alive") continue;  // /alive needs no key
        ++proxied;
        EXPECT_EQ(r.header("x-session-api-key"), rt["session_api_key"].get<std::string>()) << r.path;
    }
    EXPECT_GT(proxied, 5);
    EXPECT_EQ(fake.unauthorized_calls(), 0);
    for (const auto &r : fake.requests())
        if (r.path.rfind("/rt-", 0) != 0) {
            EXPECT_EQ(r.header("x-api-key"), fake.api_key()) << r.path;
        }
    // pod_status walked pending → ... → ready.
    EXPECT_GE(count_calls(fake, "GET /runtime/"), 2);

    s->runtime->close();
    EXPECT_EQ(s->runtime->last_status(), "STATUS$STOPPED");
    EXPECT_EQ(count_calls(fake, "POST /stop"), 1);
    expect_nothing_left(fake);
}

TEST(RemoteApiFake, ResourceFactorAndRuntimeClass) {
    RemoteApiFake fake;
    fake.add_image(kImage, install_dir());
    auto s = start_runtime("remote", remote_config(fake, [](Config &c) {
                               c.set("sandbox.remote_runtime_resource_factor", 4);
                               c.set("sandbox.remote_runtime_class", "sysbox");
                               c.set("core.debug", true);
                           }));
    json start = fake.last_start_request();
    EXPECT_EQ(start["resource_factor"], 4);
    EXPECT_EQ(start["runtime_class"], "sysbox-runc");
    EXPECT_EQ(start["environment"]["DEBUG"], "true");
    EXPECT_EQ(run(*s->runtime, "echo ok").value("content", ""), "ok");
    s->runtime->close();
    // 3 is not a resource factor: refused before anything starts.
    std::string error = connect_error(fake, [](Config &c) { c.set("sandbox.remote_runtime_resource_factor", 3); });
    EXPECT_NE(error.find("remote_runtime_resource_factor must be 1, 2, 4 or 8"), std::string::npos) << error;
    EXPECT_EQ(count_calls(fake, "POST /start"), 1);
    expect_nothing_left(fake);
}

TEST(RemoteApiFake, KeepAliveReusesRunningAndResumesPaused) {
    RemoteApiFake fake;
    fake.add_image(kImage, install_dir());
    auto keep = [](bool pause_on_close) {
        return [pause_on_close](Config &c) {
            c.set("sandbox.keep_runtime_alive", true);
            c.set("sandbox.pause_closed_runtimes", pause_on_close);
        };
    };
    auto first = start_runtime("remote", remote_config(fake, keep(false)));
    EXPECT_EQ(run(*first->runtime, "echo kept > k.txt && echo done").value("content", ""), "done");
    std::string id = first->runtime->runtime_id();
    first->runtime->close();  // kept running, not paused
    EXPECT_EQ(fake.runtimes()[0]["status"], "running");

    // Same session: GET /sessions/{sid} says running → reused, no second /start.
    auto second = client_of(fake, *first, keep(true));
    EXPECT_EQ(second->runtime_id(), id);
    EXPECT_EQ(count_calls(fake, "POST /start"), 1);
    EXPECT_EQ(run(*second, "cat k.txt").value("content", ""), "kept");
    second->close();  // keep_runtime_alive + pause_closed_runtimes → /pause
    EXPECT_EQ(fake.runtimes()[0]["status"], "paused");

    // Paused → /resume, and the workspace and the shell state are still there.
    auto third = client_of(fake, *first);
    EXPECT_EQ(third->runtime_id(), id);
    EXPECT_EQ(count_calls(fake, "POST /resume"), 1);
    EXPECT_EQ(run(*third, "cat k.txt").value("content", ""), "kept");
    third->pause();
    EXPECT_EQ(fake.runtimes()[0]["status"], "paused");
    third->resume();
    EXPECT_EQ(fake.runtimes()[0]["status"], "running");
    EXPECT_EQ(run(*third, "echo back").value("content", ""), "back");
    third->close();  // not kept: /stop
    EXPECT_EQ(count_calls(fake, "POST /start"), 1);
    expect_nothing_left(fake);
}

TEST(RemoteApiFake, SandboxErrors503ResumesWhenKeptAlive) {
    RemoteApiFake fake;
    fake.add_image(kImage, install_dir());
    auto s = start_runtime("remote", remote_config(fake, [](Config &c) { c.set("sandbox.keep_runtime_alive", true); }));
    s->runtime->pause();
    // The paused sandbox answers 503; the backend resumes it and the action is retried once.
    json obs = run(*s->runtime, "echo after-503");
    EXPECT_EQ(obs.value("content", ""), "after-503") << obs.dump();
    EXPECT_EQ(count_calls(fake, "POST /resume"), 1);
    s->runtime->close();  // kept + pause_closed_runtimes (default true) → paused
    EXPECT_EQ(fake.runtimes()[0]["status"], "paused");
    auto last = client_of(fake, *s, [](Config &c) { c.set("sandbox.keep_runtime_alive", false); });
    last->close();
    expect_nothing_left(fake);
}

TEST(RemoteApiFake, SandboxErrorsDisconnect) {
    RemoteApiFake fake;
    fake.add_image(kImage, install_dir());
    auto s = start_runtime("remote", remote_config(fake));
    for (int status : {404, 502, 504}) {
        fake.sandbox_fail_next(status);
        try {
            run(*s->runtime, "echo x");
            ADD_FAILURE() << status << " did not disconnect";
        } catch (const RuntimeDisconnected &e) {
            EXPECT_EQ(e.status(), status);
            EXPECT_NE(std::string(e.what()).find("HTTP " + std::to_string(status)), std::string::npos) << e.what();
        }
        EXPECT_EQ(s->runtime->last_status(), "STATUS$ERROR_RUNTIME_DISCONNECTED");
        EXPECT_EQ(run(*s->runtime, "echo fine").value("content", ""), "fine");  // one failure, then served again
    }
    // 503 without keep_runtime_alive: disconnected, nothing resumed.
    s->runtime->pause();
    EXPECT_THROW(run(*s->runtime, "echo x"), RuntimeDisconnected);
    EXPECT_EQ(count_calls(fake, "POST /resume"), 0);
    // Another status (e.g. 500 from the host itself) is reported as it is, not as a disconnect.
    s->runtime->resume();
    fake.sandbox_fail_next(500);
    try {
        run(*s->runtime, "echo x");
        ADD_FAILURE() << "500 did not fail";
    } catch (const RuntimeDisconnected &) {
        ADD_FAILURE() << "500 is not a disconnect";
    } catch (const WireError &e) {
        EXPECT_EQ(e.status(), 500);
    }
    s->runtime->close();
    expect_nothing_left(fake);
}

TEST(RemoteApiFake, MissingCredentialsAndBadUrls) {
    RemoteApiFake fake;
    fake.add_image(kImage, install_dir());
    std::string e = connect_error(fake, [](Config &c) { c.set("sandbox.api_key", ""); });
    EXPECT_NE(e.find("needs an API key"), std::string::npos) << e;
    EXPECT_NE(e.find("SANDBOX_API_KEY"), std::string::npos) << e;
    EXPECT_TRUE(fake.calls().empty());

    e = connect_error(fake, [](Config &c) { c.set("sandbox.api_key", "wrong-key"); });
    EXPECT_NE(e.find("HTTP 401"), std::string::npos) << e;
    EXPECT_NE(e.find("X-API-Key"), std::string::npos) << e;

    e = connect_error(fake, [](Config &c) { c.set("sandbox.remote_runtime_api_url", "ftp://example.invalid"); });
    EXPECT_NE(e.find("remote_runtime_api_url"), std::string::npos) << e;
    EXPECT_NE(e.find("unsupported URL"), std::string::npos) << e;

    // Nothing listens there: network errors are retried 3 times, then a clear error.
    e = connect_error(fake, [](Config &c) { c.set("sandbox.remote_runtime_api_url", "http://127.0.0.1:1"); });
    EXPECT_NE(e.find("unreachable (3 attempt(s))"), std::string::npos) << e;
    e = connect_error(fake, [](Config &c) {
        c.set("sandbox.remote_runtime_api_url", "http://127.0.0.1:1");
        c.set("sandbox.remote_runtime_enable_retries", false);
    });
    EXPECT_NE(e.find("unreachable (1 attempt(s))"), std::string::npos) << e;

    // An API that does not answer within remote_runtime_api_timeout: each attempt times out, then a clear error.
    fake.stall_next("GET /sessions/", 2.5, 3);
    e = connect_error(fake, [](Config &c) { c.set("sandbox.remote_runtime_api_timeout", 1); });
    EXPECT_NE(e.find("unreachable (3 attempt(s))"), std::string::npos) << e;
    EXPECT_NE(e.find("imed out"), std::string::npos) << e;
    EXPECT_EQ(count_calls(fake, "POST /start"), 0);
    expect_nothing_left(fake);
}

TEST(RemoteApiFake, ProviderErrors) {
    RemoteApiFake fake;
    fake.add_image(kImage, install_dir());
    // 429 twice, then served: retried (OpenHands: 3 attempts).
    fake.fail_next("POST /start", 429, 2);
    {
        auto s = start_runtime("remote", remote_config(fake));
        EXPECT_EQ(run(*s->runtime, "echo ok").value("content", ""), "ok");
    }
    EXPECT_EQ(count_calls(fake, "POST /start"), 3);
    expect_nothing_left(fake);  // the Runtime's destructor closed it

    fake.fail_next("POST /start", 429, 3);
    std::string e = connect_error(fake, {});
    EXPECT_NE(e.find("429"), std::string::npos) << e;

    fake.fail_next("POST /start", 500, 1, "");
    e = connect_error(fake, {});
    EXPECT_NE(e.find("HTTP 500: injected failure 500"), std::string::npos) << e;

    fake.fail_next("GET /sessions/", 503, 1, "<html>upstream down</html>");
    e = connect_error(fake, {});
    EXPECT_NE(e.find("HTTP 503"), std::string::npos) << e;
    EXPECT_NE(e.find("upstream down"), std::string::npos) << e;

    fake.fail_next("GET /sessions/", 200, 1, "not json at all");
    e = connect_error(fake, {});
    EXPECT_NE(e.find("not JSON"), std::string::npos) << e;

    e = connect_error(fake, [](Config &c) { c.set("sandbox.runtime_container_image", "registry.fake.test/none:1"); });
    EXPECT_NE(e.find("does not exist"), std::string::npos) << e;
    expect_nothing_left(fake);
}

TEST(RemoteApiFake, FatalPodStatusAndTimeoutLeaveNothing) {
    RemoteApiFake fake;
    fake.add_image(kImage, install_dir());
    fake.force_pod_status("crashloopbackoff");
    std::string e = connect_error(fake, {});
    EXPECT_NE(e.find("pod_status crashloopbackoff"), std::string::npos) << e;
    EXPECT_NE(e.find("restart_count 3"), std::string::npos) << e;
    EXPECT_EQ(count_calls(fake, "POST /stop"), 1);
    expect_nothing_left(fake);

    fake.force_pod_status("pending");  // never ready
    e = connect_error(fake, [](Config &c) { c.set("sandbox.remote_runtime_init_timeout", 2); });
    EXPECT_NE(e.find("not ready within 2 s"), std::string::npos) << e;
    EXPECT_EQ(count_calls(fake, "POST /stop"), 2);
    expect_nothing_left(fake);
}

namespace {

using actionhost::testing::TempDir;

// An install tree whose bundle files are symlinks into the build tree's bundle: the build context (a
// tar.gz that keeps symlinks as such) stays a few kilobytes instead of the ~40 MB of the bundle, which
// keeps this test fast on a loaded machine. Everything else of the build path is real: multipart,
// base64, tar.gz, Dockerfile COPY, tags, polling, and the host started from the image's copy of the
// bundle, through the bundle's own loader.
class LinkedInstall {
  public:
    LinkedInstall() : dir_("ahremote-install") {
        namespace fs = std::filesystem;
        std::string build = install_dir();
        fs::create_directories(dir_ / "lib/actionhost");
        fs::create_symlink(build + "/lib/actionhost/runtimes", dir_ / "lib/actionhost/runtimes");
        for (const char *part : {"dist/actionhost", "dist/micromamba"}) {
            fs::create_directories(dir_ / part);
            for (const auto &e : fs::recursive_directory_iterator(build + "/" + part)) {
                fs::path rel = e.path().lexically_relative(build);  // fs::relative would follow the shim's link
                if (e.is_directory() && !e.is_symlink()) fs::create_directories(dir_ / rel.string());
                else if (e.is_symlink()) fs::copy_symlink(e.path(), dir_ / rel.string());
                else fs::create_symlink(e.path(), dir_ / rel.string());
            }
        }
    }
    const std::string &path() const { return dir_.path(); }

  private:
    TempDir dir_;
};

std::unique_ptr<StartedRuntime> start_from(const LinkedInstall &install, RemoteApiFake &fake, const std::function<void(Config &)> &more) {
    auto s = std::make_unique<StartedRuntime>();
    s->workspace = std::make_unique<TempDir>("ahrt-ws");
    s->state = std::make_unique<TempDir>("ahrt-state");
    RuntimeOptions o;
    o.install_dir = install.path();
    o.config.set("core.runtime", "remote");
    o.config.set("core.workspace_base", s->workspace->path());
    o.config.set("core.state_dir", s->state->path());
    o.config.set("core.run_as_openhands", false);
    o.config.set("core.enable_browser", false);
    remote_config(fake, more)(o.config);
    StartedRuntime *raw = s.get();
    o.on_status = [raw](const std::string &st, const std::string &) { raw->statuses.push_back(st); };
    s->runtime = Runtime::create(std::move(o));
    s->runtime->connect();
    s->workspace_inside = s->workspace->path();
    return s;
}

}  // namespace

TEST(RemoteApiFake, BuildsTheImageWhenNoneIsGiven) {
    RemoteApiFake fake;
    LinkedInstall install;
    fake.set_build_polls(2);
    auto no_image = [](Config &c) {
        c.set("sandbox.runtime_container_image", "");
        c.set("sandbox.base_container_image", "debian:12");
        c.set("remote.build_poll_interval_s", 0.1);
    };
    auto s = start_from(install, fake, no_image);
    ASSERT_EQ(fake.built_images().size(), 1u);
    std::string tag = fake.built_images()[0];
    EXPECT_EQ(tag.rfind("registry.fake.test/acme/runtime:ah_v0_1_0_", 0), 0u) << tag;
    EXPECT_EQ(fake.last_start_request()["image"], tag);
    EXPECT_EQ(count_calls(fake, "GET /registry_prefix"), 1);
    EXPECT_EQ(count_calls(fake, "GET /image_exists"), 2);  // before (no) and after (yes) the build
    EXPECT_EQ(count_calls(fake, "GET /build_status"), 3);
    EXPECT_NE(std::find(s->statuses.begin(), s->statuses.end(), "STATUS$BUILDING_RUNTIME"), s->statuses.end());
    check_bash(*s);  // the host runs from the image's own copy
    s->runtime->close();

    // The same files again: the image exists, no second build.
    auto again = start_from(install, fake, no_image);
    EXPECT_EQ(count_calls(fake, "POST /build"), 1);
    again->runtime->close();

    fake.fail_builds("no space left on device");
    std::string e;
    try {
        start_from(install, fake, [&](Config &c) {
            no_image(c);
            c.set("sandbox.force_rebuild_runtime", true);
        });
    } catch (const std::exception &x) {
        e = x.what();
    }
    EXPECT_NE(e.find("ended with FAILURE: no space left on device"), std::string::npos) << e;
    expect_nothing_left(fake);
}

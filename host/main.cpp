// actionhost: the OpenHands action-execution server, as a plugin host.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <actionhost/abi.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "cli/options.hpp"
#include "core/host_core.hpp"
#include "policy/policy_worker.hpp"
#include "modules/isolated_plugin.hpp"
#include <actionhost/modules/registry.hpp>
#include "sys/orphan_reaper.hpp"
#include "sys/user_init.hpp"
#include "viewer/file_viewer_server.hpp"

#include <actionhost/common/http/server.hpp>
#include <actionhost/common/user_entry.hpp>
#include <actionhost/common/json_write.hpp>

#ifndef ACTIONHOST_VERSION
#define ACTIONHOST_VERSION "0.0.0"
#endif

using namespace actionhost::host;
namespace modules = actionhost::modules;

extern char **environ;

namespace {

int g_signal_pipe[2] = {-1, -1};

void on_stop_signal(int sig) {
    const char c = static_cast<char>(sig);
    (void)!::write(g_signal_pipe[1], &c, 1);
}
// A handler rather than SIG_IGN: ignored dispositions are inherited across exec, and the shells and
// kernels we start must see SIGPIPE as usual. A handled one is reset to default on exec.
void on_sigpipe(int) {}

void install_signal_handlers() {
    if (::pipe(g_signal_pipe) != 0) std::perror("pipe");
    struct sigaction sa{};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGHUP, &sa, nullptr);
    sa.sa_handler = on_sigpipe;
    sigaction(SIGPIPE, &sa, nullptr);
    // A write past RLIMIT_FSIZE must fail with EFBIG (an error observation), not kill the host.
    sigaction(SIGXFSZ, &sa, nullptr);
}

std::string install_dir_of_self() {
    std::error_code ec;
    auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) return ".";
    return exe.parent_path().parent_path().string();
}

// OpenHands' file viewer, started before the API serves; ACTIONHOST_FILE_VIEWER=0 turns it off,
// ACTIONHOST_FILE_VIEWER_URL_FILE moves /tmp/oh-server-url (tests keep theirs private). The URL file is the
// session user's alone: it holds the viewer's capability.
std::unique_ptr<FileViewerServer> start_file_viewer(HostEnvironment &env, int port, const std::string &key, int user_id) {
    const char *enabled = env.config_get("ACTIONHOST_FILE_VIEWER");
    if (enabled != nullptr && std::string(enabled) == "0") return nullptr;
    const char *url_file = env.config_get("ACTIONHOST_FILE_VIEWER_URL_FILE");
    FileViewerSettings settings;
    settings.main_port = port;
    settings.url_file = url_file ? url_file : "/tmp/oh-server-url";
    settings.session_api_key = key;
    if (::geteuid() == 0 && user_id > 0) {
        settings.url_file_uid = static_cast<uid_t>(user_id);
        const std::optional<actionhost::common::UserEntry> user = actionhost::common::user_by_uid(static_cast<uid_t>(user_id));
        settings.url_file_gid = user ? user->gid : static_cast<gid_t>(user_id);
    }
    settings.log = [&env](const std::string &m) { env.log(AH_LOG_INFO, "viewer", m); };
    return std::make_unique<FileViewerServer>(settings);
}

// Takes `name` out of this process's environment before anything is started: every child (shells,
// kernels, the browser, editors) would inherit it, and the agent's user may read its own processes'
// /proc/PID/environ. The bytes of its value in the initial environment block, which /proc/PID/environ of
// this process shows whatever environ points to later, are overwritten as well.
std::optional<std::string> take_from_environment(const char *name) {
    const size_t len = std::strlen(name);
    std::optional<std::string> value;
    for (char **e = environ; e != nullptr && *e != nullptr; ++e) {
        if (std::strncmp(*e, name, len) != 0 || (*e)[len] != '=') continue;
        char *v = *e + len + 1;
        if (!value) value = std::string(v);
        std::memset(v, 0, std::strlen(v));
    }
    ::unsetenv(name);
    return value;
}

int fail(const std::string &msg, int code = 1) {
    std::cerr << "actionhost: error: " << msg << "\n";
    return code;
}

}  // namespace

// The audit channel's descriptor (ACTIONHOST_AUDIT_FD, set by the sandbox's supervisor), taken out of
// the environment so no child sees the variable; -1 without one, or when it is not a socket.
int take_audit_fd() {
    const std::optional<std::string> text = take_from_environment("ACTIONHOST_AUDIT_FD");
    if (!text) return -1;
    char *end = nullptr;
    const long fd = std::strtol(text->c_str(), &end, 10);
    struct stat st{};
    if (end == text->c_str() || *end != '\0' || fd < 3 || fd > 65535 || ::fstat(static_cast<int>(fd), &st) != 0 || !S_ISSOCK(st.st_mode)) {
        std::cerr << "actionhost: warning: ACTIONHOST_AUDIT_FD=" << *text << " is not an inherited socket; no audit trail is kept\n";
        return -1;
    }
    ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
    return static_cast<int>(fd);
}

int main(int argc, char **argv) {
    // The policy worker (policy/policy_worker.hpp) is this executable started by the host itself.
    if (argc == 3 && std::strcmp(argv[1], "--policy-worker") == 0) return run_policy_worker(std::atoi(argv[2]));
    // So is the worker of an isolated plugin (modules/isolated_plugin.hpp).
    if (argc == 3 && std::strcmp(argv[1], "--plugin-worker") == 0) return run_plugin_worker(std::atoi(argv[2]));
    const auto t0 = std::chrono::steady_clock::now();
    auto parsed = parse_options(std::vector<std::string>(argv + 1, argv + argc));
    if (!parsed) {
        std::cerr << "actionhost: error: " << parsed.error().message << "\n\n" << usage_text();
        return 2;
    }
    Options opt = parsed.value();
    // The session key is kept in the settings only (a --set SESSION_API_KEY=... wins, as any --set does).
    if (std::optional<std::string> key = take_from_environment("SESSION_API_KEY"); key && !opt.settings.count("SESSION_API_KEY"))
        opt.settings["SESSION_API_KEY"] = *key;
    const std::string install_dir = install_dir_of_self();
    if (opt.help || opt.list_plugins) {
        modules::ModuleRegistry registry;
        registry.scan(modules::module_search_path(install_dir, "plugins", opt.plugin_dirs), modules::ModuleKind::Plugin);
        std::vector<const modules::Manifest *> found;
        for (const auto &m : registry.modules()) found.push_back(&m);
        std::cout << (opt.help ? usage_text(found) : actionhost::common::dump_json(registry.to_json(), 2) + "\n");
        return 0;
    }
    if (opt.version) {
        std::cout << "actionhost " << ACTIONHOST_VERSION << " (C ABI " << AH_ABI_VERSION_MAJOR << "."
                  << AH_ABI_VERSION_MINOR << "." << AH_ABI_VERSION_PATCH << ")\n";
        return 0;
    }
    if (opt.working_dir.empty()) opt.working_dir = std::filesystem::current_path().string();
    const int audit_fd = take_audit_fd();
    std::unique_ptr<HostCore> core;
    try {
        // Manifests and options first: a bad command line must fail before any user is created.
        HostCoreSettings settings{opt, install_dir, opt.user_id, {}, {}};
        settings.audit_fd = audit_fd;
        core = std::make_unique<HostCore>(std::move(settings));
    } catch (const std::invalid_argument &e) {
        return fail(e.what(), 2);
    }
    auto user_init = init_user_and_working_dir(opt.username, opt.user_id, opt.working_dir);
    if (!user_init) return fail(user_init.error().message);
    const UserInit &user = user_init.value();
    // With an audit trail, nothing else inside may reach the host's descriptors or memory: non-dumpable,
    // /proc/<pid>/fd, mem and ptrace need CAP_SYS_PTRACE in the sandbox's user namespace, which no
    // process of the sandbox has (docs/security.md, "The audit trail"). After the user set-up, as any
    // change of credentials resets it.
    if (audit_fd >= 0 && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
        return fail(std::string("cannot make the host non-dumpable: ") + std::strerror(errno));
    HostEnvironment &env = core->env();
    core->enable_terminals();
    env.set_user_id(user.user_id);  // an existing user's uid wins, as in OpenHands

    install_signal_handlers();
    OrphanReaper reaper;  // PID 1 (a container without an init) or ACTIONHOST_CHILD_SUBREAPER=1
    if (!user.note.empty()) env.log(AH_LOG_INFO, "host", user.note);
    const char *subreaper = env.config_get("ACTIONHOST_CHILD_SUBREAPER");
    if (reaper.start(subreaper != nullptr && std::string(subreaper) == "1"))
        env.log(AH_LOG_INFO, "host", "reaping orphaned processes (pid " + std::to_string(::getpid()) + ")");

    // Plugins start while the listeners are set up: the first shell's start (spawn, rcfile, first prompt)
    // is most of a host's start, and nothing is served until both are done.
    std::string load_error;
    std::thread loader([&] {
        if (auto loaded = core->load_start_plugins(); !loaded) load_error = loaded.error().message;
    });
    const std::string &session_key = core->session_api_key();
    if (session_key.empty())
        env.log(AH_LOG_WARNING, "host",
                "WARNING: no SESSION_API_KEY is set: anyone who can reach " + opt.bind_host + ":" + std::to_string(opt.port) +
                    " can run commands as this host's user. Set SESSION_API_KEY to a random secret.");
    std::unique_ptr<actionhost::common::http::Server> server;
    std::unique_ptr<FileViewerServer> viewer;
    int port = 0;
    std::string listen_error;
    try {
        actionhost::common::http::ServerSettings settings;
        settings.name = "http";
        settings.log = [&env](const std::string &m) { env.log(AH_LOG_WARNING, "http", m); };
        // The health check is answered by the event loop itself: microseconds faster, and answered even
        // while every handler thread runs an action.
        settings.quick_answer = [](std::string_view method, std::string_view target) -> std::optional<actionhost::common::http::QuickAnswer> {
            if (method == "GET" && target == "/alive") return actionhost::host::alive_answer();
            return std::nullopt;
        };
        server = std::make_unique<actionhost::common::http::Server>(
            opt.bind_host, static_cast<uint16_t>(opt.port),
            [c = core.get()](actionhost::common::http::Request &req, actionhost::common::http::Response &resp) { c->handle(req, resp); },
            settings);
        port = server->port();
        viewer = start_file_viewer(env, port, session_key, user.user_id);
    } catch (const std::exception &e) {
        listen_error = e.what();
    }
    loader.join();
    if (!load_error.empty() || !listen_error.empty()) {
        viewer.reset();
        core->shutdown();
        return fail(load_error.empty() ? listen_error : load_error);
    }
    server->start();
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::string plugin_list;
    for (const auto &p : core->start_plugins()) plugin_list += (plugin_list.empty() ? "" : " ") + p;
    env.log(AH_LOG_INFO, "host", "actionhost " ACTIONHOST_VERSION " serving on " + opt.bind_host + ":" + std::to_string(port) +
                                     " (plugins: " + plugin_list + "; ready in " + std::to_string(static_cast<int>(ms)) + " ms)");
    if (!opt.port_file.empty()) {
        const std::string tmp = opt.port_file + ".tmp";
        std::ofstream(tmp) << port << "\n";
        std::filesystem::rename(tmp, opt.port_file);
    }

    char sig = 0;
    while (::read(g_signal_pipe[0], &sig, 1) < 0 && errno == EINTR) {
    }
    env.log(AH_LOG_INFO, "host", "stopping on signal " + std::to_string(static_cast<int>(sig)));
    server->stop_accepting();
    viewer.reset();
    if (const size_t abandoned = core->shutdown(); abandoned > 0) {
        // A plugin call that never returned holds a worker thread inside the plugin: destroying anything
        // now (the plugin, the server that would join that thread, static objects) could crash under it.
        env.log(AH_LOG_WARNING, "host", "exiting with " + std::to_string(abandoned) + " plugin call(s) still running");
        ::_exit(0);
    }
    server->stop();
    return 0;
}

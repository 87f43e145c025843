#include "support/host_process.hpp"
#include "support/sanitizers.hpp"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

extern char **environ;

namespace actionhost::testing {

std::string build_path(const std::string &relative) { return std::string(AH_BUILD_DIR) + "/" + relative; }
std::string source_path(const std::string &relative) { return std::string(AH_SOURCE_DIR) + "/" + relative; }

HostProcess::HostProcess(HostOptions o) : api_key_(o.api_key) {
    temp_ = std::make_unique<TempDir>("ahhost");
    working_dir_ = o.working_dir.empty() ? temp_->path() + "/workspace" : o.working_dir;
    std::filesystem::create_directories(working_dir_);
    log_path_ = temp_->path() + "/host.log";
    const std::string port_file = temp_->path() + "/port";

    std::vector<std::string> argv = {build_path("bin/actionhost"), "0", "--host", "127.0.0.1", "--port-file",
                                     port_file, "--working-dir", working_dir_};
    if (o.as_current_user) {
        const passwd *pw = getpwuid(getuid());
        argv.insert(argv.end(), {"--username", pw ? pw->pw_name : "root", "--user-id", std::to_string(getuid())});
    }
    argv.insert(argv.end(), o.args.begin(), o.args.end());

    std::map<std::string, std::string> env;
    for (char **e = environ; *e; ++e) {
        const char *eq = std::strchr(*e, '=');
        if (eq) env[std::string(*e, static_cast<size_t>(eq - *e))] = eq + 1;
    }
    env.erase("SESSION_API_KEY");
    // A private home: the host's shell reads ~/.bashrc, and a test must not depend on (or be stalled
    // by) what the machine's own user start-up files do — this image's root runs `pyenv init`, whose
    // rehash lock, left behind by a killed shell, stalls every later root shell for a minute.
    env["HOME"] = temp_->path() + "/home";
    std::filesystem::create_directories(env["HOME"]);
    // The file viewer's URL file, private too (hosts of parallel tests would share /tmp/oh-server-url).
    env["ACTIONHOST_FILE_VIEWER_URL_FILE"] = temp_->path() + "/oh-server-url";
    for (const auto &[k, v] : o.env) env[k] = v;
    if (!o.api_key.empty()) env["SESSION_API_KEY"] = o.api_key;
    std::vector<std::string> envs;
    for (const auto &[k, v] : env) envs.push_back(k + "=" + v);

    std::vector<char *> cargv, cenv;
    for (auto &s : argv) cargv.push_back(s.data());
    cargv.push_back(nullptr);
    for (auto &s : envs) cenv.push_back(s.data());
    cenv.push_back(nullptr);

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    pid_t pid = -1;
    int rc = posix_spawn(&pid, cargv[0], &fa, nullptr, cargv.data(), cenv.data());
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) throw std::runtime_error(std::string("posix_spawn actionhost: ") + std::strerror(rc));
    pid_ = pid;

    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(o.start_timeout_s);
    while (std::chrono::steady_clock::now() < deadline) {
        std::ifstream pf(port_file);
        int p = 0;
        if (pf >> p && p > 0) {
            port_ = p;
            break;
        }
        int status = 0;
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = -1;
            throw std::runtime_error("actionhost exited during start-up:\n" + log());
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (port_ == 0) {
        stop();
        throw std::runtime_error("actionhost did not report its port in time:\n" + log());
    }
    http_ = std::make_unique<Http>("127.0.0.1", port_);
}

HostProcess::~HostProcess() { stop(); }

namespace {

// A host that does not stop on SIGTERM is a bug; its threads' stacks, taken before the SIGKILL, say where
// it hangs (the log is what a failing test prints). gdb is in scripts/apt-packages.txt; bounded in time.
void append_thread_dump(pid_t pid, const std::string &log_path) {
    {
        std::ofstream(log_path, std::ios::app) << "\n[test] the host did not exit 5 s after SIGTERM; its threads:\n";
    }
    const std::string cmd = "timeout 30 gdb -p " + std::to_string(pid) +
                            " -batch -nx -ex 'set pagination off' -ex 'thread apply all bt 30' >>'" + log_path +
                            "' 2>&1";
    if (std::system(cmd.c_str()) != 0) std::ofstream(log_path, std::ios::app) << "[test] gdb failed\n";
}

}  // namespace

int HostProcess::stop() {
    if (pid_ <= 0) return 0;
    http_.reset();
    kill(pid_, SIGTERM);
    int status = 0;
    for (int i = 0; i < 500; ++i) {
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = -1;
            return status;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    append_thread_dump(pid_, log_path_);
    kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return status;
}

std::string HostProcess::log() const {
    std::ifstream in(log_path_);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

Headers HostProcess::with_key(Headers h) const {
    if (!api_key_.empty()) h.emplace_back("X-Session-API-Key", api_key_);
    return h;
}

HttpResponse HostProcess::get(const std::string &path, Headers headers) { return http_->get(path, with_key(headers)); }

HttpResponse HostProcess::post_json(const std::string &path, const std::string &body, Headers headers) {
    return http_->post_json(path, body, with_key(headers));
}

HttpResponse HostProcess::upload(const std::string &path_and_query, const std::string &filename,
                                 const std::string &content) {
    return http_->upload(path_and_query, filename, content, with_key({}));
}

HttpResponse HostProcess::execute_raw(const nlohmann::json &action, const std::string &session) {
    nlohmann::json body = {{"action", action}};
    if (!session.empty()) body["session"] = session;
    return post_json("/execute_action", body.dump());
}

nlohmann::json HostProcess::execute(const nlohmann::json &action, const std::string &session) {
    HttpResponse r = execute_raw(action, session);
    EXPECT_EQ(r.status, 200) << r.body;
    if (r.status != 200) return nlohmann::json{{"http_status", r.status}, {"body", r.body}};
    return r.json();
}

nlohmann::json HostProcess::run(const std::string &command, double timeout_s, bool is_input, const std::string &session) {
    nlohmann::json action = {{"action", "run"},
                             {"args",
                              {{"command", command},
                               {"is_input", is_input},
                               {"thought", ""},
                               {"blocking", timeout_s > 0},
                               {"is_static", false},
                               {"cwd", nullptr},
                               {"hidden", false},
                               {"confirmation_state", "confirmed"},
                               {"security_risk", -1}}}};
    if (timeout_s > 0) action["timeout"] = timeout_s;
    return execute(action, session);
}

void measure_own_memory_under_asan(HostOptions &options) {
    if (!kAddressSanitizer) return;
    const char *given = std::getenv("ASAN_OPTIONS");
    options.env["ASAN_OPTIONS"] = std::string(given ? given : "") + ":quarantine_size_mb=0:thread_local_quarantine_size_kb=0";
}

}  // namespace actionhost::testing

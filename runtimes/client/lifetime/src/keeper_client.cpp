#include "actionhost/lifetime/keeper_client.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <actionhost/common/json_io.hpp>
#include <actionhost/common/process/child_process.hpp>
#include <actionhost/runtime_support/kept_alive_record.hpp>
#include <actionhost/runtime_support/process.hpp>

#include <chrono>
#include <stdexcept>

#include "actionhost/lifetime/json_line_socket.hpp"
#include "actionhost/lifetime/lifetime_keeper.hpp"

namespace actionhost::lifetime {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

constexpr double kAskTimeoutS = 5;

json without_ok(json answer) {
    answer.erase("ok");
    return answer;
}

void remove_file(const std::string &path) {
    if (!path.empty()) ::unlink(path.c_str());
}

// Everything the child writes until both it and the keeper it detached have let the pipe go (its end)
// or the time is up.
std::string read_to_end(int fd, Clock::time_point deadline) {
    std::string text;
    char buffer[4096];
    for (int i = 0; i < 100'000 && text.size() < 64 * 1024; ++i) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) break;
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(left)) <= 0) continue;
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n == 0) break;
        if (n > 0) text.append(buffer, static_cast<size_t>(n));
    }
    return text;
}

}  // namespace

std::string keeper_record_path(const std::string &state_dir, const std::string &kind, const std::string &session_id) {
    return state_dir + "/" + kind + "-" + session_id + ".keeper.json";
}

std::string keeper_socket_path(const std::string &state_dir, const std::string &kind, const std::string &session_id) {
    return state_dir + "/" + kind + "-" + session_id + ".keeper.sock";
}

void start_keeper(const std::vector<std::string> &argv, double timeout_s) {
    common::SpawnSpec spec;
    spec.argv = argv;
    spec.use_pty = false;
    spec.out = common::Stream::pipe();
    spec.err = common::Stream::to_stdout();
    spec.new_session = true;         // and the keeper makes one of its own again once detached
    spec.die_with_parent = false;    // it must outlive the client
    spec.prefer_oom_victim = false;  // a helper of the client's, not a command of the agent's
    auto spawned = common::ChildProcess::spawn(spec);
    if (!spawned) throw std::runtime_error("cannot start " + argv.front() + ": " + spawned.error().message);
    std::unique_ptr<common::ChildProcess> child = std::move(spawned.value());
    const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
    const std::string said = read_to_end(child->output_fd(), deadline);
    const auto exited = child->wait(std::chrono::milliseconds(1000));  // the detaching parent: gone at once
    // Its session holds the keeper, which the destructor's kill_session must not reach: let it go.
    const pid_t parent = child->release();
    if (!exited) {
        ::kill(parent, SIGKILL);
        ::waitpid(parent, nullptr, 0);
    }
    const size_t ready = said.find("ready ");
    if (ready != std::string::npos && (ready == 0 || said[ready - 1] == '\n')) return;
    std::string why = said;
    while (!why.empty() && (why.back() == '\n' || why.back() == '\r')) why.pop_back();
    if (why.rfind("error: ", 0) == 0) why = why.substr(7);
    throw std::runtime_error(why.empty() ? "the lifetime keeper " + argv.front() + " did not start within " +
                                               std::to_string(static_cast<int>(timeout_s)) + " s"
                                         : why);
}

std::optional<json> running_keeper(const std::string &record_path) {
    auto record = common::read_json_object_file(record_path);
    if (!record || !runtime_support::kept_alive_record_is_live(*record)) return std::nullopt;
    return record;
}

void end_keeper(const std::string &record_path, double timeout_s) {
    auto record = common::read_json_object_file(record_path);
    if (!record) return;
    if (record->contains("pid_start") && (*record)["pid_start"].is_number_unsigned()) {
        const runtime_support::ProcessIdentity id{record->value("pid", 0), (*record)["pid_start"].get<unsigned long long>(),
                                                  record->value("boot_id", std::string())};
        if (id.pid > 0 && !runtime_support::signal_and_wait(id, SIGTERM, timeout_s))
            runtime_support::signal_and_wait(id, SIGKILL, 2);
    }
    remove_file(record->value("socket", std::string()));
    remove_file(record_path);
}

std::string keeper_lifetime_state(const std::string &record_path) {
    auto record = running_keeper(record_path);
    if (!record) return common::dump_json(no_lifetime_state());
    return common::dump_json(without_ok(
        json_line_request(record->value("socket", ""), json{{"op", "lifetime"}}, kAskTimeoutS, "the runtime's lifetime keeper")));
}

std::string keeper_extend(const std::string &record_path, long long seconds) {
    auto record = running_keeper(record_path);
    if (!record)
        throw std::invalid_argument("this runtime has no lifetime to extend (sandbox.lifetime was not set at its start, or its keeper was ended)");
    return common::dump_json(without_ok(json_line_request(record->value("socket", ""), json{{"op", "extend"}, {"seconds", seconds}},
                                                          kAskTimeoutS, "the runtime's lifetime keeper")));
}

}  // namespace actionhost::lifetime

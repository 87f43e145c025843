#include "terminal/terminal_registry.hpp"

#include <pthread.h>

#include <algorithm>
#include <cctype>

namespace actionhost::host {

TerminalRegistry::TerminalRegistry(TerminalSettings settings) : settings_(std::move(settings)) {}

TerminalRegistry::~TerminalRegistry() { close_all(); }

bool TerminalRegistry::valid_name(const std::string &name) {
    return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](unsigned char c) {
        return std::isalnum(c) || c == '-' || c == '_' || c == '.';
    });
}

TerminalRegistry::Opened TerminalRegistry::open(const std::string &name, OpenMode mode, unsigned short rows, unsigned short cols) {
    for (auto &s : take_finished()) s->close();
    std::unique_lock lock(mutex_);
    if (stopping_) return {nullptr, false, 503, "the host is stopping"};
    if (auto it = sessions_.find(name); it != sessions_.end()) {
        if (mode == OpenMode::Create) return {nullptr, false, 409, "a terminal named '" + name + "' exists already"};
        if (it->second.first->clients() >= settings_.max_clients_per_session)
            return {nullptr, false, 429, "terminal '" + name + "' has " + std::to_string(settings_.max_clients_per_session) + " clients already"};
        return {it->second.first, false, 200, ""};
    }
    if (mode == OpenMode::Attach) return {nullptr, false, 404, "no terminal named '" + name + "'"};
    if (sessions_.size() >= settings_.max_sessions)
        return {nullptr, false, 429, "there are " + std::to_string(settings_.max_sessions) + " terminals already (ACTIONHOST_MAX_TERMINALS)"};
    if (!settings_.spawn) return {nullptr, false, 500, "cannot start a shell: no shell configured"};
    auto shell = settings_.spawn(rows, cols);
    if (!shell) return {nullptr, false, 500, "cannot start a shell: " + shell.error().message};
    auto session = std::make_shared<TerminalSession>(name, std::move(shell).value(), settings_.scrollback_bytes);
    sessions_[name] = {session, std::chrono::steady_clock::now()};
    if (!reaper_.joinable())  // started with the first terminal: a host nobody opens one on keeps no thread
        reaper_ = std::thread([this] {
            pthread_setname_np(pthread_self(), "terminal-reap");
            reap_loop();
        });
    return {session, true, 200, ""};
}

std::vector<std::shared_ptr<TerminalSession>> TerminalRegistry::take_finished() {
    std::vector<std::shared_ptr<TerminalSession>> done;
    std::lock_guard lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    for (auto it = sessions_.begin(); it != sessions_.end();) {
        const auto &s = it->second.first;
        const bool idle = s->clients() == 0 && now - s->unattached_since() > settings_.detached_timeout;
        if (s->ended() || idle) {
            done.push_back(s);
            it = sessions_.erase(it);
        } else {
            ++it;
        }
    }
    return done;
}

void TerminalRegistry::reap_loop() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        wake_.wait_for(lock, std::chrono::seconds(1));
        lock.unlock();
        for (auto &s : take_finished()) s->close();
        lock.lock();
    }
}

std::vector<TerminalRegistry::Info> TerminalRegistry::list() {
    for (auto &s : take_finished()) s->close();
    std::lock_guard lock(mutex_);
    std::vector<Info> out;
    const auto now = std::chrono::steady_clock::now();
    for (const auto &[name, entry] : sessions_)
        out.push_back({name, entry.first->pid(), entry.first->clients(), std::chrono::duration<double>(now - entry.second).count()});
    return out;
}

bool TerminalRegistry::close(const std::string &name) {
    std::shared_ptr<TerminalSession> session;
    {
        std::lock_guard lock(mutex_);
        auto it = sessions_.find(name);
        if (it == sessions_.end()) return false;
        session = it->second.first;
        sessions_.erase(it);
    }
    session->close();
    return true;
}

void TerminalRegistry::close_all() {
    std::map<std::string, std::pair<std::shared_ptr<TerminalSession>, std::chrono::steady_clock::time_point>> all;
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        all.swap(sessions_);
    }
    wake_.notify_all();
    if (reaper_.joinable()) reaper_.join();
    for (auto &[name, entry] : all) entry.first->close();
}

}  // namespace actionhost::host

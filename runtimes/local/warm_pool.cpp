#include "warm_pool.hpp"

#include <dlfcn.h>
#include <signal.h>

#include <actionhost/runtime_support/process.hpp>
#include <chrono>
#include <actionhost/common/random.hpp>

namespace actionhost::local_runtime {

namespace {

// The pooled host's SESSION_API_KEY: common::random_hex throws if the kernel gives no random bytes
// (an unchecked read of /dev/urandom here once could leave the key all zeros).
std::string random_key() { return common::random_hex(16); }

// The client unloads a backend module when its runtime is destroyed; the pool (its thread, its hosts)
// outlives runtimes, so the module stays loaded once a pool exists.
void pin_this_module() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void *>(&pin_this_module), &info) && info.dli_fname)
        dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

}  // namespace

WarmPool &WarmPool::instance() {
    static WarmPool *pool = [] {
        pin_this_module();
        // The pool's hosts are forked by the lasting spawner; it must outlive the reaper below, whose
        // delete waits for a start in progress: the static made first is destroyed last.
        runtime_support::start_lasting_spawner();
        return new WarmPool();
    }();
    // Destroyed at exit (the module is pinned, so its static destructors run then): stops the hosts.
    static struct Reaper {
        ~Reaper() { delete pool; }
    } reaper;
    return *pool;
}

WarmPool::~WarmPool() {
    {
        std::lock_guard lock(mu_);
        stopping_ = true;
        queue_.clear();
        if (starting_pid_ > 0) kill(-starting_pid_, SIGKILL);  // its start then fails at once
    }
    cv_.notify_all();
    if (worker_.joinable()) worker_.join();
    for (auto &[key, entries] : ready_)
        for (auto &e : entries) stop_host(e.host);
}

std::optional<LocalHost> WarmPool::take(const std::string &key, double timeout_s) {
    std::unique_lock lock(mu_);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    for (int round = 0; round < 1000; ++round) {
        auto &entries = ready_[key];
        while (!entries.empty()) {
            LocalHost h = std::move(entries.back().host);
            entries.pop_back();
            if (kill(h.pid, 0) == 0) return h;
            stop_host(h);  // died while waiting: clean up, try the next
        }
        if (starting_[key] == 0 || stopping_) return std::nullopt;
        if (cv_.wait_until(lock, deadline) == std::cv_status::timeout) return std::nullopt;
    }
    return std::nullopt;
}

void WarmPool::fill(const LaunchPlan &plan, size_t size) {
    const std::string key = plan.pool_key();
    {
        std::lock_guard lock(mu_);
        if (stopping_) return;
        size_t have = ready_[key].size() + starting_[key];
        for (; have < size; ++have) {
            LaunchPlan p = plan;
            p.env["SESSION_API_KEY"] = random_key();
            p.env["OPENHANDS_SESSION_ID"] = "warm-pool";
            p.die_with_parent = true;  // the worker thread lives as long as the pool
            queue_.push_back(std::move(p));
            ++starting_[key];
        }
        if (!worker_.joinable()) worker_ = std::thread([this] { work(); });
    }
    cv_.notify_all();
}

void WarmPool::work() {
    std::unique_lock lock(mu_);
    while (!stopping_) {
        if (queue_.empty()) {
            cv_.wait(lock);
            continue;
        }
        LaunchPlan plan = std::move(queue_.front());
        queue_.pop_front();
        const std::string key = plan.pool_key();
        lock.unlock();
        std::optional<LocalHost> started;
        try {
            started = launch_host(plan, 60, [this](pid_t pid) {
                std::lock_guard l(mu_);
                starting_pid_ = pid;
            });
        } catch (...) {
            // A host that cannot start now is not retried: the runtime then starts one itself.
        }
        lock.lock();
        starting_pid_ = -1;
        --starting_[key];
        if (started) {
            if (stopping_) stop_host(*started);
            else ready_[key].push_back({std::move(*started), true});
        }
        cv_.notify_all();
    }
}

}  // namespace actionhost::local_runtime

#include "worker_pool.hpp"

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace actionhost::common::http::detail {

struct WorkerPool::State {
    std::string name;
    size_t max_threads;
    std::mutex mutex;
    std::condition_variable work, ended;
    std::deque<std::function<void()>> jobs;
    size_t threads = 0, idle = 0;
    size_t starting = 0;  // threads started for a job that have not yet looked for it
    std::atomic<size_t> waiting{0};  // jobs no thread will take without another ending its job first
    bool joining = false;

    void count_waiting() { waiting = jobs.size() > idle + starting ? jobs.size() - idle - starting : 0; }  // under `mutex`

    static void run(std::shared_ptr<State> s) {
        pthread_setname_np(pthread_self(), s->name.substr(0, 15).c_str());
        std::unique_lock lock(s->mutex);
        --s->starting;
        for (;;) {
            ++s->idle;
            const bool got = s->work.wait_for(lock, std::chrono::seconds(30), [&] { return !s->jobs.empty() || s->joining; });
            --s->idle;
            if (!got || s->jobs.empty()) break;  // idle for 30 s, or joining with nothing left
            std::function<void()> job = std::move(s->jobs.front());
            s->jobs.pop_front();
            s->count_waiting();
            lock.unlock();
            job();
            job = nullptr;  // what it holds goes before the thread may count as ended
            lock.lock();
        }
        --s->threads;
        s->ended.notify_all();
    }
};

WorkerPool::WorkerPool(std::string name, size_t max_threads) : state_(std::make_shared<State>()) {
    state_->name = std::move(name);
    state_->max_threads = max_threads == 0 ? 1 : max_threads;
}

WorkerPool::~WorkerPool() { join(); }

void WorkerPool::submit(std::function<void()> job) {
    std::lock_guard lock(state_->mutex);
    if (state_->joining) return;
    state_->jobs.push_back(std::move(job));
    if (state_->idle >= state_->jobs.size()) {
        state_->work.notify_one();
    } else if (state_->threads < state_->max_threads) {
        ++state_->threads;
        ++state_->starting;
        std::thread(&State::run, state_).detach();
    }
    state_->count_waiting();
}

bool WorkerPool::jobs_waiting() const { return state_->waiting > 0; }

void WorkerPool::join() {
    std::unique_lock lock(state_->mutex);
    state_->joining = true;
    state_->work.notify_all();
    state_->ended.wait(lock, [&] { return state_->threads == 0; });
}

}  // namespace actionhost::common::http::detail

#include "lasting_thread.hpp"

#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <thread>

namespace actionhost::common {

namespace {

class LastingThread {
  public:
    LastingThread() : thread_([this] { loop(); }) {}
    ~LastingThread() {
        {
            std::lock_guard lock(mu_);
            stop_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }
    void run(const std::function<void()> &work) {
        std::packaged_task<void()> task(work);
        auto done = task.get_future();
        {
            std::lock_guard lock(mu_);
            tasks_.push_back(std::move(task));
        }
        cv_.notify_all();
        done.get();
    }

  private:
    void loop() {
        std::unique_lock lock(mu_);
        for (;;) {
            cv_.wait(lock, [&] { return stop_ || !tasks_.empty(); });
            if (tasks_.empty()) return;  // stopping, nothing left
            auto task = std::move(tasks_.front());
            tasks_.pop_front();
            lock.unlock();
            task();
            lock.lock();
        }
    }
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<std::packaged_task<void()>> tasks_;
    bool stop_ = false;
    std::thread thread_;
};

LastingThread &lasting_thread() {
    static LastingThread thread;  // started on first use, joined when the library is unloaded (or at exit)
    return thread;
}

}  // namespace

void start_lasting_thread() { (void)lasting_thread(); }

void run_on_lasting_thread(const std::function<void()> &work) { lasting_thread().run(work); }

}  // namespace actionhost::common

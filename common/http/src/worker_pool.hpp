// Threads for requests being handled: started when every thread is busy (up to a maximum), ended after
// 30 s without work, so an idle server keeps few threads and a busy one never waits behind a long action
// while it may start another thread.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace actionhost::common::http::detail {

class WorkerPool {
  public:
    WorkerPool(std::string name, size_t max_threads);
    ~WorkerPool();  // join()

    // Runs `job` on a thread of the pool; queued (in order) while `max_threads` are busy. Thread: any.
    void submit(std::function<void()> job);
    // Whether a job waits for a thread: all `max_threads` are busy. Thread: any; a hint, true or false by
    // the time the caller acts on it.
    bool jobs_waiting() const;
    // Runs the queued jobs, then waits until every thread has ended. submit() after join() is ignored.
    void join();

  private:
    struct State;
    std::shared_ptr<State> state_;  // shared with the threads, so one ending never outlives it
};

}  // namespace actionhost::common::http::detail

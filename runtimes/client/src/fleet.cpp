#include "actionhost/client/fleet.hpp"

#include <algorithm>
#include <atomic>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <exception>
#include <mutex>
#include <set>
#include <thread>

#include "actionhost/client/errors.hpp"
#include "actionhost/client/state_store.hpp"

namespace actionhost::client {

using nlohmann::json;

size_t default_concurrency() { return 4 * std::max(1u, std::thread::hardware_concurrency()); }

void for_each_concurrently(size_t count, size_t concurrency, const std::function<void(size_t)> &fn) {
    if (count == 0) return;
    const size_t threads = std::min(count, concurrency > 0 ? concurrency : default_concurrency());
    std::exception_ptr first;
    std::mutex mu;
    boost::asio::thread_pool pool(threads);
    for (size_t i = 0; i < count; ++i) {
        boost::asio::post(pool, [&, i] {
            try {
                fn(i);
            } catch (...) {
                std::lock_guard lock(mu);
                if (!first) first = std::current_exception();
            }
        });
    }
    pool.join();
    if (first) std::rethrow_exception(first);
}

std::vector<StartedRuntime> start_runtimes(const RuntimeOptions &options, size_t count, size_t concurrency) {
    std::vector<StartedRuntime> out(count);
    for_each_concurrently(count, concurrency, [&](size_t i) {
        RuntimeOptions o = options;
        o.session_id.clear();
        try {
            auto rt = Runtime::create(std::move(o));
            rt->connect();
            out[i].runtime = std::move(rt);
        } catch (const std::exception &e) {
            out[i].error = e.what();
        }
    });
    return out;
}

namespace {

// The options to reach kept-alive session `sid` of base's state directory: its own backend.
RuntimeOptions session_options(const RuntimeOptions &base, const std::string &sid, bool keep) {
    const std::string dir = StateStore::default_dir(base.config.get_text("core.state_dir"));
    auto record = StateStore(dir).get(sid);
    if (!record) throw RuntimeError("no kept-alive runtime with session id " + sid);
    RuntimeOptions o = base;
    o.session_id = sid;
    o.config.set("core.runtime", record->value("runtime", o.config.runtime()));
    o.config.set("sandbox.keep_runtime_alive", keep);
    return o;
}

template <class F>
std::vector<SessionOutcome> for_each_session(const std::vector<std::string> &ids, size_t concurrency, F &&fn) {
    std::vector<SessionOutcome> out(ids.size());
    for_each_concurrently(ids.size(), concurrency, [&](size_t i) {
        out[i].session_id = ids[i];
        try {
            fn(ids[i], out[i]);
        } catch (const std::exception &e) {
            out[i].error = e.what();
        }
    });
    return out;
}

}  // namespace

std::vector<SessionOutcome> execute_in_sessions(const RuntimeOptions &base, const std::vector<std::string> &session_ids,
                                                const json &action, size_t concurrency) {
    return for_each_session(session_ids, concurrency, [&](const std::string &sid, SessionOutcome &result) {
        auto rt = Runtime::create(session_options(base, sid, true));
        rt->connect();
        result.observation = rt->execute(action);
        rt->close();
    });
}

std::vector<SessionOutcome> stop_sessions(const RuntimeOptions &base, const std::vector<std::string> &session_ids,
                                          size_t concurrency) {
    return for_each_session(session_ids, concurrency, [&](const std::string &sid, SessionOutcome &) {
        Runtime::create(session_options(base, sid, false))->stop_kept_alive();
    });
}

std::vector<std::string> reclaim_leftovers(const RuntimeOptions &base, bool thorough) {
    std::vector<std::string> ended;
    const std::string dir = StateStore::default_dir(base.config.get_text("core.state_dir"));
    StateStore store(dir);
    auto sweep = [&](const std::string &runtime, const std::string &sid, bool stop) {
        try {
            RuntimeOptions o = base;
            o.session_id = sid;
            o.on_status = nullptr;
            o.config.set("core.runtime", runtime);
            o.config.set("sandbox.keep_runtime_alive", false);
            auto rt = Runtime::create(std::move(o));
            if (stop) rt->stop_kept_alive();
            for (auto &s : rt->reclaim_leftovers(thorough)) ended.push_back(std::move(s));
        } catch (const RuntimeNotFound &) {
            // a backend this build does not have left nothing either
        } catch (const std::exception &e) {
            if (base.on_log) base.on_log(AH_LOG_WARNING, "cleaning up after ended sandboxes (" + runtime + "): " + e.what());
        }
    };
    std::set<std::string> swept;
    // A start whose client died before recording it: what it started runs unrecorded. Stop it.
    for (const auto &abandoned : store.take_abandoned_starts()) {
        sweep(abandoned.runtime, abandoned.session_id, true);
        swept.insert(abandoned.runtime);
    }
    std::set<std::string> runtimes = {select_runtime_name(base.config, current_environment())};
    if (thorough) {
        // The backends that keep sandboxes on this machine, and those of the records.
        runtimes.insert({"sandbox", "local"});
        for (const auto &r : store.list()) runtimes.insert(r.value("runtime", ""));
    }
    for (const auto &runtime : runtimes)
        if (!runtime.empty() && !swept.count(runtime)) sweep(runtime, "", false);
    return ended;
}

}  // namespace actionhost::client

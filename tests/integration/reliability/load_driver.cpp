#include "load_driver.hpp"

#include "support/proc_file.hpp"

#include <actionhost/common/digest.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <latch>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

namespace reliability_test {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string sha256_hex(const std::string &data) { return actionhost::common::sha256_hex(data); }

long rss_kb(int pid) { return actionhost::testing::resident_kib(pid); }

namespace {

double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const size_t i = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5));
    return v[i];
}

// Filler that can never contain the edit token "tok-" (no '-').
std::string filler(std::mt19937_64 &rng, size_t n) {
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789 ";
    std::string s(n, ' ');
    for (auto &c : s) c = alphabet[rng() % (sizeof alphabet - 1)];
    for (size_t i = 79; i < n; i += 80) s[i] = '\n';
    if (!s.empty() && s.back() == '\n') s.back() = '.';
    return s;
}

// One client's view of its files: what each must hold now (the write action adds a final newline).
class Client {
  public:
    Client(const LoadPlan &plan, int index, ExecuteFn exec, LoadReport &report, std::mutex &report_mu)
        : plan_(plan), index_(index), exec_(std::move(exec)), rng_(plan.seed * 1000003 + static_cast<uint64_t>(index)),
          report_(report), mu_(report_mu) {}

    void run() {
        for (int j = 0; j < plan_.actions_per_client; ++j) step(j);
    }

    // After the load: every file on disk holds exactly what this client last wrote.
    void verify_on_disk() {
        if (plan_.outside_dir.empty()) return;
        for (const auto &[k, expected] : files_) {
            std::ifstream in(plan_.outside_dir + "/" + name(k), std::ios::binary);
            std::string got((std::istreambuf_iterator<char>(in)), {});
            if (sha256_hex(got) != sha256_hex(expected)) problem(true, "on disk " + name(k) + " differs from the last write");
        }
    }

  private:
    std::string name(int k) const { return "c" + std::to_string(index_) + "_f" + std::to_string(k) + ".txt"; }
    std::string path(int k) const { return plan_.dir + "/" + name(k); }
    std::string shared_path() const { return plan_.dir + "/shared.txt"; }

    void problem(bool lost, const std::string &what) {
        std::lock_guard lock(mu_);
        (lost ? report_.lost_or_torn : report_.errors)++;
        if (report_.problems.size() < 20) report_.problems.push_back("client " + std::to_string(index_) + ": " + what);
    }

    std::optional<json> timed(const std::string &kind, const json &action) {
        const auto t0 = Clock::now();
        json obs;
        try {
            obs = exec_(action);
        } catch (const std::exception &e) {
            problem(false, kind + " failed: " + e.what());
            return std::nullopt;
        }
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        std::lock_guard lock(mu_);
        ++report_.actions;
        report_.latency_ms.push_back(ms);
        report_.by_kind_ms[kind].push_back(ms);
        return obs;
    }

    bool ok(const std::optional<json> &obs, const char *want, const std::string &what) {
        if (!obs) return false;
        if (!obs->is_object() || obs->value("observation", "") != want) {
            problem(false, what + " → " + obs->dump().substr(0, 300));
            return false;
        }
        return true;
    }

    void write(int k, int j) {
        std::string content = "client " + std::to_string(index_) + " op " + std::to_string(j) + "\ntok-" +
                              std::to_string(index_) + "-" + std::to_string(j) + "\n" + filler(rng_, 100 + rng_() % 8000);
        auto obs = timed("write", {{"action", "write"}, {"args", {{"path", path(k)}, {"content", content}}}});
        if (ok(obs, "write", "write " + name(k))) files_[k] = content + "\n";
        else files_.erase(k);  // unknown now: stop checking it until rewritten
    }

    void read(int k) {
        auto obs = timed("read", {{"action", "read"}, {"args", {{"path", path(k)}}}});
        if (!ok(obs, "read", "read " + name(k))) return;
        if (sha256_hex((*obs)["content"].get<std::string>()) != sha256_hex(files_[k]))
            problem(true, "read " + name(k) + " does not hold the last write");
    }

    void edit(int k, int j) {
        std::string &text = files_[k];
        const size_t at = text.find("tok-");
        const size_t end = text.find('\n', at);
        const std::string old_token = text.substr(at, end - at);
        const std::string new_token = "tok-" + std::to_string(index_) + "-e" + std::to_string(j);
        auto obs = timed("edit", {{"action", "edit"},
                                  {"args", {{"command", "str_replace"}, {"path", path(k)}, {"old_str", old_token},
                                            {"new_str", new_token}, {"impl_source", "oh_aci"}}}});
        if (!ok(obs, "edit", "edit " + name(k)) ||
            (*obs)["content"].get<std::string>().find("has been edited") == std::string::npos) {
            if (obs) problem(false, "edit " + name(k) + " → " + obs->dump().substr(0, 300));
            files_.erase(k);
            return;
        }
        text.replace(at, old_token.size(), new_token);
    }

    void bash(int k, int j) {
        const bool hash = files_.count(k) > 0;
        const std::string command = hash ? "sha256sum " + path(k) : "echo c" + std::to_string(index_) + "-" + std::to_string(j);
        auto obs = timed("bash", {{"action", "run"}, {"args", {{"command", command}}}, {"timeout", 120}});
        if (!ok(obs, "run", command)) return;
        const std::string out = (*obs)["content"];
        const int code = (*obs)["extras"]["metadata"].value("exit_code", -1);
        if (code != 0) return problem(false, command + " exited " + std::to_string(code) + ": " + out.substr(0, 200));
        const std::string want = hash ? sha256_hex(files_[k]) : "c" + std::to_string(index_) + "-" + std::to_string(j);
        if (out.find(want) == std::string::npos) problem(hash, command + " printed " + out.substr(0, 200));
    }

    void shared(int j) {
        if (rng_() % 2 == 0) {
            const std::string body = filler(rng_, 1000 + rng_() % 30000);
            const std::string content = "shared by " + std::to_string(index_) + "/" + std::to_string(j) + " sha=" + sha256_hex(body) + "\n" + body;
            auto obs = timed("write", {{"action", "write"}, {"args", {{"path", shared_path()}, {"content", content}}}});
            ok(obs, "write", "write shared");
            return;
        }
        auto obs = timed("read", {{"action", "read"}, {"args", {{"path", shared_path()}}}});
        if (!obs || obs->value("observation", "") != "read") return;  // before the first write: error is fine
        const std::string text = (*obs)["content"];
        const size_t nl = text.find('\n'), sha = text.find(" sha=");
        if (nl == std::string::npos || sha == std::string::npos || sha > nl || text.size() < nl + 2)
            return problem(true, "shared file torn: " + text.substr(0, 120));
        const std::string body = text.substr(nl + 1, text.size() - nl - 2);  // minus the added newline
        if (sha256_hex(body) != text.substr(sha + 5, nl - sha - 5)) problem(true, "shared file torn (hash mismatch)");
    }

    void step(int j) {
        const int k = static_cast<int>(rng_() % 3);
        const int r = static_cast<int>(rng_() % 100);
        if (plan_.shared_file && r < 8) return shared(j);
        if (!files_.count(k) || r < 30) return write(k, j);
        if (r < 60) return bash(k, j);
        if (r < 85) return read(k);
        return edit(k, j);
    }

    const LoadPlan &plan_;
    int index_;
    ExecuteFn exec_;
    std::mt19937_64 rng_;
    std::map<int, std::string> files_;
    LoadReport &report_;
    std::mutex &mu_;
};

}  // namespace

double LoadReport::p50_ms() const { return percentile(latency_ms, 0.50); }
double LoadReport::p99_ms() const { return percentile(latency_ms, 0.99); }

std::string LoadReport::summary() const {
    std::ostringstream s;
    s.setf(std::ios::fixed);
    s.precision(2);
    s << actions << " actions in " << wall_s << " s (" << (wall_s > 0 ? static_cast<double>(actions) / wall_s : 0)
      << "/s), errors " << errors << ", lost or torn " << lost_or_torn << ", p50 " << p50_ms() << " ms, p99 " << p99_ms() << " ms";
    for (const auto &[kind, v] : by_kind_ms)
        s << "; " << kind << " n=" << v.size() << " p50 " << percentile(v, 0.5) << " p99 " << percentile(v, 0.99);
    for (const auto &p : problems) s << "\n  " << p;
    return s.str();
}

LoadReport run_load(const LoadPlan &plan, const std::function<ExecuteFn(int)> &make_client) {
    LoadReport report;
    std::mutex mu;
    std::vector<std::unique_ptr<Client>> clients(static_cast<size_t>(plan.clients));
    std::latch ready(plan.clients + 1);
    std::vector<std::thread> threads;
    for (int i = 0; i < plan.clients; ++i) {
        threads.emplace_back([&, i] {
            ExecuteFn exec;
            try {
                exec = make_client(i);
            } catch (const std::exception &e) {
                std::lock_guard lock(mu);
                ++report.errors;
                report.problems.push_back("client " + std::to_string(i) + " could not start: " + e.what());
            }
            if (exec) clients[static_cast<size_t>(i)] = std::make_unique<Client>(plan, i, std::move(exec), report, mu);
            ready.arrive_and_wait();
            if (clients[static_cast<size_t>(i)]) clients[static_cast<size_t>(i)]->run();
        });
    }
    ready.arrive_and_wait();
    const auto t0 = Clock::now();
    for (auto &t : threads) t.join();
    report.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
    for (auto &c : clients)
        if (c) c->verify_on_disk();
    return report;
}

}  // namespace reliability_test

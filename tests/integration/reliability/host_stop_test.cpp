// The host stops promptly on SIGTERM while clients keep connecting and hanging up. Poco 1.11's server
// dispatcher can miss the stop's wake-up for a thread that finishes a connection just as the server stops;
// that thread then sleeps out its idle time (10 s by default) and the host's final join waits for it.
// Connections ending at the moment of the stop are exactly what this test makes, many times over.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <iostream>
#include <thread>
#include <vector>

#include "support/host_process.hpp"
#include "support/http.hpp"

using namespace actionhost::testing;
using Clock = std::chrono::steady_clock;

TEST(HostStop, PromptWhileClientsComeAndGo) {
    constexpr int kRounds = 12;
    constexpr int kClients = 4;
    double worst_s = 0;
    for (int round = 0; round < kRounds; ++round) {
        HostProcess host;
        std::atomic<bool> done{false};
        std::atomic<int> answered{0};
        std::vector<std::thread> clients;
        for (int c = 0; c < kClients; ++c) {
            clients.emplace_back([&, port = host.port()] {
                const auto deadline = Clock::now() + std::chrono::seconds(30);
                while (!done.load() && Clock::now() < deadline) {
                    try {
                        Http http("127.0.0.1", port, 5.0);  // a connection per request, closed after it
                        if (http.get("/alive").status == 200) ++answered;
                    } catch (const std::exception &) {
                        std::this_thread::sleep_for(std::chrono::milliseconds(1));  // refused: the host is going
                    }
                }
            });
        }
        // Let the clients get going; vary the moment of the stop from round to round.
        for (int i = 0; i < 400 && answered.load() < 20 * (round + 1); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        const auto t0 = Clock::now();
        const int status = host.stop();
        const double took_s = std::chrono::duration<double>(Clock::now() - t0).count();
        done = true;
        for (auto &t : clients) t.join();
        worst_s = std::max(worst_s, took_s);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "round " << round << ": status " << status
                                                                   << "\n" << host.log();
        EXPECT_LT(took_s, 2.0) << "round " << round << "\n" << host.log();
        answered = 0;
    }
    std::cout << "[host stop] worst of " << kRounds << " stops with " << kClients << " clients coming and going: "
              << worst_s * 1000 << " ms\n";
    RecordProperty("worst_stop_ms", std::to_string(static_cast<int>(worst_s * 1000)));
}

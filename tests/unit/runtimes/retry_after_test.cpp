// Retry-After as providers send it: seconds, an HTTP date, Stainless' retry-after-ms first; anything
// else is no advice at all.
#include <gtest/gtest.h>

#include <actionhost/runtime_support/retry_after.hpp>

using actionhost::runtime_support::retry_after_seconds;

namespace {

std::chrono::system_clock::time_point at_epoch_seconds(long long s) {
    return std::chrono::system_clock::time_point(std::chrono::seconds(s));
}

}  // namespace

TEST(RetryAfter, SecondsAndMilliseconds) {
    EXPECT_EQ(retry_after_seconds({{"retry-after", "7"}}), 7.0);
    EXPECT_EQ(retry_after_seconds({{"retry-after", "0"}}), 0.0);
    EXPECT_EQ(retry_after_seconds({{"retry-after", "1.5"}}), 1.5);
    EXPECT_EQ(retry_after_seconds({{"retry-after-ms", "250"}}), 0.25);
    // retry-after-ms is the more precise advice and wins.
    EXPECT_EQ(retry_after_seconds({{"retry-after-ms", "1600"}, {"retry-after", "0"}}), 1.6);
}

TEST(RetryAfter, HttpDateIsCountedFromNow) {
    // Sun, 06 Nov 1994 08:49:37 GMT is 784111777 s after the epoch (RFC 9110's example date).
    const auto now = at_epoch_seconds(784111777 - 30);
    auto wait = retry_after_seconds({{"retry-after", "Sun, 06 Nov 1994 08:49:37 GMT"}}, now);
    ASSERT_TRUE(wait.has_value());
    EXPECT_NEAR(*wait, 30.0, 1e-6);
    // A date already past means "now".
    wait = retry_after_seconds({{"retry-after", "Sun, 06 Nov 1994 08:49:37 GMT"}}, at_epoch_seconds(784111777 + 5));
    ASSERT_TRUE(wait.has_value());
    EXPECT_EQ(*wait, 0.0);
    // The two obsolete forms recipients must still accept.
    for (const char *old : {"Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"}) {
        wait = retry_after_seconds({{"retry-after", old}}, now);
        ASSERT_TRUE(wait.has_value()) << old;
        EXPECT_NEAR(*wait, 30.0, 1e-6) << old;
    }
}

TEST(RetryAfter, NoAdviceFromWhatDoesNotParse) {
    EXPECT_FALSE(retry_after_seconds({}).has_value());
    EXPECT_FALSE(retry_after_seconds({{"x-other", "5"}}).has_value());
    for (const char *bad : {"", "-1", "5s", "soon", "1e3", "inf", "nan", " 5", "Sun, 06 Nov 1994"})
        EXPECT_FALSE(retry_after_seconds({{"retry-after", bad}}).has_value()) << bad;
    // A retry-after-ms that does not parse leaves retry-after to speak.
    EXPECT_EQ(retry_after_seconds({{"retry-after-ms", "x"}, {"retry-after", "2"}}), 2.0);
}

// LiveCalls: a call handle is usable only while its execute runs; afterwards services refuse it.
#include "modules/call_state.hpp"

#include <gtest/gtest.h>

using namespace actionhost::host;

TEST(CallState, AHandleIsLiveOnlyWhileItsGuardIs) {
    ah_call call;
    {
        LiveCallGuard live(&call);
        EXPECT_TRUE(LiveCalls::with(&call, [](ah_call *c) { c->observation = "{}"; }));
    }
    bool ran = false;
    EXPECT_FALSE(LiveCalls::with(&call, [&](ah_call *) { ran = true; }));
    EXPECT_FALSE(ran);
    ah_call never_live;
    EXPECT_FALSE(LiveCalls::with(&never_live, [](ah_call *) {}));
}

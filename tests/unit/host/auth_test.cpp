// host/http/auth: the session key check (a comparison whose time does not tell how much of a key matched).
#include "http/auth.hpp"

#include <gtest/gtest.h>

#include <string>

TEST(Auth, AcceptsOnlyTheKey) {
    actionhost::host::ApiKeyCheck check("s3cret");
    EXPECT_TRUE(check.accepts("s3cret"));
    EXPECT_FALSE(check.accepts("s3cre"));
    EXPECT_FALSE(check.accepts("s3creT"));
    EXPECT_FALSE(check.accepts(""));
    EXPECT_FALSE(check.accepts("s3cret "));
    EXPECT_FALSE(check.accepts(std::string("s3cret\0", 7)));
    EXPECT_TRUE(check.enabled());
    EXPECT_TRUE(actionhost::host::ApiKeyCheck("").accepts("anything"));
    EXPECT_FALSE(actionhost::host::ApiKeyCheck("").enabled());
    // Keys are bytes: a NUL inside one is part of it.
    actionhost::host::ApiKeyCheck binary(std::string("a\0b", 3));
    EXPECT_TRUE(binary.accepts(std::string("a\0b", 3)));
    EXPECT_FALSE(binary.accepts("a"));
}

// common::Status / common::Result<T>: a value or an Error, handed on unchanged.
#include <gtest/gtest.h>

#include <cerrno>
#include <memory>
#include <string>

#include "actionhost/common/result.hpp"

namespace {

using actionhost::common::fail;
using actionhost::common::ok;
using actionhost::common::Result;
using actionhost::common::Status;

Result<std::unique_ptr<int>> make(bool good) {
    if (!good) return fail("cannot make it: no room", ENOSPC);
    return std::make_unique<int>(7);
}

Status use(bool good) {
    auto r = make(good);
    if (!r) return r.as_failure();
    return ok();
}

TEST(Result, HoldsAMoveOnlyValue) {
    auto r = make(true);
    ASSERT_TRUE(r);
    std::unique_ptr<int> p = std::move(r).value();
    EXPECT_EQ(*p, 7);
}

TEST(Result, HoldsTheErrorTextAndErrno) {
    auto r = make(false);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message, "cannot make it: no room");
    EXPECT_EQ(r.error().sys_errno, ENOSPC);
}

TEST(Result, HandsAnErrorOnUnchanged) {
    EXPECT_TRUE(use(true));
    const Status s = use(false);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().message, "cannot make it: no room");
    EXPECT_EQ(s.error().sys_errno, ENOSPC);
}

TEST(Result, AStringValueIsNotTakenForAnError) {
    auto f = [](bool good) -> Result<std::string> {
        if (!good) return fail("bad");
        return std::string("fine");
    };
    EXPECT_EQ(f(true).value(), "fine");
    EXPECT_EQ(f(false).error().message, "bad");
    EXPECT_EQ(f(false).error().sys_errno, 0);
}

TEST(ResultDeathTest, ReadingTheValueOfAFailureEndsTheProcess) {
    EXPECT_DEATH((void)make(false).value(), "");
}

}  // namespace

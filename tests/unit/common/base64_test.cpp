// common/base64.hpp: Poco's coder as whole strings, both alphabets, and a clear "not base64".
#include <gtest/gtest.h>

#include <actionhost/common/base64.hpp>

using actionhost::common::base64_decode;
using actionhost::common::base64_encode;

TEST(Base64, RoundTripsAnyBytesOnOneLine) {
    std::string all;
    for (int i = 0; i < 256 * 4; ++i) all.push_back(static_cast<char>(i % 256));
    const std::string text = base64_encode(all);
    EXPECT_EQ(text.find('\n'), std::string::npos) << "a line break in the encoding";
    EXPECT_EQ(base64_decode(text), all);
    EXPECT_EQ(base64_encode("user:pass"), "dXNlcjpwYXNz");
    EXPECT_EQ(base64_encode(""), "");
    EXPECT_EQ(base64_decode(""), "");
}

TEST(Base64, TheUrlAlphabetHasNoPlusOrSlash) {
    const std::string bytes = "\xfb\xff\xfe";
    EXPECT_EQ(base64_encode(bytes), "+//+");
    EXPECT_EQ(base64_encode(bytes, true), "-__-");
}

TEST(Base64, WhatIsNotBase64IsSaid) {
    EXPECT_EQ(base64_decode("!!!!"), std::nullopt);
    EXPECT_EQ(base64_decode("dXNl\x01"), std::nullopt);
}

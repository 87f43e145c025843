// The helpers of common/http/exchange.hpp.
#include <gtest/gtest.h>

#include <actionhost/common/http/exchange.hpp>

#include "response_head.hpp"

using namespace actionhost::common::http;

TEST(HttpExchange, ReasonPhrasesAreTheStandardOnes) {
    EXPECT_EQ(reason_phrase(200), "OK");
    EXPECT_EQ(reason_phrase(400), "Bad Request");
    EXPECT_EQ(reason_phrase(403), "Forbidden");
    EXPECT_EQ(reason_phrase(413), "Payload Too Large");
    EXPECT_EQ(reason_phrase(422), "Unprocessable Entity");
    EXPECT_EQ(reason_phrase(431), "Request Header Fields Too Large");
    EXPECT_EQ(reason_phrase(500), "Internal Server Error");
    EXPECT_EQ(reason_phrase(299), "Unknown");
    EXPECT_EQ(reason_phrase(-1), "Unknown");
}

// Every answer's status line and header: exact bytes, each field only when it applies.
TEST(HttpExchange, ResponseHeadsAreExact) {
    using detail::response_head;
    EXPECT_EQ(response_head({.status = 200, .content_type = "application/json", .length = 517}),
              "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 517\r\n\r\n");
    EXPECT_EQ(response_head({.status = 422, .length = 0, .keep_alive = false}),
              "HTTP/1.1 422 Unprocessable Entity\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(response_head({.status = 200, .content_type = "text/event-stream", .chunked = true, .extra_headers = "Cache-Control: no-cache\r\n",
                             .request_version = 10}),
              "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nCache-Control: no-cache\r\n"
              "Connection: keep-alive\r\n\r\n");
    EXPECT_EQ(response_head({.status = 500, .content_type = "text/plain\r\nX: 1", .length = 18446744073709551615ull}),
              "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 18446744073709551615\r\n\r\n");  // a bad type is left out
    EXPECT_EQ(response_head({.status = -1}), "HTTP/1.1 -1 Unknown\r\n\r\n");
}

TEST(HttpExchange, AttachmentDispositionIsOneSafeLine) {
    EXPECT_EQ(attachment_disposition("report-1_a.zip"), "attachment; filename=\"report-1_a.zip\"");
    EXPECT_EQ(attachment_disposition("two words.zip"), "attachment; filename=\"two words.zip\"; filename*=UTF-8''two%20words.zip");
    EXPECT_EQ(attachment_disposition("a\r\nX: 1.zip"), "attachment; filename=\"a__X: 1.zip\"; filename*=UTF-8''a%0D%0AX%3A%201.zip");
    EXPECT_EQ(attachment_disposition("q\"b\\.zip"), "attachment; filename=\"q_b_.zip\"; filename*=UTF-8''q%22b%5C.zip");
    EXPECT_EQ(attachment_disposition("\xc3\xa9t\xc3\xa9.zip"), "attachment; filename=\"__t__.zip\"; filename*=UTF-8''%C3%A9t%C3%A9.zip");
    EXPECT_EQ(attachment_disposition("a;b=c,d.zip"), "attachment; filename=\"a;b=c,d.zip\"; filename*=UTF-8''a%3Bb%3Dc%2Cd.zip");
    EXPECT_EQ(attachment_disposition(std::string("nul\0x", 5)), "attachment; filename=\"nul_x\"; filename*=UTF-8''nul%00x");
}

TEST(HttpExchange, QueryParametersAreDecodedAndTheLastCounts) {
    EXPECT_EQ(query_parameter("path=%2Fa%20b&x=1", "path"), "/a b");
    EXPECT_EQ(query_parameter("path=a+b", "path"), "a b");
    EXPECT_EQ(query_parameter("path=1&path=2", "path"), "2");
    EXPECT_EQ(query_parameter("path", "path"), "");
    EXPECT_EQ(query_parameter("other=1", "path"), std::nullopt);
    EXPECT_EQ(query_parameter("", "path"), std::nullopt);
    EXPECT_EQ(query_parameter("path=%zz&path=ok", "path"), "ok");
    EXPECT_EQ(split_target("/a?b=c?d"), std::make_pair(std::string("/a"), std::string("b=c?d")));
    EXPECT_EQ(split_target("/a"), std::make_pair(std::string("/a"), std::string()));
}

// The wire form of Jupyter messages: signing, framing, and a decoder that refuses every malformed or forged
// input without crashing.
#include <gtest/gtest.h>

#include <random>

#include "protocol/connection_info.hpp"
#include "protocol/hmac_signer.hpp"
#include "protocol/message.hpp"

using namespace actionhost::jupyter;

namespace {
std::vector<std::string_view> views(const std::vector<std::string> &frames) {
    return {frames.begin(), frames.end()};
}
}  // namespace

TEST(HmacSigner, MatchesKnownHmacSha256) {
    // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?" (split across the four parts).
    HmacSigner s("Jefe");
    EXPECT_EQ(s.sign("what do ya", " want ", "for ", "nothing?"),
              "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(HmacSigner, VerifyAcceptsUpperCaseAndRejectsTampering) {
    HmacSigner s("k3y");
    std::string sig = s.sign("h", "p", "m", "c");
    EXPECT_TRUE(s.verify(sig, "h", "p", "m", "c"));
    std::string upper = sig;
    for (char &c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_TRUE(s.verify(upper, "h", "p", "m", "c"));
    EXPECT_FALSE(s.verify(sig, "h", "p", "m", "C"));
    EXPECT_FALSE(s.verify(sig.substr(1), "h", "p", "m", "c"));
    EXPECT_FALSE(s.verify("", "h", "p", "m", "c"));
}

TEST(HmacSigner, EmptyKeyDisablesSigning) {
    HmacSigner s("");
    EXPECT_EQ(s.sign("a", "b", "c", "d"), "");
    EXPECT_TRUE(s.verify("anything", "a", "b", "c", "d"));
}

TEST(Message, EncodeThenDecodeRoundTrips) {
    HmacSigner s("secret");
    ClientIdentity who{"sess", "user"};
    Message m = make_request(who, "execute_request", {{"code", "print(1)"}, {"silent", false}});
    m.identities = {"id1"};
    m.buffers = {std::string("\0bin", 4)};
    const auto frames = encode_message(m, s);
    ASSERT_EQ(frames.size(), 1u + 1 + 1 + 4 + 1);
    EXPECT_EQ(frames[1], "<IDS|MSG>");
    EXPECT_EQ(frames[2].size(), 64u);
    auto r = decode_message(views(frames), s);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r.value().msg_type(), "execute_request");
    EXPECT_EQ(r.value().msg_id(), m.msg_id());
    EXPECT_EQ(r.value().header["version"], "5.3");
    EXPECT_EQ(r.value().header["session"], "sess");
    EXPECT_EQ(r.value().content["code"], "print(1)");
    EXPECT_EQ(r.value().identities, std::vector<std::string>{"id1"});
    EXPECT_EQ(r.value().buffers.at(0), std::string("\0bin", 4));
    EXPECT_EQ(r.value().parent_msg_id(), "");
}

TEST(Message, ParentMsgIdComesFromTheParentHeader) {
    HmacSigner s("k");
    Message reply = make_request({"s", "u"}, "execute_reply", {{"status", "ok"}});
    reply.parent_header = {{"msg_id", "abc"}, {"msg_type", "execute_request"}};
    auto r = decode_message(views(encode_message(reply, s)), s);
    ASSERT_TRUE(r);
    EXPECT_EQ(r.value().parent_msg_id(), "abc");
}

TEST(Message, RefusesForgedAndMalformedMessages) {
    HmacSigner s("key");
    HmacSigner other("not-the-key");
    Message m = make_request({"s", "u"}, "status", {{"execution_state", "idle"}});
    auto good = encode_message(m, s);

    EXPECT_FALSE(decode_message(views(encode_message(m, other)), s)) << "signed with another key";
    auto tampered = good;
    tampered[5] = R"({"execution_state":"busy"})";
    EXPECT_EQ(decode_message(views(tampered), s).error().message, "bad signature");
    EXPECT_FALSE(decode_message({}, s));
    EXPECT_FALSE(decode_message({"<IDS|MSG>"}, s));
    EXPECT_FALSE(decode_message({"no", "delimiter"}, s));
    auto short_msg = good;
    short_msg.pop_back();
    EXPECT_FALSE(decode_message(views(short_msg), s));

    // Well signed but not the protocol's shapes.
    auto signed_frames = [&](std::string header, std::string parent, std::string meta, std::string content) {
        std::vector<std::string> f = {"<IDS|MSG>", s.sign(header, parent, meta, content), header, parent, meta, content};
        return decode_message(views(f), s);
    };
    EXPECT_FALSE(signed_frames("[]", "{}", "{}", "{}"));
    EXPECT_FALSE(signed_frames("{", "{}", "{}", "{}"));
    EXPECT_FALSE(signed_frames(R"({"msg_id":1,"msg_type":"x"})", "{}", "{}", "{}"));
    EXPECT_FALSE(signed_frames(R"({"msg_id":"a"})", "{}", "{}", "{}"));
    EXPECT_FALSE(signed_frames(R"({"msg_id":"a","msg_type":"x"})", "null", "{}", "{}"));
    EXPECT_FALSE(signed_frames(R"({"msg_id":"a","msg_type":"x"})", "{}", "{}", std::string(100000, '[')));
    EXPECT_FALSE(signed_frames(R"({"msg_id":"a","msg_type":"x"})", "{}", "{}", "{\"t\":\"\xff\xfe\"}"));
    EXPECT_TRUE(signed_frames(R"({"msg_id":"a","msg_type":"x"})", "{}", "{}", "{}"));
}

// Large frames take the fast parser; the decoded value must be exactly what nlohmann makes of the frame,
// and what the fast parser refuses (an integer beyond 64 bits) must still decode.
TEST(Message, LargeFramesDecodeExactlyAsSmallOnes) {
    HmacSigner s("key");
    const std::string header = R"({"msg_id":"a","msg_type":"stream"})";
    std::string content = R"({"name":"stdout","n":[1,-2,3.5,1e300,18446744073709551615,true,false,null,{"k":"v","k":"w"}],)"
                          R"("esc":"tab\t quote\" uni\u00e9 \ud83d\ude00 nul\u0000","text":")";
    while (content.size() < 200000) content += "0123456789 é€😀 ";
    content += "\\n\"}";
    auto decode = [&](const std::string &c) {
        std::vector<std::string> f = {"<IDS|MSG>", s.sign(header, "{}", "{}", c), header, "{}", "{}", c};
        return decode_message(views(f), s);
    };
    auto r = decode(content);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r.value().content, nlohmann::json::parse(content));
    EXPECT_EQ(r.value().content["n"][8]["k"], "w");
    EXPECT_EQ(r.value().content["n"][4].get<uint64_t>(), 18446744073709551615ull);

    std::string big_int = R"({"x":123456789012345678901234567890,"pad":")" + std::string(20000, 'p') + "\"}";
    auto b = decode(big_int);
    ASSERT_TRUE(b) << b.error().message;
    EXPECT_EQ(b.value().content, nlohmann::json::parse(big_int));

    EXPECT_FALSE(decode(R"({"pad":")" + std::string(20000, 'p') + R"(", "bad": "\xff"})"));
    EXPECT_FALSE(decode("[" + std::string(20000, ' ') + "]")) << "not an object";
}

TEST(Message, RandomFramesNeverCrashTheDecoder) {
    // A small in-test fuzzer: random frame counts and bytes, with and without a delimiter, all refused or
    // decoded but never thrown from.
    HmacSigner keyed("k"), open("");
    std::mt19937 rng(12345);
    const std::vector<std::string> pieces = {"<IDS|MSG>", "{}", "{\"msg_id\":\"a\",\"msg_type\":\"t\"}", "[", "\"", "null",
                                             "{\"a\":[1,2,{\"b\":null}]}", std::string("\0\xff", 2), ""};
    for (int i = 0; i < 20000; ++i) {
        std::vector<std::string> frames(rng() % 10);
        for (auto &f : frames) {
            if (rng() % 2) f = pieces[rng() % pieces.size()];
            else {
                f.resize(rng() % 40);
                for (char &c : f) c = static_cast<char>(rng());
            }
        }
        EXPECT_NO_THROW(decode_message(views(frames), keyed));
        EXPECT_NO_THROW(decode_message(views(frames), open));
    }
}

TEST(ConnectionInfo, PicksFiveDistinctPortsAndAKey) {
    ConnectionInfo c = make_connection_info();
    std::set<int> ports = {c.shell_port, c.iopub_port, c.stdin_port, c.control_port, c.hb_port};
    EXPECT_EQ(ports.size(), 5u);
    for (int p : ports) EXPECT_GT(p, 0);
    EXPECT_EQ(c.key.size(), 64u);
    nlohmann::json j = c.to_json();
    EXPECT_EQ(j["signature_scheme"], "hmac-sha256");
    EXPECT_EQ(j["transport"], "tcp");
    EXPECT_EQ(j["ip"], "127.0.0.1");
    EXPECT_EQ(c.endpoint(c.shell_port), "tcp://127.0.0.1:" + std::to_string(c.shell_port));
}

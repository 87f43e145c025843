// The resolver guard's reading and writing of DNS messages (runtimes/sandbox/init/dns_guard.cpp, over
// glibc's libresolv): the question's name, the addresses of an answer, an error reply. Queries are made
// by libresolv's res_mkquery; the answer is a fixed message with a CNAME between an A and an AAAA record.
#include <arpa/nameser.h>
#include <arpa/nameser_compat.h>
#include <resolv.h>

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "dns_guard.hpp"

using namespace sandbox;

namespace {

std::string query_for(const char *name, int type = ns_t_a) {
    unsigned char buf[512];
    const int n = res_mkquery(ns_o_query, name, ns_c_in, type, nullptr, 0, nullptr, buf, sizeof buf);
    return n > 0 ? std::string(reinterpret_cast<char *>(buf), static_cast<size_t>(n)) : "";
}

std::string from_hex(const std::string &hex) {
    std::string out;
    for (size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    return out;
}

// id 1234, a response, 1 question (a.test A IN), 5 answers: a.test A 198.51.100.2 ttl 300, a.test CNAME
// b.test, b.test AAAA 2001:db8::1 ttl 60, c.test A 203.0.113.5 (another name's: not the question's),
// b.test TXT.
const std::string kAnswer = from_hex(
    "123481800001000500000000"
    "01610474657374000001" "0001"
    "c00c00010001" "0000012c" "0004" "c6336402"
    "c00c00050001" "0000001e" "0004" "0162c00e"
    "0162c00e001c0001" "0000003c" "0010" "20010db8000000000000000000000001"
    "0163c00e00010001" "0000003c" "0004" "cb007105"
    "0162c00e00100001" "0000003c" "0003" "027878");

}  // namespace

TEST(SandboxDnsGuard, TheQuestionsNameIsReadNormalised) {
    EXPECT_EQ(dns_question_name(query_for("Files.PyPI.org.")), "files.pypi.org");
    EXPECT_EQ(dns_question_name(kAnswer), "a.test");
    EXPECT_EQ(dns_question_name(""), "");
    EXPECT_EQ(dns_question_name(std::string(12, '\0')), "") << "no question";
    EXPECT_EQ(dns_question_name(query_for("pypi.org").substr(0, 15)), "") << "cut short";
}

TEST(SandboxDnsGuard, AnAnswersAddressesAreThoseOfItsQuestionAndCnameChain) {
    const auto addresses = dns_answer_addresses(kAnswer);
    ASSERT_EQ(addresses.size(), 2u) << "the question's own and its CNAME's, not c.test's";
    EXPECT_EQ(addresses[0].address, "198.51.100.2");
    EXPECT_FALSE(addresses[0].v6);
    EXPECT_EQ(addresses[0].ttl, 300u);
    EXPECT_EQ(addresses[1].address, "2001:db8::1");
    EXPECT_TRUE(addresses[1].v6);
    EXPECT_EQ(addresses[1].ttl, 60u);
    EXPECT_TRUE(dns_answer_addresses(kAnswer.substr(0, kAnswer.size() - 5)).size() <= 1u) << "a cut record is not read";
    EXPECT_TRUE(dns_answer_addresses("garbage").empty());
}

TEST(SandboxDnsGuard, AnErrorReplyIsTheQuestionWithItsCode) {
    const std::string q = query_for("bad.test");
    const std::string r = dns_error_reply(q, ns_r_refused);
    ASSERT_FALSE(r.empty());
    HEADER h;
    std::memcpy(&h, r.data(), sizeof h);
    EXPECT_EQ(std::memcmp(r.data(), q.data(), 2), 0) << "the query's id";
    EXPECT_EQ(h.qr, 1u);
    EXPECT_EQ(h.rcode, static_cast<unsigned>(ns_r_refused));
    EXPECT_EQ(ntohs(h.qdcount), 1);
    EXPECT_EQ(ntohs(h.ancount) + ntohs(h.nscount) + ntohs(h.arcount), 0);
    EXPECT_EQ(dns_question_name(r), "bad.test");
    EXPECT_TRUE(dns_error_reply("short", ns_r_refused).empty());
}

TEST(SandboxDnsGuard, OnlyAPlainQuestionGoesUpstream) {
    const std::string q = query_for("allowed.test");
    ASSERT_FALSE(q.empty());
    EXPECT_TRUE(dns_plain_query(q));
    // With an EDNS OPT record without options (what resolvers send): still plain.
    std::string with_opt = q + from_hex("0000291000000000000000");
    with_opt[11] = 1;  // ARCOUNT 1
    EXPECT_TRUE(dns_plain_query(with_opt));
    auto with = [&](size_t at, char value) {
        std::string m = q;
        m[at] = value;
        return m;
    };
    EXPECT_FALSE(dns_plain_query(with(2, static_cast<char>(q[2] | 0x80)))) << "a response";
    EXPECT_FALSE(dns_plain_query(with(2, static_cast<char>((q[2] & 0x87) | (5 << 3))))) << "an UPDATE";
    EXPECT_FALSE(dns_plain_query(with(5, 0))) << "no question";
    // Data beside the question: a second question, an answer record, an OPT with an option, trailing bytes.
    std::string two = q + q.substr(12);
    two[5] = 2;
    EXPECT_FALSE(dns_plain_query(two));
    std::string opt_data = q + from_hex("000029100000000000000600080002abcd");
    opt_data[11] = 1;
    EXPECT_FALSE(dns_plain_query(opt_data)) << "an EDNS option carries data";
    std::string txt = q + from_hex("c00c00100001000000000004037373730");
    txt[11] = 1;
    EXPECT_FALSE(dns_plain_query(txt));
    EXPECT_FALSE(dns_plain_query(q + "junk"));
    EXPECT_FALSE(dns_plain_query(kAnswer));
}

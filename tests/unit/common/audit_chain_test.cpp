// The audit trail's hash chain (common/audit_chain.hpp): what the writer makes verifies, across
// rotation and a restart of the writer; and every change of the files — a byte edited, a line removed,
// two lines swapped, the tail cut, a segment removed, a forged line with its own hash recomputed, a
// rotation declaration rewritten — is a break that names where it is.
#include <gtest/gtest.h>

#include <actionhost/common/audit_chain.hpp>
#include <actionhost/common/digest.hpp>
#include <actionhost/common/json_io.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"

namespace audit = actionhost::common::audit;
using nlohmann::json;

namespace {

std::string slurp(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

void spit(const std::string &path, const std::string &text) { std::ofstream(path, std::ios::binary | std::ios::trunc) << text; }

std::vector<std::string> lines_of(const std::string &path) {
    std::vector<std::string> out;
    std::istringstream in(slurp(path));
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

void put_lines(const std::string &path, const std::vector<std::string> &lines) {
    std::string text;
    for (const auto &l : lines) text += l + "\n";
    spit(path, text);
}

// `n` action entries in a fresh chain of `dir`.
void write_chain(const std::string &dir, int n, audit::Limits limits = {}) {
    auto w = audit::Writer::open(dir, limits);
    ASSERT_TRUE(w) << w.error().message;
    for (int i = 0; i < n; ++i) ASSERT_TRUE(w.value().append("action", json{{"event", "started"}, {"action", "run"}, {"i", i}}, 1000.0 + i));
}

std::string first_segment(const std::string &dir) { return dir + "/" + audit::segment_name(1); }

std::string broken(const std::string &dir) {
    auto v = audit::verify(dir);
    return v ? "" : v.error().message;
}

}  // namespace

TEST(AuditChain, WhatTheWriterMakesVerifiesAndReadsBack) {
    actionhost::testing::TempDir t;
    const std::string dir = t.path() + "/s1";
    write_chain(dir, 5);
    auto v = audit::verify(dir);
    ASSERT_TRUE(v) << v.error().message;
    EXPECT_EQ(v.value().entries, 5u);
    EXPECT_EQ(v.value().last_seq, 5u);
    auto entries = audit::read_entries(dir);
    ASSERT_TRUE(entries);
    ASSERT_EQ(entries.value().size(), 5u);
    EXPECT_EQ(entries.value()[0].prev, audit::kGenesisHash);
    EXPECT_EQ(entries.value()[1].prev, entries.value()[0].hash);
    EXPECT_EQ(entries.value()[4].record["i"], 4);
    EXPECT_EQ(std::filesystem::status(dir).permissions() & std::filesystem::perms::all, std::filesystem::perms::owner_all);
}

TEST(AuditChain, AReopenedWriterContinuesTheSameChain) {
    actionhost::testing::TempDir t;
    write_chain(t.path(), 3);
    write_chain(t.path(), 2);  // a second writer: seq 4 and 5, chained to 3
    auto v = audit::verify(t.path());
    ASSERT_TRUE(v) << v.error().message;
    EXPECT_EQ(v.value().last_seq, 5u);
}

TEST(AuditChain, AnEditedByteIsABreakNamingTheEntry) {
    actionhost::testing::TempDir t;
    write_chain(t.path(), 4);
    auto lines = lines_of(first_segment(t.path()));
    const size_t at = lines[2].find("\"run\"");
    lines[2].replace(at, 5, "\"rm \"");
    put_lines(first_segment(t.path()), lines);
    EXPECT_NE(broken(t.path()).find("000001.log line 3: its hash does not match"), std::string::npos) << broken(t.path());
}

TEST(AuditChain, AnEditedEntryWithItsHashRecomputedBreaksTheNextLink) {
    actionhost::testing::TempDir t;
    write_chain(t.path(), 4);
    auto lines = lines_of(first_segment(t.path()));
    // The forger rewrites entry 2 and its own hash consistently: entry 3 still names the old one.
    std::string body = lines[1].substr(83, lines[1].size() - 84);
    body.replace(body.find("\"run\""), 5, "\"ls \"");
    lines[1] = "{\"hash\":\"" + actionhost::common::sha256_hex(body) + "\",\"entry\":" + body + "}";
    put_lines(first_segment(t.path()), lines);
    EXPECT_NE(broken(t.path()).find("line 3 (seq 3): does not chain"), std::string::npos) << broken(t.path());
}

TEST(AuditChain, ARemovedLineIsABreak) {
    actionhost::testing::TempDir t;
    write_chain(t.path(), 4);
    auto lines = lines_of(first_segment(t.path()));
    lines.erase(lines.begin() + 1);
    put_lines(first_segment(t.path()), lines);
    EXPECT_NE(broken(t.path()).find("line 2 (seq 3): seq 3 follows 1"), std::string::npos) << broken(t.path());
}

TEST(AuditChain, TwoSwappedLinesAreABreak) {
    actionhost::testing::TempDir t;
    write_chain(t.path(), 4);
    auto lines = lines_of(first_segment(t.path()));
    std::swap(lines[1], lines[2]);
    put_lines(first_segment(t.path()), lines);
    EXPECT_NE(broken(t.path()).find("line 2 (seq 3)"), std::string::npos) << broken(t.path());
}

TEST(AuditChain, ACutTailIsABreakThroughTheHead) {
    actionhost::testing::TempDir t;
    write_chain(t.path(), 4);
    auto lines = lines_of(first_segment(t.path()));
    lines.pop_back();
    put_lines(first_segment(t.path()), lines);
    EXPECT_NE(broken(t.path()).find("entries were cut from the end"), std::string::npos) << broken(t.path());
    // Cut mid-line: a partial line.
    spit(first_segment(t.path()), slurp(first_segment(t.path())).substr(0, 300));
    EXPECT_NE(broken(t.path()).find("partial line"), std::string::npos) << broken(t.path());
}

TEST(AuditChain, AnEmptiedOrRemovedLogIsABreak) {
    actionhost::testing::TempDir t;
    write_chain(t.path(), 2);
    spit(first_segment(t.path()), "");
    EXPECT_FALSE(broken(t.path()).empty());
    std::filesystem::remove(first_segment(t.path()));
    EXPECT_NE(broken(t.path()).find("no segment"), std::string::npos) << broken(t.path());
}

TEST(AuditChain, AForgedLineAppendedWithAValidHashIsPastTheHead) {
    actionhost::testing::TempDir t;
    write_chain(t.path(), 3);
    auto entries = audit::read_entries(t.path()).value();
    const std::string body = actionhost::common::dump_json(
        json{{"kind", "action"}, {"prev", entries.back().hash}, {"record", {{"event", "started"}, {"action", "forged"}}}, {"seq", 4}, {"time", 9.0}});
    auto lines = lines_of(first_segment(t.path()));
    lines.push_back("{\"hash\":\"" + actionhost::common::sha256_hex(body) + "\",\"entry\":" + body + "}");
    put_lines(first_segment(t.path()), lines);
    EXPECT_NE(broken(t.path()).find("past the head"), std::string::npos) << broken(t.path());
}

TEST(AuditChain, RotationKeepsTheChainVerifiableAndDeclaresWhatItDropped) {
    actionhost::testing::TempDir t;
    write_chain(t.path(), 60, audit::Limits{1024, 3});
    const auto segments = std::distance(std::filesystem::directory_iterator(t.path()), std::filesystem::directory_iterator{});
    EXPECT_EQ(segments, 4);  // 3 segments and the head
    auto v = audit::verify(t.path());
    ASSERT_TRUE(v) << v.error().message;
    EXPECT_GT(v.value().first_segment, 1u);
    EXPECT_GT(v.value().dropped_through_seq, 0u);
    EXPECT_EQ(v.value().first_seq, v.value().dropped_through_seq + 1);
    auto entries = audit::read_entries(t.path()).value();
    EXPECT_TRUE(std::any_of(entries.begin(), entries.end(), [](const audit::Entry &e) { return e.kind == "rotation"; }));
    // Every action entry written is still counted: the last seq is the 60 actions plus the rotations.
    EXPECT_GE(v.value().last_seq, 60u);
}

TEST(AuditChain, AKeptSegmentRemovedIsABreakEvenAtTheStart) {
    actionhost::testing::TempDir t;
    write_chain(t.path(), 60, audit::Limits{1024, 3});
    const unsigned first = audit::verify(t.path()).value().first_segment;
    std::filesystem::remove(t.path() + "/" + audit::segment_name(first + 1));
    EXPECT_NE(broken(t.path()).find("is missing"), std::string::npos) << broken(t.path());
    // The oldest kept removed too: what is left starts where no rotation declared a drop.
    std::filesystem::remove(t.path() + "/" + audit::segment_name(first));
    EXPECT_FALSE(broken(t.path()).empty());
}

TEST(AuditChain, TheOldestKeptSegmentRemovedAloneIsABreak) {
    actionhost::testing::TempDir t;
    write_chain(t.path(), 60, audit::Limits{1024, 3});
    const unsigned first = audit::verify(t.path()).value().first_segment;
    std::filesystem::remove(t.path() + "/" + audit::segment_name(first));
    EXPECT_NE(broken(t.path()).find("no rotation entry declares them dropped"), std::string::npos) << broken(t.path());
}

TEST(AuditChain, TheFirstSegmentCutFromTheStartIsABreak) {
    actionhost::testing::TempDir t;
    write_chain(t.path(), 4);
    auto lines = lines_of(first_segment(t.path()));
    lines.erase(lines.begin());
    put_lines(first_segment(t.path()), lines);
    EXPECT_NE(broken(t.path()).find("does not start here"), std::string::npos) << broken(t.path());
}

TEST(AuditChain, AFollowerSeesNewEntriesAcrossRotation) {
    actionhost::testing::TempDir t;
    auto w = audit::Writer::open(t.path(), audit::Limits{1024, 100});
    ASSERT_TRUE(w);
    audit::Follower f(t.path());
    std::vector<uint64_t> seen;
    auto collect = [&](const audit::Entry &e) { seen.push_back(e.seq); };
    for (int round = 0; round < 5; ++round) {
        for (int i = 0; i < 7; ++i) ASSERT_TRUE(w.value().append("action", json{{"pad", std::string(100, 'x')}}, 1.0));
        ASSERT_TRUE(f.poll(collect));
    }
    ASSERT_EQ(seen.size(), 35u);
    for (size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], i + 1);
    EXPECT_EQ(f.poll(collect).value(), 0u);
}

TEST(AuditChain, AnOversizedRecordIsReplacedByANote) {
    actionhost::testing::TempDir t;
    auto w = audit::Writer::open(t.path(), {});
    ASSERT_TRUE(w.value().append("action", json{{"big", std::string(audit::kMaxLineBytes, 'x')}}, 1.0));
    auto entries = audit::read_entries(t.path()).value();
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_TRUE(entries[0].record.contains("oversized"));
    EXPECT_TRUE(audit::verify(t.path()));
}

#include "protocol/message.hpp"

#include <chrono>
#include <ctime>

#include "actionhost/common/json_io.hpp"
#include "actionhost/common/random.hpp"

namespace actionhost::jupyter {

namespace {

std::string string_field(const nlohmann::json &obj, const char *key) {
    if (!obj.is_object()) return "";
    auto it = obj.find(key);
    if (it == obj.end() || !it->is_string()) return "";
    return it->get<std::string>();
}

std::string iso8601_now() {
    using namespace std::chrono;
    const auto now = system_clock::now();
    const std::time_t t = system_clock::to_time_t(now);
    const auto micros = duration_cast<microseconds>(now.time_since_epoch()).count() % 1000000;
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[64];
    const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    std::snprintf(buf + n, sizeof buf - n, ".%06lldZ", static_cast<long long>(micros));
    return buf;
}

// One JSON object frame. Objects only: the protocol has no other shape for these four parts.
common::Status parse_object(std::string_view frame, const char *what, nlohmann::json &out) {
    auto r = common::parse_json(frame);  // simdjson's speed on a cell's megabytes of output
    if (!r) return common::fail(std::string(what) + " is not valid JSON: " + r.error().message);
    if (!r.value().is_object()) return common::fail(std::string(what) + " is not a JSON object");
    out = std::move(r.value());
    return common::ok();
}

}  // namespace

std::string Message::msg_type() const { return string_field(header, "msg_type"); }
std::string Message::msg_id() const { return string_field(header, "msg_id"); }
std::string Message::parent_msg_id() const { return string_field(parent_header, "msg_id"); }

Message make_request(const ClientIdentity &who, std::string_view msg_type, nlohmann::json content) {
    Message m;
    m.header = {{"msg_id", common::random_hex(16)},
                {"session", who.session},
                {"username", who.username},
                {"date", iso8601_now()},
                {"msg_type", std::string(msg_type)},
                {"version", std::string(kProtocolVersion)}};
    m.content = std::move(content);
    return m;
}

std::vector<std::string> encode_message(const Message &msg, const HmacSigner &signer) {
    std::vector<std::string> frames = msg.identities;
    std::string header = common::dump_json(msg.header);
    std::string parent = common::dump_json(msg.parent_header);
    std::string metadata = common::dump_json(msg.metadata);
    std::string content = common::dump_json(msg.content);
    frames.emplace_back(kDelimiter);
    frames.push_back(signer.sign(header, parent, metadata, content));
    frames.push_back(std::move(header));
    frames.push_back(std::move(parent));
    frames.push_back(std::move(metadata));
    frames.push_back(std::move(content));
    for (const std::string &b : msg.buffers) frames.push_back(b);
    return frames;
}

common::Result<Message> decode_message(const std::vector<std::string_view> &frames, const HmacSigner &signer) {
    try {
        size_t delim = 0;
        while (delim < frames.size() && frames[delim] != kDelimiter) ++delim;
        if (delim == frames.size()) return common::fail("no <IDS|MSG> delimiter frame");
        if (frames.size() - delim < 6)
            return common::fail("too few frames after the delimiter (" + std::to_string(frames.size() - delim - 1) + ", need 5)");
        const std::string_view sig = frames[delim + 1], header = frames[delim + 2], parent = frames[delim + 3],
                               metadata = frames[delim + 4], content = frames[delim + 5];
        // Verify before parsing: a forged message costs one HMAC, never a JSON parse.
        if (!signer.verify(sig, header, parent, metadata, content)) return common::fail("bad signature");
        Message m;
        for (size_t i = 0; i < delim; ++i) m.identities.emplace_back(frames[i]);
        if (auto r = parse_object(header, "header", m.header); !r) return r.as_failure();
        if (auto r = parse_object(parent, "parent_header", m.parent_header); !r) return r.as_failure();
        if (auto r = parse_object(metadata, "metadata", m.metadata); !r) return r.as_failure();
        if (auto r = parse_object(content, "content", m.content); !r) return r.as_failure();
        for (const char *key : {"msg_id", "msg_type"}) {
            auto it = m.header.find(key);
            if (it == m.header.end() || !it->is_string()) return common::fail(std::string("header has no string \"") + key + "\"");
        }
        for (size_t i = delim + 6; i < frames.size(); ++i) m.buffers.emplace_back(frames[i]);
        return m;
    } catch (const std::exception &e) {  // allocation failure on a huge frame, or a library surprise
        return common::fail(std::string("cannot decode message: ") + e.what());
    }
}

}  // namespace actionhost::jupyter

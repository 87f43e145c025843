// Jupyter messages (messaging protocol 5.3) and their ZeroMQ wire form:
//   [identities..., "<IDS|MSG>", signature, header, parent_header, metadata, content, buffers...]
// decode_message() is the one entry point for bytes that came from a kernel: it never throws and never
// trusts a frame (missing delimiter, short message, bad signature, bad JSON, wrong types, deep nesting all
// come back as a DecodeError), so it can be fuzzed directly.
#pragma once

#include <actionhost/common/result.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/hmac_signer.hpp"

namespace actionhost::jupyter {

inline constexpr std::string_view kDelimiter = "<IDS|MSG>";
inline constexpr std::string_view kProtocolVersion = "5.3";

struct Message {
    std::vector<std::string> identities;  // routing prefix (iopub: the topic)
    nlohmann::json header = nlohmann::json::object();
    nlohmann::json parent_header = nlohmann::json::object();
    nlohmann::json metadata = nlohmann::json::object();
    nlohmann::json content = nlohmann::json::object();
    std::vector<std::string> buffers;

    // Fields every decoded message is guaranteed to have (decode_message checks their types).
    std::string msg_type() const;
    std::string msg_id() const;
    // parent_header.msg_id, or "" when the parent header is empty or has none.
    std::string parent_msg_id() const;
};

// Who we are to the kernel: one client session id and user name stamped into every header.
struct ClientIdentity {
    std::string session;   // random hex, stable for the life of one kernel connection
    std::string username;  // informational only
};

// A new request with a fresh msg_id, the given type and content, and an ISO 8601 UTC date.
Message make_request(const ClientIdentity &who, std::string_view msg_type, nlohmann::json content);

// The wire frames of `msg`, signed with `signer`.
std::vector<std::string> encode_message(const Message &msg, const HmacSigner &signer);

// Parses and verifies one multipart message, or says why the frames were refused. Never throws.
common::Result<Message> decode_message(const std::vector<std::string_view> &frames, const HmacSigner &signer);

}  // namespace actionhost::jupyter

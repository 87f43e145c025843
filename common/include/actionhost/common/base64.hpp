// Base64 both ways, whole strings, with Poco's coder (RFC 4648; the URL-safe alphabet where a peer asks
// for it), on one line. Header only: whoever includes it links Poco::Foundation. A stream that encodes as
// it goes (the file viewer's page) uses Poco::Base64Encoder itself.
//
// Threads: any.
#pragma once

#include <Poco/Base64Decoder.h>
#include <Poco/Base64Encoder.h>
#include <Poco/Exception.h>

#include <optional>
#include <sstream>
#include <string>
#include <string_view>

namespace actionhost::common {

inline std::string base64_encode(std::string_view bytes, bool url_alphabet = false) {
    std::ostringstream out;
    Poco::Base64Encoder encoder(out, url_alphabet ? Poco::BASE64_URL_ENCODING : 0);
    encoder.rdbuf()->setLineLength(0);
    encoder.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    encoder.close();
    return out.str();
}

// Nullopt when `text` is not base64 (a character outside the alphabet, a broken end).
inline std::optional<std::string> base64_decode(std::string_view text) {
    std::istringstream in{std::string(text)};
    Poco::Base64Decoder decoder(in);
    std::string out;
    try {
        char buf[4096];
        while (decoder.read(buf, sizeof buf) || decoder.gcount() > 0) out.append(buf, static_cast<size_t>(decoder.gcount()));
    } catch (const Poco::Exception &) {
        return std::nullopt;
    }
    if (decoder.bad()) return std::nullopt;
    return out;
}

}  // namespace actionhost::common

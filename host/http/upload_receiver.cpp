#include "http/upload_receiver.hpp"

#include <Poco/Net/HTMLForm.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/MessageHeader.h>
#include <Poco/Net/NameValueCollection.h>
#include <Poco/Net/PartHandler.h>
#include <unistd.h>

#include <fstream>
#include <actionhost/common/random.hpp>

namespace actionhost::host {

namespace {

std::string random_suffix() { return common::random_hex(8); }

// Thrown by the part handler at the size limit: parsing stops there instead of reading the rest of a body
// that may be gigabytes long (the endpoint then reads a little more and answers 413).
struct StopAtLimit {};

void drain(std::istream &stream) {
    char sink[8192];
    while (stream.read(sink, sizeof sink) || stream.gcount() > 0) {}
}

// Writes the first "file" part to a hidden temp file in the destination, counting bytes against a limit.
class UploadPartHandler : public Poco::Net::PartHandler {
  public:
    UploadPartHandler(const std::string &dir, uint64_t limit, ReceivedUpload &out) : dir_(dir), limit_(limit), out_(out) {}

    void handlePart(const Poco::Net::MessageHeader &header, std::istream &stream) override {
        std::string disposition;
        Poco::Net::NameValueCollection params;
        Poco::Net::MessageHeader::splitParameters(header.get("Content-Disposition", ""), disposition, params);
        if (params.get("name", "") != "file" || !out_.temp.empty()) return drain(stream);
        out_.filename = params.get("filename", "");
        out_.temp = dir_ + "/.ahupload-" + random_suffix() + ".part";
        std::ofstream file(out_.temp, std::ios::binary | std::ios::trunc);
        if (!file) {
            out_.error = "cannot write into " + dir_;
            return drain(stream);
        }
        char buf[65536];
        while (stream) {
            stream.read(buf, sizeof buf);
            const auto n = static_cast<uint64_t>(stream.gcount());
            if (n == 0) break;
            out_.size += n;
            if (out_.size > limit_) {
                out_.too_large = true;
                throw StopAtLimit{};
            }
            file.write(buf, static_cast<std::streamsize>(n));
        }
        if (!file) out_.error = "cannot write into " + dir_;
    }

  private:
    const std::string &dir_;
    uint64_t limit_;
    ReceivedUpload &out_;
};

}  // namespace

ReceivedUpload::~ReceivedUpload() {
    if (!kept && !temp.empty()) ::unlink(temp.c_str());
}

common::Status receive_upload(const std::string &content_type, std::istream &body, const std::string &dir, uint64_t limit,
                              ReceivedUpload &out) {
    UploadPartHandler part(dir, limit, out);
    try {
        // HTMLForm reads the boundary from a request's header: one that carries only the Content-Type.
        Poco::Net::HTTPRequest req(Poco::Net::HTTPRequest::HTTP_POST, "/", Poco::Net::HTTPMessage::HTTP_1_1);
        req.setContentType(content_type);
        Poco::Net::HTMLForm form;
        form.setFieldLimit(100);
        form.load(req, body, part);
    } catch (const StopAtLimit &) {
        return common::ok();  // a well-formed body; out.too_large says it was too large
    } catch (const std::exception &e) {
        return common::fail(std::string("bad multipart body: ") + e.what());
    }
    return common::ok();
}

}  // namespace actionhost::host

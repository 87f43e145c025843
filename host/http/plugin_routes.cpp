#include "http/plugin_routes.hpp"

#include <ostream>
#include <vector>

#include "http/body.hpp"
#include "http/responses.hpp"

namespace actionhost::host {
namespace {

// The route's handle failed or answered nothing: its set_error text (set_error(host, NULL, ...) during
// handle) goes into the log line and the 500's detail.
void report_no_reply(ApiContext &ctx, PluginModule &owner, Response &resp, const std::string &path) {
    const std::string why = owner.take_error();
    ctx.env.log(AH_LOG_PLUGIN_MISBEHAVING, owner.manifest().name,
                "http route " + path + " failed to reply" + (why.empty() ? "" : ": " + why));
    if (!resp.sent())
        send_detail(resp, 500, "The " + owner.manifest().name + " plugin failed to answer " + path + (why.empty() ? "" : ": " + why));
}

void serve_buffered(ApiContext &ctx, PluginModule &owner, Request &req, Response &resp, const std::string &path,
                    const std::string &query, const std::string &body) {
    const std::string method = req.method();
    struct Reply {
        ah_http_reply_t c;
        bool sent = false;
        int status = 500;
        std::string type, body;
    } reply;
    reply.c.struct_size = sizeof(ah_http_reply_t);
    reply.c.reply_data = &reply;
    reply.c.send = [](ah_http_reply_t *r, int32_t status, const char *content_type, ah_bytes_t b) {
        auto *self = static_cast<Reply *>(r->reply_data);
        if (self->sent) return;
        self->sent = true;
        self->status = status;
        self->type = content_type ? content_type : "application/octet-stream";
        self->body.assign(b.ptr ? b.ptr : "", b.ptr ? b.len : 0);
    };
    ah_http_request_t r{sizeof(ah_http_request_t), method.c_str(), path.c_str(), query.c_str(),
                        ah_bytes_t{body.data(), body.size()}};
    const ah_status_t st = owner.handle_http(r, reply.c);
    if (st != AH_OK || !reply.sent) return report_no_reply(ctx, owner, resp, path);
    resp.send(reply.status, reply.type, reply.body);
}

// The state behind one ah_http_stream_reply_t: the response, and the stream once it is started.
struct StreamReply {
    ah_http_stream_reply_t c;
    Response *resp;
    std::ostream *out = nullptr;  // set by begin_stream
    bool answered = false;

    static StreamReply *self(ah_http_stream_reply_t *r) { return static_cast<StreamReply *>(r->reply_data); }

    static ah_status_t set_header(ah_http_stream_reply_t *r, const char *name, const char *value) {
        StreamReply *s = self(r);
        if (s->answered) return AH_ERR_STATE;
        if (name == nullptr || value == nullptr || *name == '\0') return AH_ERR_INVALID_ARGUMENT;
        // A name or value with CR, LF or another control character could split the response: refused.
        return s->resp->set_header(name, value) ? AH_OK : AH_ERR_INVALID_ARGUMENT;
    }
    static ah_status_t send(ah_http_stream_reply_t *r, int32_t status, const char *content_type, ah_bytes_t b) {
        StreamReply *s = self(r);
        if (s->answered) return AH_ERR_STATE;
        if (b.ptr == nullptr && b.len != 0) return AH_ERR_INVALID_ARGUMENT;
        s->answered = true;
        try {
            s->resp->send(status, content_type ? content_type : "", std::string_view(b.ptr ? b.ptr : "", b.len));
        } catch (const std::exception &) {
            return AH_ERR_IO;
        }
        return AH_OK;
    }
    static ah_status_t begin_stream(ah_http_stream_reply_t *r, int32_t status, const char *content_type) {
        StreamReply *s = self(r);
        if (s->answered) return AH_ERR_STATE;
        s->answered = true;
        try {
            s->out = &s->resp->begin_stream(status, content_type ? content_type : "");
            s->out->flush();
        } catch (const std::exception &) {
            return AH_ERR_IO;
        }
        return *s->out ? AH_OK : AH_ERR_IO;
    }
    static ah_status_t write(ah_http_stream_reply_t *r, ah_bytes_t chunk) {
        StreamReply *s = self(r);
        if (s->out == nullptr) return AH_ERR_STATE;
        if (chunk.ptr == nullptr && chunk.len != 0) return AH_ERR_INVALID_ARGUMENT;
        try {
            if (chunk.len > 0) s->out->write(chunk.ptr, static_cast<std::streamsize>(chunk.len));
            s->out->flush();
        } catch (const std::exception &) {
            return AH_ERR_IO;
        }
        return *s->out ? AH_OK : AH_ERR_IO;
    }
};

void serve_streamed(ApiContext &ctx, PluginModule &owner, Request &req, Response &resp, const std::string &path,
                    const std::string &query, const std::string &body) {
    const std::string method = req.method();
    const std::string remote = req.remote_address();
    const common::http::HeaderList header_text = req.headers();
    std::vector<ah_http_header_t> headers;
    headers.reserve(header_text.size());
    for (const auto &[name, value] : header_text) headers.push_back({name.c_str(), value.c_str()});

    StreamReply reply{};
    reply.c = {sizeof(ah_http_stream_reply_t), &reply, &StreamReply::set_header, &StreamReply::send,
               &StreamReply::begin_stream, &StreamReply::write};
    reply.resp = &resp;
    ah_http_stream_request_t r{sizeof(ah_http_stream_request_t), method.c_str(), path.c_str(), query.c_str(),
                               ah_bytes_t{body.data(), body.size()}, headers.data(), headers.size(), remote.c_str()};
    const ah_status_t st = owner.handle_http_stream(r, reply.c);
    if (!reply.answered || (st != AH_OK && reply.out == nullptr && !resp.sent())) return report_no_reply(ctx, owner, resp, path);
}

}  // namespace

void serve_plugin_route(ApiContext &ctx, PluginModule &owner, Request &req, Response &resp, const std::string &path,
                        const std::string &query) {
    const BodyText body = read_body(req, ctx.max_body_bytes);
    if (!body.text) return send_detail(resp, body.status, body.detail);
    if (owner.http_stream_routes() != nullptr) return serve_streamed(ctx, owner, req, resp, path, query, *body.text);
    serve_buffered(ctx, owner, req, resp, path, query, *body.text);
}

}  // namespace actionhost::host

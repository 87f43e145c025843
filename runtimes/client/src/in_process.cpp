#include "actionhost/client/in_process.hpp"

#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace actionhost::client {

namespace {

std::mutex g_mu;
std::map<std::string, const ah_ext_runtime_in_process_t *> g_attached;

std::string name_of(const std::string &url) {
    const std::string scheme = AH_IN_PROCESS_URL_SCHEME;
    if (url.rfind(scheme, 0) != 0 || url.size() == scheme.size())
        throw std::invalid_argument("not an in-process url: " + url);
    std::string name = url.substr(scheme.size());
    while (!name.empty() && name.back() == '/') name.pop_back();
    return name;
}

}  // namespace

void attach_in_process(const std::string &url, const ah_ext_runtime_in_process_t *ext) {
    if (!ext || ext->struct_size < sizeof(ah_ext_runtime_in_process_t) || !ext->handle || !ext->result_free)
        throw std::invalid_argument("the runtime's in-process extension is incomplete");
    std::lock_guard lock(g_mu);
    if (!g_attached.emplace(name_of(url), ext).second) throw std::invalid_argument("already attached: " + url);
}

void detach_in_process(const std::string &url) {
    std::lock_guard lock(g_mu);
    try {
        g_attached.erase(name_of(url));
    } catch (...) {
    }
}

HttpResponse send_in_process(const std::string &name, const std::string &path, const HttpRequest &request) {
    const ah_ext_runtime_in_process_t *ext = nullptr;
    {
        std::lock_guard lock(g_mu);
        auto it = g_attached.find(name);
        if (it != g_attached.end()) ext = it->second;
    }
    if (!ext) throw TransportError(TransportFailure::Refused, "no in-process runtime is attached as '" + name + "'");
    std::vector<std::string> lines;
    for (const auto &[k, v] : request.headers) lines.push_back(k + ": " + v);
    if (!request.content_type.empty()) lines.push_back("Content-Type: " + request.content_type);
    std::vector<const char *> headers;
    for (const auto &l : lines) headers.push_back(l.c_str());
    headers.push_back(nullptr);
    ah_http_call_t call{};
    call.struct_size = sizeof(call);
    call.method = request.method.c_str();
    call.url = path.c_str();
    call.headers = headers.data();
    call.body = {request.body.data(), request.body.size()};
    call.timeout_s = request.timeout_s;
    ah_http_result_t result{};
    result.struct_size = sizeof(result);
    const ah_status_t st = ext->handle(ext, &call, &result);
    HttpResponse out;
    if (st == AH_OK) {
        out.status = result.status;
        if (result.body.ptr) out.body.assign(result.body.ptr, result.body.len);
    }
    const std::string error = result.error ? result.error : "";
    ext->result_free(ext, &result);
    if (st != AH_OK || out.status == 0)
        throw TransportError(TransportFailure::Other, "the in-process runtime gave no answer: " + error);
    return out;
}

}  // namespace actionhost::client

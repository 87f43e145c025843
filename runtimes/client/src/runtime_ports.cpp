// Published ports of a connected runtime (actionhost.runtime_ports/1) and the web view's address.
#include <actionhost/ext/runtime_ports.h>

#include <actionhost/common/json_io.hpp>

#include <stdexcept>

#include "runtime_impl.hpp"

namespace actionhost::client {

namespace {

void check_port(int port, const char *name, bool zero_allowed) {
    if (port < (zero_allowed ? 0 : 1) || port > 65535)
        throw std::invalid_argument(std::string(name) + " must be " + (zero_allowed ? "0" : "1") + "..65535, not " + std::to_string(port));
}

}  // namespace

const ah_ext_runtime_ports_t &Runtime::Impl::ports_extension(const char *what) {
    if (!connected) throw RuntimeError(std::string(what) + " needs a connected runtime");
    const auto *ext = static_cast<const ah_ext_runtime_ports_t *>(runtime->get_extension(runtime, AH_EXT_RUNTIME_PORTS));
    if (ext == nullptr || ext->struct_size < sizeof(ah_ext_runtime_ports_t)) throw RuntimeError("Runtime " + runtime_name + " cannot publish ports");
    return *ext;
}

void Runtime::Impl::check_request(ah_status_t st, const char *what) {
    if (st == AH_ERR_INVALID_ARGUMENT) throw std::invalid_argument(take_error(what));
    check(st, what);
}

nlohmann::json Runtime::Impl::port_listing() {
    const auto &ext = ports_extension("listing published ports");
    char *text = nullptr;
    const ah_status_t st = ext.list(runtime, &text);
    const std::string json_text = take_string(ext, text);
    check(st, "list its published ports");
    auto parsed = common::parse_json(json_text);
    if (!parsed || !parsed.value().is_object()) throw RuntimeError("Runtime " + runtime_name + " listed its ports as something not JSON");
    return parsed.value();
}

std::string Runtime::publish_port(int port, int machine_port, const std::string &address) {
    Impl &s = *impl_;
    check_port(port, "the sandbox's port", false);
    check_port(machine_port, "the machine's port", true);
    const auto &ext = s.ports_extension("publishing a port");
    char *at = nullptr;
    const ah_status_t st = ext.publish(s.runtime, static_cast<uint16_t>(port), static_cast<uint16_t>(machine_port), address.c_str(), &at);
    const std::string where = s.take_string(ext, at);
    s.check_request(st, "publish a port");
    return where;
}

void Runtime::unpublish_port(int port) {
    Impl &s = *impl_;
    check_port(port, "the sandbox's port", false);
    const auto &ext = s.ports_extension("unpublishing a port");
    s.check_request(ext.unpublish(s.runtime, static_cast<uint16_t>(port)), "unpublish a port");
}

std::vector<PublishedPort> Runtime::published_ports() {
    std::vector<PublishedPort> out;
    for (const auto &p : impl_->port_listing().value("ports", nlohmann::json::array()))
        if (p.is_object()) out.push_back({p.value("port", 0), p.value("address", std::string())});
    return out;
}

std::string Runtime::http_url() {
    Impl &s = *impl_;
    if (!s.connected) throw RuntimeError("the host's HTTP address needs a connected runtime");
    if (s.url.rfind("http://", 0) == 0 || s.url.rfind("https://", 0) == 0)
        return s.url.back() == '/' ? s.url.substr(0, s.url.size() - 1) : s.url;
    // A host reached over a unix socket: its own port inside, published (once) on this machine's loopback.
    const nlohmann::json listing = s.port_listing();
    const int host_port = listing.value("host_port", 0);
    if (host_port <= 0) throw RuntimeError("Runtime " + s.runtime_name + " cannot publish its host's port on this machine");
    for (const auto &p : listing.value("ports", nlohmann::json::array()))
        if (p.is_object() && p.value("port", 0) == host_port) return "http://" + p.value("address", std::string());
    return "http://" + publish_port(host_port, 0, "127.0.0.1");
}

std::string Runtime::web_view_url() { return http_url() + "/ui"; }

}  // namespace actionhost::client

#include "actionhost/runtime_support/backend.hpp"

#include <actionhost/ext/runtime_lifetime.h>
#include <actionhost/ext/runtime_reclaim.h>
#include <actionhost/ext/runtime_recovery.h>
#include <actionhost/ext/runtime_network.h>
#include <actionhost/ext/runtime_ports.h>
#include <actionhost/ext/runtime_snapshot.h>

#include <cstdlib>
#include <cstring>

#include <nlohmann/json.hpp>
#include <actionhost/common/json_write.hpp>

namespace actionhost::runtime_support {

using nlohmann::json;

std::optional<std::string> Backend::config(const std::string &key) const {
    const char *v = host_->config_get(host_, key.c_str());
    if (!v) return std::nullopt;
    return std::string(v);
}

std::string Backend::config_string(const std::string &key, const std::string &fallback) const {
    return config(key).value_or(fallback);
}

bool Backend::config_bool(const std::string &key, bool fallback) const {
    auto v = config(key);
    if (!v) return fallback;
    return *v == "true" || *v == "1";
}

double Backend::config_number(const std::string &key, double fallback) const {
    auto v = config(key);
    if (!v) return fallback;
    try {
        return std::stod(*v);
    } catch (...) {
        return fallback;
    }
}

std::vector<std::string> Backend::host_args() const {
    std::vector<std::string> out;
    json a = json::parse(info().host_command_json ? info().host_command_json : "[]");
    for (const auto &v : a)
        if (v.is_string()) out.push_back(v.get<std::string>());
    return out;
}

std::vector<std::string> Backend::plugin_dirs() const {
    std::vector<std::string> args = host_args(), out;
    for (size_t i = 0; i + 1 < args.size(); ++i)
        if (args[i] == "--plugin-dir") out.push_back(args[++i]);
    return out;
}

std::map<std::string, std::string> Backend::host_env() const {
    std::map<std::string, std::string> out;
    json e = json::parse(info().env_json ? info().env_json : "{}");
    for (auto &[k, v] : e.items()) out[k] = v.is_string() ? v.get<std::string>() : actionhost::common::dump_json(v);
    return out;
}

void Backend::wait_alive(const std::string &url, const std::string &key, double timeout_s) const {
    ah_status_t st = host_->wait_alive(host_, url.c_str(), key.c_str(), timeout_s);
    if (st == AH_ERR_TIMEOUT)
        throw Timeout("the host at " + url + " did not answer /alive within " + std::to_string(static_cast<int>(timeout_s)) + " s");
    if (st != AH_OK) throw std::runtime_error("cannot poll " + url + "/alive");
}

namespace {

struct Wrapper {
    ah_runtime_t c{};
    const ah_runtime_host_t *host = nullptr;
    std::unique_ptr<Backend> backend;
    Endpoint endpoint;  // strings handed out by endpoint(), valid until the next call
};

Wrapper *wrapper_of(ah_runtime_t *rt) { return static_cast<Wrapper *>(rt->runtime_data); }

template <class F>
ah_status_t barrier(ah_runtime_t *rt, F &&f) {
    Wrapper *w = wrapper_of(rt);
    try {
        f(*w);
        return AH_OK;
    } catch (const Unsupported &e) {
        w->host->set_error(w->host, e.what());
        return AH_ERR_UNSUPPORTED;
    } catch (const Timeout &e) {
        w->host->set_error(w->host, e.what());
        return AH_ERR_TIMEOUT;
    } catch (const std::exception &e) {
        w->host->set_error(w->host, e.what());
        return AH_ERR_IO;
    } catch (...) {
        w->host->set_error(w->host, "unknown exception in runtime backend");
        return AH_ERR_INTERNAL;
    }
}

ah_status_t c_connect(ah_runtime_t *rt) { return barrier(rt, [](Wrapper &w) { w.backend->connect(); }); }
ah_status_t c_endpoint(ah_runtime_t *rt, ah_runtime_endpoint_t *out) {
    return barrier(rt, [out](Wrapper &w) {
        w.endpoint = w.backend->endpoint();
        if (!out) throw std::invalid_argument("endpoint: out is NULL");
        out->struct_size = sizeof(*out);
        out->url = w.endpoint.url.c_str();
        out->session_api_key = w.endpoint.session_api_key.c_str();
        out->runtime_id = w.endpoint.runtime_id.c_str();
    });
}
ah_status_t c_pause(ah_runtime_t *rt) { return barrier(rt, [](Wrapper &w) { w.backend->pause(); }); }
ah_status_t c_resume(ah_runtime_t *rt) { return barrier(rt, [](Wrapper &w) { w.backend->resume(); }); }
ah_status_t c_close(ah_runtime_t *rt) { return barrier(rt, [](Wrapper &w) { w.backend->close(); }); }
void c_destroy(ah_runtime_t *rt) {
    try {
        delete wrapper_of(rt);
    } catch (...) {
    }
}
int32_t c_on_sandbox_error(ah_runtime_t *rt, int32_t http_status) {
    Wrapper *w = wrapper_of(rt);
    try {
        return w->backend->on_sandbox_error(http_status);
    } catch (const std::exception &e) {
        w->host->set_error(w->host, e.what());
    } catch (...) {
        w->host->set_error(w->host, "unknown exception in runtime backend");
    }
    return AH_RECOVERY_DISCONNECTED;
}
const ah_ext_runtime_recovery_t kRecovery = {sizeof(ah_ext_runtime_recovery_t), c_on_sandbox_error};

int32_t c_exists(ah_runtime_t *rt) {
    Wrapper *w = wrapper_of(rt);
    try {
        return w->backend->sandbox_exists() ? 1 : 0;
    } catch (const std::exception &e) {
        w->host->set_error(w->host, e.what());
    } catch (...) {
    }
    return 0;
}
ah_status_t c_discard(ah_runtime_t *rt) { return barrier(rt, [](Wrapper &w) { w.backend->discard(); }); }
ah_status_t c_reclaim(ah_runtime_t *rt, uint32_t flags, ah_session_ended_fn ended, void *context) {
    return barrier(rt, [&](Wrapper &w) {
        w.backend->reclaim((flags & AH_RECLAIM_THOROUGH) != 0, [&](const std::string &sid) {
            if (ended) ended(context, sid.c_str());
        });
    });
}
const ah_ext_runtime_reclaim_t kReclaim = {sizeof(ah_ext_runtime_reclaim_t), c_exists, c_discard, c_reclaim};


void c_free_string(ah_runtime_t *, char *text) { std::free(text); }

// Copies `text` for the caller of the C ABI (freed with c_free_string).
void hand_out(const std::string &text, char **out) {
    *out = ::strdup(text.c_str());
    if (*out == nullptr) throw std::bad_alloc();
}

ah_status_t c_freeze_layer(ah_runtime_t *rt, char **out_json) {
    return barrier(rt, [out_json](Wrapper &w) {
        if (out_json == nullptr) throw std::invalid_argument("freeze_layer: out_json is NULL");
        *out_json = nullptr;
        hand_out(w.backend->freeze_layer(), out_json);
    });
}
ah_status_t c_thaw_layer(ah_runtime_t *rt) { return barrier(rt, [](Wrapper &w) { w.backend->thaw_layer(); }); }
const ah_ext_runtime_snapshot_t kSnapshot = {sizeof(ah_ext_runtime_snapshot_t), c_freeze_layer, c_thaw_layer, c_free_string};
// barrier for a request whose std::invalid_argument is the caller's mistake (a port already published).
template <class F>
ah_status_t request_barrier(ah_runtime_t *rt, F &&f) {
    ah_status_t invalid = AH_OK;
    const ah_status_t st = barrier(rt, [&](Wrapper &w) {
        try {
            f(w);
        } catch (const std::invalid_argument &e) {
            w.host->set_error(w.host, e.what());
            invalid = AH_ERR_INVALID_ARGUMENT;
        }
    });
    return invalid != AH_OK ? invalid : st;
}
ah_status_t c_publish(ah_runtime_t *rt, uint16_t port, uint16_t machine_port, const char *address, char **out_address) {
    return request_barrier(rt, [=](Wrapper &w) {
        if (out_address == nullptr) throw std::invalid_argument("publish: out_address is NULL");
        *out_address = nullptr;
        hand_out(w.backend->publish_port(port, machine_port, address ? address : ""), out_address);
    });
}
ah_status_t c_unpublish(ah_runtime_t *rt, uint16_t port) {
    return request_barrier(rt, [port](Wrapper &w) { w.backend->unpublish_port(port); });
}
ah_status_t c_list_ports(ah_runtime_t *rt, char **out_json) {
    return barrier(rt, [out_json](Wrapper &w) {
        if (out_json == nullptr) throw std::invalid_argument("list: out_json is NULL");
        *out_json = nullptr;
        hand_out(w.backend->published_ports(), out_json);
    });
}
const ah_ext_runtime_ports_t kPorts = {sizeof(ah_ext_runtime_ports_t), c_publish, c_unpublish, c_list_ports, c_free_string};

ah_status_t c_get_policy(ah_runtime_t *rt, char **out_json) {
    return barrier(rt, [out_json](Wrapper &w) {
        if (out_json == nullptr) throw std::invalid_argument("get_policy: out_json is NULL");
        *out_json = nullptr;
        hand_out(w.backend->network_policy(), out_json);
    });
}
ah_status_t c_change_policy(ah_runtime_t *rt, const char *change_json, char **out_json) {
    return request_barrier(rt, [=](Wrapper &w) {
        if (out_json == nullptr || change_json == nullptr) throw std::invalid_argument("change_policy: a NULL argument");
        *out_json = nullptr;
        hand_out(w.backend->change_network_policy(change_json), out_json);
    });
}
const ah_ext_runtime_network_t kNetwork = {sizeof(ah_ext_runtime_network_t), c_get_policy, c_change_policy, c_free_string};

ah_status_t c_lifetime(ah_runtime_t *rt, char **out_json) {
    return barrier(rt, [out_json](Wrapper &w) {
        if (out_json == nullptr) throw std::invalid_argument("lifetime: out_json is NULL");
        *out_json = nullptr;
        hand_out(w.backend->lifetime_state(), out_json);
    });
}
ah_status_t c_extend(ah_runtime_t *rt, int64_t seconds, char **out_json) {
    return request_barrier(rt, [=](Wrapper &w) {
        if (out_json == nullptr) throw std::invalid_argument("extend: out_json is NULL");
        *out_json = nullptr;
        hand_out(w.backend->extend_lifetime(seconds), out_json);
    });
}
const ah_ext_runtime_lifetime_t kLifetime = {sizeof(ah_ext_runtime_lifetime_t), c_lifetime, c_extend, c_free_string};

const void *c_get_extension(const ah_runtime_t *rt, const char *id) {
    if (!rt || !id) return nullptr;
    const Wrapper *w = static_cast<const Wrapper *>(rt->runtime_data);
    if (std::string(id) == AH_EXT_RUNTIME_RECOVERY && w->backend->handles_sandbox_errors()) return &kRecovery;
    if (std::string(id) == AH_EXT_RUNTIME_RECLAIM && w->backend->reclaims_sandboxes()) return &kReclaim;
    if (std::string(id) == AH_EXT_RUNTIME_SNAPSHOT && w->backend->takes_snapshots()) return &kSnapshot;
    if (std::string(id) == AH_EXT_RUNTIME_PORTS && w->backend->publishes_ports()) return &kPorts;
    if (std::string(id) == AH_EXT_RUNTIME_NETWORK && w->backend->has_network_policy()) return &kNetwork;
    if (std::string(id) == AH_EXT_RUNTIME_LIFETIME && w->backend->keeps_lifetime()) return &kLifetime;
    try {
        return w->backend->extension(id);
    } catch (...) {
        return nullptr;
    }
}

}  // namespace

ah_runtime_t *make_runtime(const ah_runtime_host_t *host, const char *runtime_name, BackendFactory factory) {
    if (!host) return nullptr;
    try {
        auto w = std::make_unique<Wrapper>();
        w->host = host;
        w->backend = factory(host, runtime_name ? runtime_name : "");
        if (!w->backend) {
            host->set_error(host, "runtime backend refused to create the runtime");
            return nullptr;
        }
        w->c.struct_size = sizeof(ah_runtime_t);
        w->c.runtime_data = w.get();
        w->c.connect = c_connect;
        w->c.endpoint = c_endpoint;
        w->c.pause = c_pause;
        w->c.resume = c_resume;
        w->c.close = c_close;
        w->c.destroy = c_destroy;
        w->c.get_extension = c_get_extension;
        return &w.release()->c;
    } catch (const std::exception &e) {
        host->set_error(host, e.what());
    } catch (...) {
        host->set_error(host, "unknown exception creating the runtime");
    }
    return nullptr;
}

void remove_flag(std::vector<std::string> &args, const std::string &flag) {
    for (size_t i = 0; i < args.size();) {
        if (args[i] == flag) {
            size_t end = i + 1;
            // --plugins takes several values: everything up to the next --flag.
            while (end < args.size() && args[end].rfind("--", 0) != 0) ++end;
            if (flag != "--plugins" && end > i + 2) end = i + 2;
            args.erase(args.begin() + static_cast<long>(i), args.begin() + static_cast<long>(end));
        } else {
            ++i;
        }
    }
}

void set_flag(std::vector<std::string> &args, const std::string &flag, const std::string &value) {
    remove_flag(args, flag);
    args.push_back(flag);
    args.push_back(value);
}

std::optional<std::string> flag_value(const std::vector<std::string> &args, const std::string &flag) {
    for (size_t i = 0; i + 1 < args.size(); ++i)
        if (args[i] == flag) return args[i + 1];
    return std::nullopt;
}

}  // namespace actionhost::runtime_support

#include "kubernetes_api_fake.hpp"

#include <Poco/DateTime.h>
#include <Poco/DateTimeFormat.h>
#include <Poco/DateTimeFormatter.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>

#include <actionhost/runtime_support/network_keys.hpp>

#include <chrono>
#include <filesystem>
#include <random>
#include <sstream>

namespace actionhost::testing {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

struct KubernetesApiFake::PodRun {
    int container = -1;
    std::string ip;
    Clock::time_point started;
    Clock::time_point next_probe;
    int successes = 0, failures = 0;
};

namespace {

struct Kind {
    const char *resource, *kind, *api_version;
};
const Kind kKinds[] = {{"pods", "Pod", "v1"},
                       {"services", "Service", "v1"},
                       {"persistentvolumeclaims", "PersistentVolumeClaim", "v1"},
                       {"ingresses", "Ingress", "networking.k8s.io/v1"},
                       {"networkpolicies", "NetworkPolicy", "networking.k8s.io/v1"}};

bool networking_group(const std::string &resource) { return resource == "ingresses" || resource == "networkpolicies"; }

const Kind *kind_of(const std::string &resource) {
    for (const auto &k : kKinds)
        if (resource == k.resource) return &k;
    return nullptr;
}

std::string now_rfc3339() { return Poco::DateTimeFormatter::format(Poco::DateTime(), Poco::DateTimeFormat::ISO8601_FORMAT); }

std::string uid() {
    std::random_device rd;
    std::ostringstream s;
    s << std::hex << rd() << "-" << (rd() & 0xffff) << "-" << (rd() & 0xffff) << "-" << rd();
    return s.str();
}

FakeResponse status_reply(int code, const std::string &reason, const std::string &message, const json &details = json::object()) {
    json s = {{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object()}, {"status", "Failure"},
              {"message", message}, {"reason", reason}, {"code", code}};
    if (!details.empty()) s["details"] = details;
    return FakeResponse::json(code, s);
}

bool labels_match(const json &obj, const std::string &selector) {
    if (selector.empty()) return true;
    json labels = obj["metadata"].value("labels", json::object());
    std::istringstream in(selector);
    for (std::string term; std::getline(in, term, ',');) {
        auto eq = term.find('=');
        if (eq == std::string::npos) return false;
        std::string k = term.substr(0, eq), v = term.substr(term[eq + 1] == '=' ? eq + 2 : eq + 1);
        if (labels.value(k, "") != v) return false;
    }
    return true;
}

std::string expand(const std::string &text, const std::map<std::string, std::string> &env) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '$' && i + 1 < text.size() && text[i + 1] == '$') {
            out += '$';
            ++i;
        } else if (text[i] == '$' && i + 1 < text.size() && text[i + 1] == '(') {
            auto close = text.find(')', i);
            std::string name = close == std::string::npos ? "" : text.substr(i + 2, close - i - 2);
            auto it = env.find(name);
            if (close != std::string::npos && it != env.end()) {
                out += it->second;
                i = close;
            } else {
                out += text[i];  // unresolved references stay as written, as the kubelet leaves them
            }
        } else {
            out += text[i];
        }
    }
    return out;
}

// A NetworkPolicy's spec as the API server's validation checks it (networking/validation): policy
// types, each peer one ipBlock or selectors, an ipBlock's cidr a CIDR and each except a strict subset of
// it, ports of TCP/UDP/SCTP 1-65535. Both egress and ingress rules are checked the same way.
std::string validate_network_policy(const json &spec) {
    using actionhost::runtime_support::parse_cidr;
    if (!spec.contains("podSelector") || !spec["podSelector"].is_object()) return "spec.podSelector: Required value";
    for (const auto &t : spec.value("policyTypes", json::array()))
        if (t != "Ingress" && t != "Egress") return "spec.policyTypes: Unsupported value: " + t.dump();
    for (const char *direction : {"egress", "ingress"}) {
        const std::string peers_key = std::string(direction) == "egress" ? "to" : "from";
        for (const auto &rule : spec.value(direction, json::array())) {
            const std::string at = std::string("spec.") + direction + "[]";
            for (const auto &peer : rule.value(peers_key, json::array())) {
                const bool selectors = peer.contains("podSelector") || peer.contains("namespaceSelector");
                if (peer.contains("ipBlock") == selectors) return at + "." + peers_key + ": Invalid value: must specify exactly one of ipBlock or selectors";
                if (!peer.contains("ipBlock")) continue;
                const std::string cidr = peer["ipBlock"].value("cidr", "");
                const auto block = parse_cidr(cidr);
                if (!block || cidr.find('/') == std::string::npos) return at + ".ipBlock.cidr: Invalid value: \"" + cidr + "\"";
                for (const auto &e : peer["ipBlock"].value("except", json::array())) {
                    const std::string text = e.is_string() ? e.get<std::string>() : e.dump();
                    const auto inner = parse_cidr(text);
                    if (!inner || text.find('/') == std::string::npos) return at + ".ipBlock.except: Invalid value: \"" + text + "\"";
                    if (!block->contains(*inner) || *inner == *block)
                        return at + ".ipBlock.except: Invalid value: \"" + text + "\": must be a strict subset of `cidr`";
                }
            }
            for (const auto &port : rule.value("ports", json::array())) {
                const std::string protocol = port.value("protocol", "TCP");
                if (protocol != "TCP" && protocol != "UDP" && protocol != "SCTP") return at + ".ports.protocol: Unsupported value: \"" + protocol + "\"";
                if (port.contains("port") && port["port"].is_number() && (port["port"] < 1 || port["port"] > 65535))
                    return at + ".ports.port: Invalid value: must be between 1 and 65535";
            }
        }
    }
    return "";
}

std::string validate(const std::string &resource, const json &o) {
    const json &spec = o.value("spec", json::object());
    if (resource == "pods") {
        if (!spec.contains("containers") || !spec["containers"].is_array() || spec["containers"].empty())
            return "spec.containers: Required value";
        for (const auto &c : spec["containers"]) {
            if (c.value("name", "").empty()) return "spec.containers[0].name: Required value";
            if (c.value("image", "").empty()) return "spec.containers[0].image: Required value";
        }
        if (spec.contains("activeDeadlineSeconds") &&
            (!spec["activeDeadlineSeconds"].is_number_integer() || spec["activeDeadlineSeconds"].get<long long>() < 1))
            return "spec.activeDeadlineSeconds: Invalid value: must be greater than or equal to 1";
    } else if (resource == "services") {
        if (!spec.contains("ports") || spec["ports"].empty()) return "spec.ports: Required value";
    } else if (resource == "persistentvolumeclaims") {
        if (!spec.contains("accessModes") || spec["accessModes"].empty()) return "spec.accessModes: Required value";
        if (spec.value("resources", json::object()).value("requests", json::object()).value("storage", "").empty())
            return "spec.resources[storage]: Required value";
    } else if (resource == "ingresses") {
        if (!spec.contains("rules") && !spec.contains("defaultBackend")) return "spec: must specify a defaultBackend or at least one rule";
    } else if (resource == "networkpolicies") {
        return validate_network_policy(spec);
    }
    return "";
}

}  // namespace

KubernetesApiFake::KubernetesApiFake(Options options) : options_(std::move(options)) {
    std::optional<TlsServerFiles> tls;
    if (options_.tls) {
        tls = options_.tls->server_files();
        if (options_.client_ca) tls->client_ca_file = options_.client_ca->ca_cert_file();
    }
    server_ = std::make_unique<FakeHttpServer>([this](const FakeRequest &r) { return handle(r); }, tls);
    kubelet_ = std::thread([this] { kubelet_loop(); });
}

KubernetesApiFake::~KubernetesApiFake() {
    server_.reset();
    stopping_ = true;
    kubelet_.join();
}

void KubernetesApiFake::add_image(const std::string &name, const std::string &install_dir) {
    node_.add_image(name, FakeImage{{{"/openhands/actionhost", install_dir}}});
}

void KubernetesApiFake::fail_next(const std::string &prefix, int code, const std::string &reason, int times) {
    std::lock_guard lock(mutex_);
    faults_.push_back({prefix, reason, code, times});
}

json KubernetesApiFake::object(const std::string &resource, const std::string &ns, const std::string &name) const {
    std::lock_guard lock(mutex_);
    auto it = objects_.find(resource + "/" + ns + "/" + name);
    return it == objects_.end() ? json() : it->second;
}

json KubernetesApiFake::created_body(const std::string &resource, const std::string &name) const {
    std::lock_guard lock(mutex_);
    auto it = created_.find(resource + "/" + name);
    return it == created_.end() ? json() : it->second;
}

std::vector<std::string> KubernetesApiFake::leftovers() {
    std::vector<std::string> out;
    std::map<std::string, std::shared_ptr<PodRun>> runs;
    {
        std::lock_guard lock(mutex_);
        for (const auto &[k, v] : objects_) out.push_back(k);
        runs = runs_;
    }
    for (const auto &[k, run] : runs)
        if (node_.running(run->container)) out.push_back("process " + k);
    return out;
}

std::vector<std::string> KubernetesApiFake::calls() const {
    std::lock_guard lock(mutex_);
    return calls_;
}

int KubernetesApiFake::unauthorized_calls() const {
    std::lock_guard lock(mutex_);
    return unauthorized_;
}

FakeResponse KubernetesApiFake::handle(const FakeRequest &r) {
    std::lock_guard lock(mutex_);
    std::string call = r.method + " " + r.path;
    calls_.push_back(call);
    std::string auth = r.header("authorization");
    auto space = auth.find(' ');
    std::string scheme = auth.substr(0, space);
    for (auto &c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    // A verified client certificate is the user (its CN); the fake's TLS layer refused any other.
    const bool by_certificate = !r.client_common_name.empty();
    if (!by_certificate && (space == std::string::npos || scheme != "bearer" || auth.substr(space + 1) != options_.token)) {
        ++unauthorized_;
        return status_reply(401, "Unauthorized", "Unauthorized");
    }
    for (auto &f : faults_) {
        if (f.times > 0 && call.rfind(f.prefix, 0) == 0) {
            --f.times;
            return status_reply(f.code, f.reason, "injected " + f.reason);
        }
    }
    // /api/v1/namespaces/{ns}/{resource}[/{name}] or /apis/networking.k8s.io/v1/namespaces/{ns}/ingresses[/{name}]
    std::vector<std::string> seg;
    std::istringstream in(r.path);
    for (std::string s; std::getline(in, s, '/');)
        if (!s.empty()) seg.push_back(s);
    size_t base = 0;
    if (seg.size() >= 2 && seg[0] == "api" && seg[1] == "v1") base = 2;
    else if (seg.size() >= 3 && seg[0] == "apis" && seg[1] == "networking.k8s.io" && seg[2] == "v1") base = 3;
    if (base == 0 || seg.size() < base + 3 || seg.size() > base + 4 || seg[base] != "namespaces")
        return status_reply(404, "NotFound", "the server could not find the requested resource");
    std::string ns = seg[base + 1], resource = seg[base + 2], name = seg.size() == base + 4 ? seg[base + 3] : "";
    const Kind *kind = kind_of(resource);
    if (!kind || networking_group(resource) != (base == 3)) return status_reply(404, "NotFound", "the server could not find the requested resource");
    std::string key = resource + "/" + ns + "/" + name;
    json details = {{"name", name}, {"kind", resource}};

    if (r.method == "POST" && name.empty()) {
        json o = json::parse(r.body, nullptr, false);
        if (!o.is_object()) return status_reply(400, "BadRequest", "the body of the request was in an unknown format");
        if (o.contains("kind") && o["kind"] != kind->kind)
            return status_reply(400, "BadRequest", "the API version in the data (" + o.value("apiVersion", "") + ") does not match the expected API version (" + kind->api_version + ")");
        name = o.value("metadata", json::object()).value("name", "");
        if (name.empty()) return status_reply(422, "Invalid", std::string(kind->kind) + " \"\" is invalid: metadata.name: Required value", {{"kind", resource}});
        key = resource + "/" + ns + "/" + name;
        details["name"] = name;
        if (std::string why = validate(resource, o); !why.empty())
            return status_reply(422, "Invalid", std::string(kind->kind) + " \"" + name + "\" is invalid: " + why, details);
        if (objects_.count(key)) return status_reply(409, "AlreadyExists", resource + " \"" + name + "\" already exists", details);
        created_[resource + "/" + name] = o;
        o["kind"] = kind->kind;
        o["apiVersion"] = kind->api_version;
        o["metadata"]["namespace"] = ns;
        o["metadata"]["uid"] = uid();
        o["metadata"]["resourceVersion"] = std::to_string(++resource_version_);
        o["metadata"]["creationTimestamp"] = now_rfc3339();
        if (resource == "pods")
            o["status"] = {{"phase", "Pending"}, {"conditions", json::array({{{"type", "PodScheduled"}, {"status", "True"}}})}};
        if (resource == "persistentvolumeclaims") o["status"] = {{"phase", "Bound"}, {"accessModes", o["spec"]["accessModes"]}};
        if (resource == "services") o["spec"]["clusterIP"] = "10.96." + std::to_string(resource_version_ % 250) + ".10";
        objects_[key] = o;
        return FakeResponse::json(201, o);
    }
    if (r.method == "GET" && name.empty()) {
        json items = json::array();
        std::string prefix = resource + "/" + ns + "/";
        std::string selector = r.params.count("labelSelector") ? r.params.at("labelSelector") : "";
        for (const auto &[k, v] : objects_)
            if (k.rfind(prefix, 0) == 0 && labels_match(v, selector)) items.push_back(v);
        return FakeResponse::json(200, {{"kind", std::string(kind->kind) + "List"}, {"apiVersion", kind->api_version},
                                        {"metadata", {{"resourceVersion", std::to_string(resource_version_)}}}, {"items", items}});
    }
    auto it = objects_.find(key);
    if (it == objects_.end()) return status_reply(404, "NotFound", resource + " \"" + name + "\" not found", details);
    if (r.method == "GET") return FakeResponse::json(200, it->second);
    if (r.method == "DELETE") {
        json &o = it->second;
        if (resource == "pods") {
            if (!o["metadata"].contains("deletionTimestamp")) {
                o["metadata"]["deletionTimestamp"] = now_rfc3339();
                o["metadata"]["deletionGracePeriodSeconds"] = 30;
                o["metadata"]["resourceVersion"] = std::to_string(++resource_version_);
            }
            return FakeResponse::json(200, o);
        }
        if (resource == "persistentvolumeclaims") {
            bool in_use = false;
            for (const auto &[k, pod] : objects_) {
                if (k.rfind("pods/" + ns + "/", 0) != 0) continue;
                for (const auto &v : pod["spec"].value("volumes", json::array()))
                    if (v.contains("persistentVolumeClaim") && v["persistentVolumeClaim"].value("claimName", "") == name) in_use = true;
            }
            if (in_use) {
                o["metadata"]["deletionTimestamp"] = now_rfc3339();
                o["metadata"]["finalizers"] = json::array({"kubernetes.io/pvc-protection"});
                o["status"]["phase"] = "Terminating";
                return FakeResponse::json(200, o);
            }
        }
        json gone = o;
        objects_.erase(it);
        if (resource == "ingresses")
            return FakeResponse::json(200, {{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object()}, {"status", "Success"},
                                            {"details", {{"name", name}, {"group", "networking.k8s.io"}, {"kind", "ingresses"},
                                                         {"uid", gone["metadata"].value("uid", "")}}}});
        return FakeResponse::json(200, gone);
    }
    return status_reply(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
}

void KubernetesApiFake::kubelet_loop() {
    for (int i = 0; i < 100000000 && !stopping_; ++i) {
        kubelet_step();
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    // Whatever still runs stops with the fake.
    std::map<std::string, std::shared_ptr<PodRun>> runs;
    {
        std::lock_guard lock(mutex_);
        runs = runs_;
    }
    for (auto &[k, run] : runs) node_.stop(run->container);
}

namespace {

// GET http://ip:port/path within timeout: true on 2xx/3xx, as the kubelet's httpGet probe.
bool probe(const std::string &ip, int port, const std::string &path, int timeout_s) {
    try {
        Poco::Net::HTTPClientSession s(ip, static_cast<Poco::UInt16>(port));
        s.setTimeout(Poco::Timespan(timeout_s, 0));
        Poco::Net::HTTPRequest req("GET", path, Poco::Net::HTTPMessage::HTTP_1_1);
        s.sendRequest(req);
        Poco::Net::HTTPResponse resp;
        s.receiveResponse(resp);
        return resp.getStatus() >= 200 && resp.getStatus() < 400;
    } catch (...) {
        return false;
    }
}

void set_condition(json &pod, const std::string &type, bool value) {
    json &conds = pod["status"]["conditions"];
    for (auto &c : conds)
        if (c["type"] == type) {
            c["status"] = value ? "True" : "False";
            return;
        }
    conds.push_back({{"type", type}, {"status", value ? "True" : "False"}});
}

int port_number(const json &container, const json &port) {
    if (port.is_number()) return port.get<int>();
    for (const auto &p : container.value("ports", json::array()))
        if (p.value("name", "") == port) return p.value("containerPort", 0);
    return 0;
}

}  // namespace

namespace {

// Whether a pod's spec.activeDeadlineSeconds has passed since it started.
bool deadline_passed(const json &pod, Clock::time_point started) {
    const json deadline = pod["spec"].value("activeDeadlineSeconds", json());
    return deadline.is_number_integer() && Clock::now() - started >= std::chrono::seconds(deadline.get<long long>());
}

}  // namespace

void KubernetesApiFake::kubelet_step() {
    // Work out what to do under the lock; start, stop and probe processes outside it.
    struct Todo {
        std::string key;
        json pod;
        std::shared_ptr<PodRun> run;
    };
    std::vector<Todo> todo;
    {
        std::lock_guard lock(mutex_);
        for (auto &[k, o] : objects_)
            if (k.rfind("pods/", 0) == 0) todo.push_back({k, o, runs_.count(k) ? runs_[k] : nullptr});
        // PVCs whose protection can go: no pod uses them any more.
        std::vector<std::string> released;
        for (auto &[k, o] : objects_) {
            if (k.rfind("persistentvolumeclaims/", 0) != 0 || !o["metadata"].contains("deletionTimestamp")) continue;
            std::string claim = o["metadata"].value("name", ""), ns = o["metadata"].value("namespace", "");
            bool in_use = false;
            for (const auto &[pk, pod] : objects_)
                if (pk.rfind("pods/" + ns + "/", 0) == 0)
                    for (const auto &v : pod["spec"].value("volumes", json::array()))
                        if (v.contains("persistentVolumeClaim") && v["persistentVolumeClaim"].value("claimName", "") == claim) in_use = true;
            if (!in_use) released.push_back(k);
        }
        for (const auto &k : released) objects_.erase(k);
    }
    for (auto &t : todo) {
        json &pod = t.pod;
        const json container = pod["spec"]["containers"][0];
        std::string ns = pod["metadata"].value("namespace", "default"), name = pod["metadata"].value("name", "");
        if (pod["metadata"].contains("deletionTimestamp")) {
            if (t.run) node_.stop(t.run->container);
            std::lock_guard lock(mutex_);
            objects_.erase(t.key);
            runs_.erase(t.key);
            continue;
        }
        std::string phase = pod["status"].value("phase", "");
        json update = pod["status"];
        if (phase == "Pending" && !t.run) {
            // Scheduling: every PVC must exist.
            std::string missing;
            {
                std::lock_guard lock(mutex_);
                for (const auto &v : pod["spec"].value("volumes", json::array()))
                    if (v.contains("persistentVolumeClaim")) {
                        std::string claim = v["persistentVolumeClaim"].value("claimName", "");
                        if (!objects_.count("persistentvolumeclaims/" + ns + "/" + claim)) missing = claim;
                    }
            }
            std::string image = container.value("image", "");
            if (!missing.empty()) {
                update["conditions"] = json::array({{{"type", "PodScheduled"}, {"status", "False"}, {"reason", "Unschedulable"},
                                                     {"message", "persistentvolumeclaim \"" + missing + "\" not found"}}});
            } else if (!node_.has_image(image)) {
                update["containerStatuses"] = json::array({{{"name", container.value("name", "")}, {"ready", false}, {"restartCount", 0}, {"image", image},
                                                            {"state", {{"waiting", {{"reason", "ErrImagePull"}, {"message", "pull access denied for " + image + ", repository does not exist"}}}}}}});
            } else {
                bool mounts_ok = true;
                for (const auto &m : container.value("volumeMounts", json::array()))
                    if (!std::filesystem::is_directory(m.value("mountPath", ""))) mounts_ok = false;
                if (!mounts_ok) {
                    update["containerStatuses"] = json::array({{{"name", container.value("name", "")}, {"ready", false}, {"restartCount", 0},
                                                                {"state", {{"waiting", {{"reason", "ContainerCreating"}, {"message", "a volumeMount's mountPath does not exist on the fake node"}}}}}}});
                } else {
                    auto run = std::make_shared<PodRun>();
                    int port = 8080;
                    if (container.contains("ports") && !container["ports"].empty()) port = container["ports"][0].value("containerPort", 8080);
                    run->ip = node_.allocate_ip(port);
                    std::map<std::string, std::string> env;
                    for (const auto &e : container.value("env", json::array())) {
                        std::string value = e.value("value", "");
                        if (e.contains("valueFrom")) {
                            std::string field = e["valueFrom"].value("fieldRef", json::object()).value("fieldPath", "");
                            if (field == "status.podIP") value = run->ip;
                            else if (field == "metadata.name") value = name;
                            else if (field == "metadata.namespace") value = ns;
                        }
                        env[e.value("name", "")] = expand(value, env);
                    }
                    ContainerSpec spec;
                    spec.image = image;
                    for (const char *part : {"command", "args"})
                        for (const auto &a : container.value(part, json::array())) spec.argv.push_back(expand(a.get<std::string>(), env));
                    spec.env = env;
                    spec.working_dir = container.value("workingDir", "/");
                    spec.ip = run->ip;
                    try {
                        run->container = node_.start(spec);
                        run->started = Clock::now();
                        int delay = container.value("readinessProbe", json::object()).value("initialDelaySeconds", 0);
                        run->next_probe = run->started + std::chrono::seconds(delay);
                        update["phase"] = "Running";
                        update["podIP"] = run->ip;
                        update["hostIP"] = "127.0.0.1";
                        update["startTime"] = now_rfc3339();
                        update["conditions"] = json::array({{{"type", "PodScheduled"}, {"status", "True"}}, {{"type", "Initialized"}, {"status", "True"}},
                                                            {{"type", "ContainersReady"}, {"status", "False"}}, {{"type", "Ready"}, {"status", "False"}}});
                        update["containerStatuses"] = json::array({{{"name", container.value("name", "")}, {"ready", false}, {"restartCount", 0}, {"image", image},
                                                                    {"state", {{"running", {{"startedAt", now_rfc3339()}}}}}}});
                        std::lock_guard lock(mutex_);
                        runs_[t.key] = run;
                    } catch (const std::exception &e) {
                        update["phase"] = "Failed";
                        update["containerStatuses"] = json::array({{{"name", container.value("name", "")}, {"ready", false},
                                                                    {"state", {{"terminated", {{"exitCode", 128}, {"reason", "StartError"}, {"message", e.what()}}}}}}});
                    }
                }
            }
        } else if (phase == "Running" && t.run && deadline_passed(pod, t.run->started)) {
            // activeDeadlineSeconds, counted from the pod's start: the kubelet kills its containers and
            // fails the pod (reason DeadlineExceeded); the object stays until someone deletes it.
            node_.stop(t.run->container);
            update["phase"] = "Failed";
            update["reason"] = "DeadlineExceeded";
            update["message"] = "Pod was active on the node longer than the specified deadline";
            update["containerStatuses"][0]["ready"] = false;
            update["containerStatuses"][0]["state"] = {{"terminated", {{"exitCode", 137}, {"reason", "Error"}}}};
            json p = pod;
            p["status"] = update;
            set_condition(p, "Ready", false);
            set_condition(p, "ContainersReady", false);
            update = p["status"];
        } else if (phase == "Running" && t.run) {
            if (auto code = node_.exit_code(t.run->container)) {
                update["phase"] = *code == 0 ? "Succeeded" : "Failed";
                update["containerStatuses"][0]["ready"] = false;
                update["containerStatuses"][0]["state"] = {{"terminated", {{"exitCode", *code}, {"reason", *code == 0 ? "Completed" : "Error"},
                                                                           {"message", node_.log_tail(t.run->container)}}}};
                json p = pod;
                p["status"] = update;
                set_condition(p, "Ready", false);
                set_condition(p, "ContainersReady", false);
                update = p["status"];
            } else if (container.contains("readinessProbe") && Clock::now() >= t.run->next_probe) {
                const json &rp = container["readinessProbe"];
                const json &get = rp.value("httpGet", json::object());
                bool ok = probe(t.run->ip, port_number(container, get.value("port", json(8080))), get.value("path", "/"), rp.value("timeoutSeconds", 1));
                if (ok) {
                    t.run->failures = 0;
                    ++t.run->successes;
                } else {
                    t.run->successes = 0;
                    ++t.run->failures;
                }
                json p = pod;
                bool was_ready = false;
                for (const auto &c : pod["status"].value("conditions", json::array()))
                    if (c["type"] == "Ready") was_ready = c["status"] == "True";
                bool ready = was_ready;
                if (t.run->successes >= rp.value("successThreshold", 1)) ready = true;
                if (t.run->failures >= rp.value("failureThreshold", 3)) ready = false;
                set_condition(p, "Ready", ready);
                set_condition(p, "ContainersReady", ready);
                p["status"]["containerStatuses"][0]["ready"] = ready;
                update = p["status"];
                t.run->next_probe = Clock::now() + std::chrono::seconds(std::max(1, rp.value("periodSeconds", 10)));
            } else if (!container.contains("readinessProbe")) {
                json p = pod;
                set_condition(p, "Ready", true);
                set_condition(p, "ContainersReady", true);
                update = p["status"];
            }
        }
        if (update != pod["status"]) {
            std::lock_guard lock(mutex_);
            auto it = objects_.find(t.key);
            if (it != objects_.end() && !it->second["metadata"].contains("deletionTimestamp")) {
                it->second["status"] = update;
                it->second["metadata"]["resourceVersion"] = std::to_string(++resource_version_);
            }
        }
    }
}

}  // namespace actionhost::testing

// `kubernetes`: the host in a pod, as OpenHands' KubernetesRuntime provisions it: PVC for the workspace,
// the pod with a readiness probe on /alive, two ClusterIP services and an ingress, all labelled with the
// session; attach when the pod exists; pause = delete the pod (PVC and services stay), resume = create it
// again; close deletes pod, services and ingress but keeps the PVC, as OpenHands does (the workspace
// survives the session; kubernetes.keep_pvc = false deletes it too), or nothing with keep_runtime_alive.
// The [sandbox] network keys become a NetworkPolicy of the pod, made before it and deleted with it
// (manifests.hpp, egress_plan). sandbox.lifetime is the pod's activeDeadlineSeconds: the kubelet ends
// the pod by itself; the session's next client starts a new pod on the kept workspace.
#include <actionhost/runtime_support/backend.hpp>
#include <actionhost/runtime_support/cloud_lifetime.hpp>
#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>
#include <thread>

#include <actionhost/common/json_write.hpp>

#include "cluster_access.hpp"
#include "kube_api.hpp"
#include "manifests.hpp"

namespace {

using namespace actionhost::runtime_support;
using namespace kube;
using nlohmann::json;

class KubernetesRuntime : public Backend {
  public:
    using Backend::Backend;
    ~KubernetesRuntime() override {
        // Destroyed after a failed connect or without close: remove what this client created.
        if (api_ && !pod_.empty() && !closed_ && !config_bool("sandbox.keep_runtime_alive", false)) {
            try {
                delete_all(true);
            } catch (...) {
            }
        }
    }

    void connect() override {
        status(AH_STATUS_STARTING_RUNTIME, "connecting to the Kubernetes API");
        spec_ = sandbox_spec();
        open_api();
        pod_ = pod_name(info().session_id);
        auto existing = api_->get("pods", pod_);
        if (existing && existing->value("metadata", json::object()).contains("deletionTimestamp")) {
            wait_gone("pods", pod_);  // a pod still terminating: start afresh once it is gone
            existing.reset();
        }
        if (existing && ended_by_deadline(*existing)) {
            // Its lifetime ran out: the session goes on in a new pod, on the workspace its PVC kept.
            status(AH_STATUS_STARTING_RUNTIME, "pod " + pod_ + " reached its activeDeadlineSeconds: starting a new one");
            delete_all(false);
            wait_gone("pods", pod_);
            existing.reset();
        }
        if (existing) {
            status(AH_STATUS_STARTING_RUNTIME, "attaching to pod " + pod_ + " in " + api_->ns());
            key_ = env_of(*existing, "SESSION_API_KEY");
            spec_.env["SESSION_API_KEY"] = key_;  // a pod re-made by resume keeps the key the host has
            wait_ready();
            status(AH_STATUS_RUNTIME_STARTED, url_);
            return;
        }
        try {
            create_all();
            wait_ready();
        } catch (...) {
            try {
                delete_all(true);  // a sandbox that never became ready leaves nothing behind
            } catch (const std::exception &e) {
                log(AH_LOG_WARNING, std::string("cleanup after a failed start: ") + e.what());
            }
            pod_.clear();
            throw;
        }
        status(AH_STATUS_RUNTIME_STARTED, url_);
    }

    Endpoint endpoint() override { return {url_, key_, pod_}; }

    // Kubernetes has no pause: the pod goes, the PVC (the workspace) and the services stay.
    void pause() override {
        api_->remove("pods", pod_);
        wait_gone("pods", pod_);
    }
    void resume() override {
        if (!api_->get("pods", pod_)) api_->create("pods", pod_manifest(spec_));
        wait_ready();
    }

    // The pod's activeDeadlineSeconds, counted from its status.startTime, connected or for the session's
    // kept pod. Kubernetes lets a running pod's deadline be shortened only, never moved later.
    bool keeps_lifetime() const override { return true; }
    std::string lifetime_state() override {
        if (!api_) open_api();
        const std::string name = pod_.empty() ? pod_name(info().session_id) : pod_;
        auto pod = api_->get("pods", name);
        if (!pod) throw std::runtime_error("no pod " + name + " (paused or gone)");
        if (ended_by_deadline(*pod)) throw std::runtime_error("pod " + name + " has ended: DeadlineExceeded (sandbox.lifetime)");
        KeptLifetime k;
        const json deadline = (*pod)["spec"].value("activeDeadlineSeconds", json());
        if (deadline.is_number_integer()) {
            k.lifetime_s = deadline.get<double>();
            k.started_at = start_time_of(*pod).value_or(unix_now());  // not started yet: its clock has not begun
        }
        return actionhost::common::dump_json(kept_lifetime_json(k, unix_now()));
    }
    std::string extend_lifetime(long long) override {
        throw Unsupported("Kubernetes cannot extend a pod's lifetime: a running pod's activeDeadlineSeconds may only be shortened");
    }

    void close() override {
        if (!api_ || pod_.empty() || closed_) return;
        closed_ = true;
        if (config_bool("sandbox.keep_runtime_alive", false)) return;
        delete_all(!config_bool("kubernetes.keep_pvc", true));
    }

  private:
    SandboxSpec sandbox_spec() {
        SandboxSpec s;
        s.session_id = info().session_id;
        s.image = config_string("sandbox.runtime_container_image", "");
        if (s.image.empty()) s.image = config_string("sandbox.base_container_image", "");
        if (s.image.empty()) throw std::runtime_error("no image: set sandbox.runtime_container_image or sandbox.base_container_image");
        s.workspace = config_string("core.workspace_mount_path_in_sandbox", "/workspace");
        s.command = {config_string("kubernetes.actionhost_path", "/openhands/actionhost/bin/actionhost"), std::to_string(kServerPort)};
        for (const auto &a : host_args()) s.command.push_back(a);
        s.command.push_back("--host");
        s.command.push_back("$(POD_IP)");
        s.env = host_env();
        s.env["port"] = std::to_string(kServerPort);
        s.env["PYTHONUNBUFFERED"] = "1";
        s.env["VSCODE_PORT"] = std::to_string(kVscodePort);
        s.env["OPENHANDS_SESSION_ID"] = info().session_id;
        if (config_bool("core.debug", false)) s.env["DEBUG"] = "true";
        key_ = s.env["SESSION_API_KEY"];
        s.ingress_domain = config_string("kubernetes.ingress_domain", s.ingress_domain);
        s.pvc_storage_size = config_string("kubernetes.pvc_storage_size", s.pvc_storage_size);
        s.pvc_storage_class = config_string("kubernetes.pvc_storage_class", "");
        s.cpu_request = config_string("kubernetes.resource_cpu_request", s.cpu_request);
        s.memory_request = config_string("kubernetes.resource_memory_request", s.memory_request);
        s.memory_limit = config_string("kubernetes.resource_memory_limit", s.memory_limit);
        s.image_pull_secret = config_string("kubernetes.image_pull_secret", "");
        s.ingress_tls_secret = config_string("kubernetes.ingress_tls_secret", "");
        s.node_selector_key = config_string("kubernetes.node_selector_key", "");
        s.node_selector_val = config_string("kubernetes.node_selector_val", "");
        if (auto y = config("kubernetes.tolerations_yaml"); y && !y->empty()) s.tolerations = tolerations_from_yaml(*y);
        s.privileged = config_bool("kubernetes.privileged", false);
        s.readiness_initial_delay_s = static_cast<int>(config_number("kubernetes.readiness_initial_delay_s", 0));
        s.readiness_period_s = std::max(1, static_cast<int>(config_number("kubernetes.readiness_period_s", 1)));
        try {
            EgressPlan plan = egress_plan(config("sandbox.network"), config("sandbox.allow_out"), config("sandbox.deny_out"), config("sandbox.dns"));
            s.egress = std::move(plan.egress);
            s.dns = std::move(plan.dns);
            if (!plan.note.empty()) log(AH_LOG_INFO, plan.note);
        } catch (const std::invalid_argument &e) {
            throw Unsupported(e.what());
        }
        // Kubernetes keeps a pod's lifetime (activeDeadlineSeconds), never an idle timer: the manifest
        // refuses idle_timeout and idle_action.
        const LifetimeRequest life = lifetime_request([this](const std::string &key) { return config(key); });
        if (life.idle_timeout_s > 0) throw Unsupported("Kubernetes has no idle timeout for a pod: leave sandbox.idle_timeout unset");
        if (life.lifetime_s > 0) s.active_deadline_s = life.lifetime_s;
        pod_name(s.session_id);  // refuses a session id that cannot name a pod, before any call
        return s;
    }

    static bool ended_by_deadline(const json &pod) {
        const json st = pod.value("status", json::object());
        return st.value("phase", "") == "Failed" && st.value("reason", "") == "DeadlineExceeded";
    }

    // status.startTime (RFC 3339, UTC) as Unix seconds.
    static std::optional<double> start_time_of(const json &pod) {
        const std::string t = pod.value("status", json::object()).value("startTime", "");
        std::tm tm{};
        if (t.empty() || !strptime(t.c_str(), "%Y-%m-%dT%H:%M:%S", &tm)) return std::nullopt;
        return static_cast<double>(timegm(&tm));
    }

    void open_api() {
        AccessSettings a;
        a.kubeconfig = config_string("kubernetes.kubeconfig", "");
        a.context = config_string("kubernetes.context", "");
        a.service_account_dir = config_string("kubernetes.service_account_dir", a.service_account_dir);
        ClusterAccess access = resolve_cluster_access(a);
        std::string ns = config_string("kubernetes.namespace", "");
        if (ns.empty()) ns = access.namespace_.empty() ? "default" : access.namespace_;
        try {
            api_ = std::make_unique<KubeApi>(host(), access, ns);
        } catch (const std::invalid_argument &e) {
            throw std::runtime_error("Kubernetes API server of " + access.source + ": " + e.what());
        }
        log(AH_LOG_INFO, "Kubernetes API " + api_->server() + " (" + access.source + "), namespace " + ns);
    }

    void create_all() {
        status(AH_STATUS_STARTING_RUNTIME, "creating pod " + pod_ + " in namespace " + api_->ns());
        if (!api_->get("persistentvolumeclaims", pvc_name(pod_))) api_->create("persistentvolumeclaims", pvc_manifest(spec_));
        // Before the pod, so it never runs without its egress rules; kept over pause, like the services.
        if (spec_.egress && !api_->get("networkpolicies", network_policy_name(pod_)))
            api_->create("networkpolicies", network_policy_manifest(spec_));
        api_->create("pods", pod_manifest(spec_));
        api_->create("services", service_manifest(spec_, false));
        api_->create("services", service_manifest(spec_, true));
        api_->create("ingresses", ingress_manifest(spec_));
    }

    // Deletes every object of the sandbox; 404s are fine (already gone). Throws after trying them all.
    void delete_all(bool with_pvc) {
        std::string errors;
        std::vector<std::pair<std::string, std::string>> objects = {{"pods", pod_},
                                                                    {"services", service_name(pod_)},
                                                                    {"services", code_service_name(pod_)},
                                                                    {"ingresses", ingress_name(pod_)}};
        // The policy after the pod: the pod never runs without it. Only when this sandbox has one, so a
        // service account without rights on network policies can still close the others.
        if (spec_.egress) objects.push_back({"networkpolicies", network_policy_name(pod_)});
        if (with_pvc) objects.push_back({"persistentvolumeclaims", pvc_name(pod_)});
        for (const auto &[resource, name] : objects) {
            try {
                api_->remove(resource, name);
            } catch (const std::exception &e) {
                errors += std::string(errors.empty() ? "" : "; ") + e.what();
            }
        }
        if (!errors.empty()) throw std::runtime_error("could not delete every object of " + pod_ + ": " + errors);
    }

    static std::string env_of(const json &pod, const std::string &name) {
        try {
            for (const auto &e : pod["spec"]["containers"][0]["env"])
                if (e.value("name", "") == name) return e.value("value", "");
        } catch (...) {
        }
        return "";
    }

    // Polls the pod (0.1 s backing off to 2 s, OpenHands polls every 2 s) until phase Running with
    // condition Ready True, then /alive. Fails fast on Failed/Succeeded and on image or config errors.
    void wait_ready() {
        double timeout = config_number("kubernetes.ready_timeout_s", 300);
        auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
        double wait = 0.1;
        std::string last = "not created";
        for (int i = 0; i < 100000; ++i) {
            auto pod = api_->get("pods", pod_);
            if (pod) {
                const json &st = (*pod)["status"];
                std::string phase = st.value("phase", "");
                bool ready = false;
                if (st.contains("conditions"))
                    for (const auto &c : st["conditions"])
                        if (c.value("type", "") == "Ready") ready = c.value("status", "") == "True";
                if (phase == "Running" && ready) {
                    std::string ip = st.value("podIP", "");
                    url_ = config_string("kubernetes.connect_to", "service") == "pod_ip"
                               ? "http://" + ip + ":" + std::to_string(kServerPort)
                               : "http://" + service_name(pod_) + "." + api_->ns() + ".svc.cluster.local:" + std::to_string(kServerPort);
                    wait_alive(url_, key_, 60);
                    return;
                }
                std::string why = container_problem(st);
                if (phase == "Failed" || phase == "Succeeded")
                    throw std::runtime_error("pod " + pod_ + " ended (phase " + phase + ")" + (why.empty() ? "" : ": " + why));
                if (!why.empty() && why.find("waiting") == 0 && fatal_waiting(why)) throw std::runtime_error("pod " + pod_ + " cannot start: " + why);
                last = "phase " + phase + (ready ? "" : ", not Ready") + (why.empty() ? "" : ", " + why) + scheduling(st);
            }
            if (std::chrono::steady_clock::now() >= deadline)
                throw Timeout("pod " + pod_ + " was not ready within " + std::to_string(static_cast<int>(timeout)) +
                              " s (kubernetes.ready_timeout_s); last seen: " + last);
            std::this_thread::sleep_for(std::chrono::duration<double>(wait));
            wait = std::min(wait * 2, 2.0);
        }
    }

    static std::string container_problem(const json &st) {
        if (!st.contains("containerStatuses")) return "";
        for (const auto &c : st["containerStatuses"]) {
            const json &state = c.value("state", json::object());
            if (state.contains("waiting") && state["waiting"].contains("reason"))
                return "waiting: " + state["waiting"].value("reason", "") + " " + state["waiting"].value("message", "");
            if (state.contains("terminated"))
                return "terminated: exit code " + std::to_string(state["terminated"].value("exitCode", -1)) + " " +
                       state["terminated"].value("reason", "") + " " + state["terminated"].value("message", "");
        }
        return "";
    }
    static bool fatal_waiting(const std::string &why) {
        for (const char *r : {"ErrImagePull", "ImagePullBackOff", "InvalidImageName", "CreateContainerConfigError", "CrashLoopBackOff"})
            if (why.find(r) != std::string::npos) return true;
        return false;
    }
    static std::string scheduling(const json &st) {
        if (!st.contains("conditions")) return "";
        for (const auto &c : st["conditions"])
            if (c.value("type", "") == "PodScheduled" && c.value("status", "") == "False")
                return ", unschedulable: " + c.value("message", c.value("reason", ""));
        return "";
    }

    void wait_gone(const std::string &resource, const std::string &name) {
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
        double wait = 0.05;
        for (int i = 0; i < 100000; ++i) {
            if (!api_->get(resource, name)) return;
            if (std::chrono::steady_clock::now() >= deadline) throw Timeout(resource + " " + name + " still exists 120 s after its deletion");
            std::this_thread::sleep_for(std::chrono::duration<double>(wait));
            wait = std::min(wait * 2, 1.0);
        }
    }

    std::unique_ptr<KubeApi> api_;
    SandboxSpec spec_;
    std::string pod_, url_, key_;
    bool closed_ = false;
};

std::unique_ptr<Backend> create(const ah_runtime_host_t *host, const std::string &) {
    return std::make_unique<KubernetesRuntime>(host);
}

}  // namespace

ACTIONHOST_RUNTIME_MODULE("kubernetes", "0.1.0", create)

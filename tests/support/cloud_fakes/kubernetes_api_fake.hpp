// KubernetesApiFake: a local Kubernetes API server subset (what the kubernetes backend calls) with a kubelet
// that runs pods for real on a FakeNode.
//
// API: CoreV1 pods, services, persistentvolumeclaims (/api/v1/namespaces/{ns}/...) and NetworkingV1
// ingresses and networkpolicies (/apis/networking.k8s.io/v1/namespaces/{ns}/...; a NetworkPolicy is
// validated as the API server validates it, and stored: nothing here enforces it, as a cluster whose
// network plugin does not enforce policies would not): create (POST, 201 with kind,
// apiVersion, uid, resourceVersion, creationTimestamp filled; bodies may lack kind/apiVersion), get,
// list (labelSelector a=b,...), delete (200 with the object; a Status for ingresses). Errors are
// Status objects: 401 Unauthorized (no `Authorization: Bearer <token>`, scheme case-insensitive),
// 404 NotFound, 409 AlreadyExists, 422 Invalid, 400 BadRequest. HTTP, or HTTPS with a test CA.
// Kubelet (a thread, every 50 ms): a Pending pod whose PVCs exist and whose image is known starts
// (env incl. downward-API fieldRefs, $(VAR) expansion in command/args, its pod IP from the node);
// unknown image → waiting ErrImagePull; Running + the readinessProbe (httpGet, honouring
// initialDelaySeconds/periodSeconds/timeoutSeconds/success/failureThreshold) → Ready True; the process
// ends → Failed/Succeeded (restartPolicy Never); a pod past its spec.activeDeadlineSeconds (from its
// start) is killed and Failed with reason DeadlineExceeded, the object kept until deleted. A deleted pod is Terminating (deletionTimestamp) until
// its process is stopped; a deleted PVC in use keeps kubernetes.io/pvc-protection until its pod is gone.
// Volumes: the node has no mount namespaces; a PVC mount is satisfied when mountPath is an existing
// node directory (the test's workspace), else the pod waits in ContainerCreating.
// Not implemented: watch, patch/update, other resources.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "fake_http_server.hpp"
#include "fake_node.hpp"
#include "test_tls.hpp"

namespace actionhost::testing {

class KubernetesApiFake {
  public:
    struct Options {
        std::string token = "test-token";
        const TestCertificateAuthority *tls = nullptr;  // serve HTTPS with this CA's server certificate
        // Over HTTPS, client certificates signed by this CA authenticate their CN as the user, with no
        // token (the API server's x509 client-certificate authentication).
        const TestCertificateAuthority *client_ca = nullptr;
    };
    explicit KubernetesApiFake(Options options);
    KubernetesApiFake() : KubernetesApiFake(Options{}) {}
    ~KubernetesApiFake();

    std::string url() const { return server_->url(); }
    const std::string &token() const { return options_.token; }
    void add_image(const std::string &name, const std::string &install_dir);  // /openhands/actionhost → dir

    // The next `times` calls whose "METHOD /path" starts with `call_prefix` answer a Status of `code`.
    void fail_next(const std::string &call_prefix, int code, const std::string &reason, int times = 1);

    // Records.
    nlohmann::json object(const std::string &resource, const std::string &ns, const std::string &name) const;  // null if none
    nlohmann::json created_body(const std::string &resource, const std::string &name) const;  // as POSTed
    std::vector<std::string> leftovers();  // "<resource>/<ns>/<name>" of every object, "process <pod>" of live containers
    std::vector<std::string> calls() const;
    int unauthorized_calls() const;
    std::vector<FakeRequest> requests() const { return server_->requests(); }

  private:
    struct PodRun;
    FakeResponse handle(const FakeRequest &r);
    void kubelet_loop();
    void kubelet_step();

    Options options_;
    FakeNode node_;
    mutable std::mutex mutex_;
    std::map<std::string, nlohmann::json> objects_;  // "<resource>/<ns>/<name>"
    std::map<std::string, nlohmann::json> created_;  // "<resource>/<name>" → body as POSTed
    std::map<std::string, std::shared_ptr<PodRun>> runs_;  // pod key → its container
    std::vector<std::string> calls_;
    struct Fault {
        std::string prefix, reason;
        int code, times;
    };
    std::vector<Fault> faults_;
    int unauthorized_ = 0;
    long resource_version_ = 1000;
    std::atomic<bool> stopping_{false};
    std::thread kubelet_;
    std::unique_ptr<FakeHttpServer> server_;
};

}  // namespace actionhost::testing

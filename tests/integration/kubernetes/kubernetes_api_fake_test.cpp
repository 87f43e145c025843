// The `kubernetes` backend end to end against KubernetesApiFake: pods, services, PVCs and ingresses
// created through the API, pods run for real by the fake's kubelet, kubeconfig and in-cluster auth,
// HTTP and HTTPS. Each test ends asserting the fake holds no object and runs no process.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <Poco/Base64Encoder.h>
#include <actionhost/client/errors.hpp>
#include <algorithm>
#include <filesystem>
#include <sstream>

#include "runtime_harness.hpp"
#include "support/cloud_fakes/kubernetes_api_fake.hpp"
#include "support/host_process.hpp"

using namespace runtimes_test;
using namespace actionhost::client;
using actionhost::testing::KubernetesApiFake;
using actionhost::testing::TempDir;
using actionhost::testing::TestCertificateAuthority;
using nlohmann::json;

namespace {

const char *kImage = "registry.fake.test/actionhost:test";

std::string install_dir() {
    std::string d = actionhost::testing::build_path("");
    if (!d.empty() && d.back() == '/') d.pop_back();
    return d;
}

std::string base64(const std::string &s) {
    std::ostringstream out;
    Poco::Base64Encoder enc(out);
    enc.rdbuf()->setLineLength(0);
    enc << s;
    enc.close();
    return out.str();
}

// A kubeconfig for the fake: one cluster, one user with a token, one context with a namespace.
std::string write_kubeconfig(const TempDir &dir, const std::string &server, const std::string &token,
                             const std::string &ca_pem = "", const std::string &ns = "sandboxes", const std::string &extra_user = "") {
    std::string path = dir / "kubeconfig";
    std::string cluster = "    server: " + server + "\n";
    if (!ca_pem.empty()) cluster += "    certificate-authority-data: " + base64(ca_pem) + "\n";
    std::string user = extra_user.empty() ? "    token: " + token + "\n" : extra_user;
    actionhost::testing::write_file(path, "apiVersion: v1\nkind: Config\ncurrent-context: fake\nclusters:\n- name: fake\n  cluster:\n" + cluster +
                                              "contexts:\n- name: fake\n  context:\n    cluster: fake\n    user: tester\n    namespace: " + ns +
                                              "\nusers:\n- name: tester\n  user:\n" + user);
    return path;
}

std::function<void(Config &)> kube_config(const std::string &kubeconfig, const std::function<void(Config &)> &more = {}) {
    return [kubeconfig, more](Config &c) {
        if (!kubeconfig.empty()) c.set("kubernetes.kubeconfig", kubeconfig);
        c.set("kubernetes.connect_to", "pod_ip");  // the fake has no cluster DNS
        c.set("sandbox.runtime_container_image", kImage);
        c.set("core.workspace_mount_path_in_sandbox", c.get_string("core.workspace_base"));
        // These tests check that close leaves nothing at all; the default (the PVC kept, as OpenHands)
        // has its own test below.
        c.set("kubernetes.keep_pvc", false);
        if (more) more(c);
    };
}

std::string pod_of(const Runtime &rt) { return "openhands-runtime-" + rt.session_id(); }

void expect_nothing_left(KubernetesApiFake &fake) {
    // Pod deletion is asynchronous (Terminating until the kubelet stopped it): wait a bounded while.
    std::vector<std::string> left;
    for (int i = 0; i < 200; ++i) {
        left = fake.leftovers();
        if (left.empty()) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    std::string all;
    for (const auto &l : left) all += l + " ";
    EXPECT_TRUE(left.empty()) << all;
}

int count_calls(const KubernetesApiFake &fake, const std::string &prefix) {
    auto calls = fake.calls();
    return static_cast<int>(std::count_if(calls.begin(), calls.end(), [&](const std::string &c) { return c.rfind(prefix, 0) == 0; }));
}

std::string connect_error(const std::function<void(Config &)> &config) {
    try {
        auto s = start_runtime("kubernetes", config);
    } catch (const std::exception &e) {
        return e.what();
    }
    return "(connected)";
}

// Sets an environment variable for one scope.
class ScopedEnv {
  public:
    ScopedEnv(const std::string &name, const std::optional<std::string> &value) : name_(name) {
        if (const char *old = getenv(name.c_str())) old_ = old;
        if (value) setenv(name.c_str(), value->c_str(), 1);
        else unsetenv(name.c_str());
    }
    ~ScopedEnv() {
        if (old_) setenv(name_.c_str(), old_->c_str(), 1);
        else unsetenv(name_.c_str());
    }

  private:
    std::string name_;
    std::optional<std::string> old_;
};

}  // namespace

TEST(KubernetesApiFake, ConformanceSetWithKubeconfig) {
    KubernetesApiFake fake;
    fake.add_image(kImage, install_dir());
    TempDir dir("ahk8s");
    auto s = start_runtime("kubernetes", kube_config(write_kubeconfig(dir, fake.url(), fake.token())));
    check_bash(*s);
    check_read_write(*s);
    check_edit(*s);
    check_upload_download(*s);
    EXPECT_EQ(s->statuses.back(), "STATUS$READY");

    std::string pod = pod_of(*s->runtime);
    EXPECT_EQ(s->runtime->runtime_id(), pod);
    // Everything in the context's namespace, shaped as OpenHands' KubernetesRuntime sends it.
    json p = fake.created_body("pods", pod);
    EXPECT_FALSE(p.contains("kind"));
    EXPECT_FALSE(p.contains("apiVersion"));
    EXPECT_EQ(p["metadata"]["labels"], json({{"app", "openhands-runtime"}, {"session", s->runtime->session_id()}}));
    EXPECT_EQ(p["spec"]["restartPolicy"], "Never");
    EXPECT_EQ(p["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"], pod + "-pvc");
    EXPECT_FALSE(p["spec"].contains("imagePullSecrets"));
    EXPECT_FALSE(p["spec"].contains("nodeSelector"));
    EXPECT_FALSE(p["spec"].contains("tolerations"));
    const json &c = p["spec"]["containers"][0];
    EXPECT_EQ(c["image"], kImage);
    EXPECT_EQ(c["command"][0], "/openhands/actionhost/bin/actionhost");
    EXPECT_EQ(c["command"][1], "8080");
    EXPECT_EQ(c["readinessProbe"]["httpGet"], json({{"path", "/alive"}, {"port", 8080}}));
    EXPECT_EQ(c["resources"], json({{"limits", {{"memory", "2Gi"}}}, {"requests", {{"cpu", "1"}, {"memory", "1Gi"}}}}));
    EXPECT_EQ(c["securityContext"], json({{"privileged", false}}));
    EXPECT_EQ(c["volumeMounts"][0]["mountPath"], s->workspace_inside);
    EXPECT_EQ(c["ports"][0], json({{"containerPort", 8080}, {"name", "http"}}));
    json pvc = fake.created_body("persistentvolumeclaims", pod + "-pvc");
    EXPECT_EQ(pvc["kind"], "PersistentVolumeClaim");
    EXPECT_EQ(pvc["spec"]["resources"]["requests"]["storage"], "2Gi");
    EXPECT_EQ(pvc["spec"]["accessModes"], json({"ReadWriteOnce"}));
    EXPECT_EQ(fake.created_body("services", pod + "-svc")["spec"]["ports"][0],
              json({{"port", 8080}, {"targetPort", "http"}, {"name", "execution-server"}}));
    EXPECT_EQ(fake.created_body("services", pod + "-svc-code")["spec"]["ports"][0]["port"], 8081);
    json ing = fake.created_body("ingresses", pod + "-ingress-code");
    EXPECT_EQ(ing["spec"]["rules"][0]["host"], s->runtime->session_id() + ".localhost");
    EXPECT_EQ(ing["spec"]["tls"], json::array());
    EXPECT_FALSE(fake.object("pods", "sandboxes", pod).is_null());
    EXPECT_EQ(fake.object("pods", "sandboxes", pod)["status"]["phase"], "Running");
    for (const auto &r : fake.requests()) EXPECT_EQ(r.header("authorization"), "Bearer " + fake.token()) << r.path;

    s->runtime->close();
    EXPECT_EQ(s->runtime->last_status(), "STATUS$STOPPED");
    expect_nothing_left(fake);
}

// As OpenHands: close deletes the pod, services and ingress, and keeps the workspace's volume.
TEST(KubernetesApiFake, CloseKeepsTheWorkspaceVolumeAsOpenHandsDoes) {
    KubernetesApiFake fake;
    fake.add_image(kImage, install_dir());
    TempDir dir("ahk8s");
    auto s = start_runtime("kubernetes", kube_config(write_kubeconfig(dir, fake.url(), fake.token()),
                                                     [](Config &c) { c.set("kubernetes.keep_pvc", nullptr); }));
    const std::string pod = pod_of(*s->runtime);
    EXPECT_EQ(run(*s->runtime, "echo kept > k.txt && echo ok").value("content", ""), "ok");
    s->runtime->close();
    std::vector<std::string> left;
    for (int i = 0; i < 200; ++i) {
        left = fake.leftovers();
        if (left.size() <= 1) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_EQ(left, std::vector<std::string>{"persistentvolumeclaims/sandboxes/" + pod + "-pvc"});
}

TEST(KubernetesApiFake, KubernetesSectionKeys) {
    KubernetesApiFake fake;
    fake.add_image(kImage, install_dir());
    TempDir dir("ahk8s");
    // The user's token from a tokenFile, relative to the kubeconfig's directory.
    actionhost::testing::write_file(dir / "token.txt", fake.token() + "\n");
    std::string kubeconfig = write_kubeconfig(dir, fake.url(), "", "", "sandboxes", "    tokenFile: token.txt\n");
    auto s = start_runtime("kubernetes", kube_config(kubeconfig, [](Config &c) {
                               c.set("kubernetes.namespace", "team-a");
                               c.set("kubernetes.resource_cpu_request", "250m");
                               c.set("kubernetes.resource_memory_request", "512Mi");
                               c.set("kubernetes.resource_memory_limit", "3Gi");
                               c.set("kubernetes.node_selector_key", "pool");
                               c.set("kubernetes.node_selector_val", "sandboxes");
                               c.set("kubernetes.tolerations_yaml",
                                     "- key: dedicated\n  operator: Equal\n  value: sandboxes\n  effect: NoSchedule\n- key: spot\n  operator: Exists\n  tolerationSeconds: 300\n");
                               c.set("kubernetes.privileged", true);
                               c.set("kubernetes.image_pull_secret", "regcred");
                               c.set("kubernetes.ingress_domain", "sandbox.example.com");
                               c.set("kubernetes.ingress_tls_secret", "wildcard-tls");
                               c.set("kubernetes.pvc_storage_size", "5Gi");
                               c.set("kubernetes.pvc_storage_class", "fast-ssd");
                           }));
    std::string pod = pod_of(*s->runtime), sid = s->runtime->session_id();
    EXPECT_FALSE(fake.object("pods", "team-a", pod).is_null());  // the key wins over the context's namespace
    EXPECT_EQ(fake.unauthorized_calls(), 0);
    json p = fake.created_body("pods", pod);
    EXPECT_EQ(p["spec"]["nodeSelector"], json({{"pool", "sandboxes"}}));
    EXPECT_EQ(p["spec"]["imagePullSecrets"], json::array({{{"name", "regcred"}}}));
    EXPECT_EQ(p["spec"]["tolerations"], json::parse(R"([{"key":"dedicated","operator":"Equal","value":"sandboxes","effect":"NoSchedule"},
                                                        {"key":"spot","operator":"Exists","tolerationSeconds":300}])"));
    const json &c = p["spec"]["containers"][0];
    EXPECT_EQ(c["resources"], json({{"limits", {{"memory", "3Gi"}}}, {"requests", {{"cpu", "250m"}, {"memory", "512Mi"}}}}));
    EXPECT_EQ(c["securityContext"]["privileged"], true);
    json pvc = fake.created_body("persistentvolumeclaims", pod + "-pvc");
    EXPECT_EQ(pvc["spec"]["storageClassName"], "fast-ssd");
    EXPECT_EQ(pvc["spec"]["resources"]["requests"]["storage"], "5Gi");
    json ing = fake.created_body("ingresses", pod + "-ingress-code");
    EXPECT_EQ(ing["spec"]["rules"][0]["host"], sid + ".sandbox.example.com");
    EXPECT_EQ(ing["metadata"]["annotations"]["external-dns.alpha.kubernetes.io/hostname"], sid + ".sandbox.example.com");
    EXPECT_EQ(ing["spec"]["tls"], json::array({{{"hosts", {sid + ".sandbox.example.com"}}, {"secretName", "wildcard-tls"}}}));
    EXPECT_EQ(run(*s->runtime, "echo in-team-a").value("content", ""), "in-team-a");
    s->runtime->close();
    expect_nothing_left(fake);

    // A tolerations_yaml that is no list is refused before anything is created.
    std::string e = connect_error(kube_config(write_kubeconfig(dir, fake.url(), fake.token()),
                                              [](Config &c) { c.set("kubernetes.tolerations_yaml", "key: x"); }));
    EXPECT_NE(e.find("tolerations_yaml must be a YAML list"), std::string::npos) << e;
    expect_nothing_left(fake);
}

TEST(KubernetesApiFake, InClusterServiceAccountOverTls) {
    TestCertificateAuthority ca;
    KubernetesApiFake fake(KubernetesApiFake::Options{"sa-token-123", &ca});
    fake.add_image(kImage, install_dir());
    TempDir sa("ahk8s-sa");
    actionhost::testing::write_file(sa / "token", "sa-token-123\n");
    actionhost::testing::write_file(sa / "ca.crt", ca.ca_pem());
    actionhost::testing::write_file(sa / "namespace", "from-sa");
    ScopedEnv host("KUBERNETES_SERVICE_HOST", "127.0.0.1");
    ScopedEnv port("KUBERNETES_SERVICE_PORT", std::to_string(fake.url().size() ? std::stoi(fake.url().substr(fake.url().rfind(':') + 1)) : 0));
    auto in_cluster = [&](const std::function<void(Config &)> &more = {}) {
        return kube_config("", [&sa, more](Config &c) {
            c.set("kubernetes.service_account_dir", sa.path());
            if (more) more(c);
        });
    };
    auto s = start_runtime("kubernetes", in_cluster());
    EXPECT_EQ(run(*s->runtime, "echo over-tls").value("content", ""), "over-tls");
    EXPECT_FALSE(fake.object("pods", "from-sa", pod_of(*s->runtime)).is_null());
    for (const auto &r : fake.requests()) EXPECT_EQ(r.header("authorization"), "Bearer sa-token-123") << r.path;
    s->runtime->close();
    expect_nothing_left(fake);

    // A CA that did not sign the server's certificate: the TLS handshake fails, nothing is created.
    TestCertificateAuthority other;
    actionhost::testing::write_file(sa / "ca.crt", other.ca_pem());
    std::string e = connect_error(in_cluster());
    EXPECT_NE(e.find("Kubernetes API unreachable"), std::string::npos) << e;
    EXPECT_EQ(count_calls(fake, "POST"), 5);  // only the first runtime's five creates
    actionhost::testing::write_file(sa / "ca.crt", ca.ca_pem());

    // kubeconfig over the same TLS server, with certificate-authority-data.
    TempDir dir("ahk8s");
    auto k = start_runtime("kubernetes", kube_config(write_kubeconfig(dir, fake.url(), "sa-token-123", ca.ca_pem())));
    EXPECT_EQ(run(*k->runtime, "echo kubeconfig-tls").value("content", ""), "kubeconfig-tls");
    k->runtime->close();
    expect_nothing_left(fake);
}

// x509 client-certificate authentication, as kind, minikube and kubeadm's admin.conf set a user up: a
// client certificate and key in the kubeconfig, no token. The fake asks every client for a certificate
// and takes a verified one's CN as the user, as the API server does.
TEST(KubernetesApiFake, KubeconfigClientCertificateOverMutualTls) {
    TestCertificateAuthority ca;
    const auto tester = ca.issue_client_certificate("actionhost-tester");
    KubernetesApiFake fake(KubernetesApiFake::Options{"a-token-nobody-sends", &ca, &ca});
    fake.add_image(kImage, install_dir());
    TempDir dir("ahk8s-mtls");
    using Identity = TestCertificateAuthority::ClientIdentity;
    auto inline_user = [](const Identity &id) {
        return "    client-certificate-data: " + base64(actionhost::testing::read_file(id.cert_file)) +
               "\n    client-key-data: " + base64(actionhost::testing::read_file(id.key_file)) + "\n";
    };
    auto kubeconfig_for = [&](const std::string &user) { return write_kubeconfig(dir, fake.url(), "", ca.ca_pem(), "sandboxes", user); };

    // Inline certificate and key.
    auto s = start_runtime("kubernetes", kube_config(kubeconfig_for(inline_user(tester))));
    EXPECT_EQ(run(*s->runtime, "echo mutual-tls").value("content", ""), "mutual-tls");
    EXPECT_FALSE(fake.object("pods", "sandboxes", pod_of(*s->runtime)).is_null());
    const auto requests = fake.requests();
    ASSERT_FALSE(requests.empty());
    for (const auto &r : requests) {
        EXPECT_EQ(r.client_common_name, "actionhost-tester") << r.method << " " << r.path;
        EXPECT_EQ(r.header("authorization"), "") << r.method << " " << r.path;
    }
    s->runtime->close();
    expect_nothing_left(fake);

    // Files named relative to the kubeconfig's directory.
    actionhost::testing::write_file(dir / "tester.crt", actionhost::testing::read_file(tester.cert_file));
    actionhost::testing::write_file(dir / "tester.key", actionhost::testing::read_file(tester.key_file));
    auto f = start_runtime("kubernetes", kube_config(kubeconfig_for("    client-certificate: tester.crt\n    client-key: tester.key\n")));
    EXPECT_EQ(run(*f->runtime, "echo from-files").value("content", ""), "from-files");
    f->runtime->close();
    expect_nothing_left(fake);
    EXPECT_EQ(fake.unauthorized_calls(), 0);
    const int creates = count_calls(fake, "POST");

    // A certificate the server's CA did not sign: the handshake fails, nothing is created.
    TestCertificateAuthority other;
    const auto stranger = other.issue_client_certificate("actionhost-tester");
    std::string e = connect_error(kube_config(kubeconfig_for(inline_user(stranger))));
    EXPECT_NE(e.find("Kubernetes API unreachable"), std::string::npos) << e;

    // Our certificate with someone else's key: refused before any request.
    e = connect_error(kube_config(kubeconfig_for(inline_user(Identity{tester.cert_file, stranger.key_file}))));
    EXPECT_NE(e.find("do not fit together"), std::string::npos) << e;

    // Neither a certificate nor a token: the API server's 401.
    e = connect_error(kube_config(kubeconfig_for("    username: nobody\n")));
    EXPECT_NE(e.find("HTTP 401 Unauthorized"), std::string::npos) << e;
    EXPECT_EQ(count_calls(fake, "POST"), creates);
    expect_nothing_left(fake);
}

TEST(KubernetesApiFake, PauseResumeAndKeepAlive) {
    KubernetesApiFake fake;
    fake.add_image(kImage, install_dir());
    TempDir dir("ahk8s");
    std::string kubeconfig = write_kubeconfig(dir, fake.url(), fake.token());
    auto s = start_runtime("kubernetes", kube_config(kubeconfig, [](Config &c) { c.set("sandbox.keep_runtime_alive", true); }));
    std::string pod = pod_of(*s->runtime);
    EXPECT_EQ(run(*s->runtime, "echo kept > k.txt && echo ok").value("content", ""), "ok");
    // Pause: the pod goes, the PVC and the services stay.
    s->runtime->pause();
    EXPECT_TRUE(fake.object("pods", "sandboxes", pod).is_null());
    EXPECT_FALSE(fake.object("persistentvolumeclaims", "sandboxes", pod + "-pvc").is_null());
    EXPECT_FALSE(fake.object("services", "sandboxes", pod + "-svc").is_null());
    s->runtime->resume();  // a new pod (a new pod IP): the client follows the endpoint
    EXPECT_EQ(run(*s->runtime, "cat k.txt").value("content", ""), "kept");
    EXPECT_EQ(count_calls(fake, "POST /api/v1/namespaces/sandboxes/pods"), 2);
    s->runtime->close();  // keep_runtime_alive: everything stays
    EXPECT_FALSE(fake.object("pods", "sandboxes", pod).is_null());

    // A second client of the session attaches to the pod (its session key read from the pod's env).
    RuntimeOptions o;
    o.install_dir = install_dir();
    o.session_id = s->runtime->session_id();
    o.config.set("core.runtime", "kubernetes");
    o.config.set("core.workspace_base", s->workspace->path());
    o.config.set("core.state_dir", s->state->path());
    o.config.set("core.run_as_openhands", false);
    o.config.set("core.enable_browser", false);
    kube_config(kubeconfig)(o.config);
    auto second = Runtime::create(std::move(o));
    second->connect();
    EXPECT_EQ(count_calls(fake, "POST /api/v1/namespaces/sandboxes/pods"), 2);
    EXPECT_EQ(run(*second, "cat k.txt").value("content", ""), "kept");
    // The attached client's pod, re-made by pause/resume, keeps the session key the client holds.
    second->pause();
    second->resume();
    EXPECT_EQ(run(*second, "cat k.txt").value("content", ""), "kept");
    second->close();
    expect_nothing_left(fake);
}

TEST(KubernetesApiFake, MissingCredentialsAndBadUrls) {
    KubernetesApiFake fake;
    fake.add_image(kImage, install_dir());
    TempDir dir("ahk8s"), home("ahk8s-home");
    {
        ScopedEnv h("HOME", home.path()), k("KUBECONFIG", std::nullopt), sh("KUBERNETES_SERVICE_HOST", std::nullopt);
        std::string e = connect_error(kube_config(""));
        EXPECT_NE(e.find("no Kubernetes credentials"), std::string::npos) << e;
    }
    std::string e = connect_error(kube_config(dir / "missing-kubeconfig"));
    EXPECT_NE(e.find("cannot read kubeconfig"), std::string::npos) << e;

    e = connect_error(kube_config(write_kubeconfig(dir, fake.url(), "wrong-token")));
    EXPECT_NE(e.find("HTTP 401 Unauthorized"), std::string::npos) << e;
    EXPECT_GE(fake.unauthorized_calls(), 1);

    e = connect_error(kube_config(write_kubeconfig(dir, "ftp://127.0.0.1:1", "t")));
    EXPECT_NE(e.find("unsupported URL"), std::string::npos) << e;

    e = connect_error(kube_config(write_kubeconfig(dir, "http://127.0.0.1:1", "t")));
    EXPECT_NE(e.find("Kubernetes API unreachable"), std::string::npos) << e;

    e = connect_error(kube_config(write_kubeconfig(dir, fake.url(), "", "", "sandboxes",
                                                   "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: aws\n")));
    EXPECT_NE(e.find("exec plugin"), std::string::npos) << e;
    EXPECT_EQ(count_calls(fake, "POST"), 0);
    expect_nothing_left(fake);
}

TEST(KubernetesApiFake, ProviderErrorsLeaveNothing) {
    KubernetesApiFake fake;
    fake.add_image(kImage, install_dir());
    TempDir dir("ahk8s");
    std::string kubeconfig = write_kubeconfig(dir, fake.url(), fake.token());

    fake.fail_next("POST /api/v1/namespaces/sandboxes/pods", 409, "AlreadyExists");
    std::string e = connect_error(kube_config(kubeconfig));
    EXPECT_NE(e.find("HTTP 409 AlreadyExists"), std::string::npos) << e;
    expect_nothing_left(fake);  // the PVC made before the pod was deleted again

    fake.fail_next("POST /api/v1/namespaces/sandboxes/services", 403, "Forbidden");
    e = connect_error(kube_config(kubeconfig));
    EXPECT_NE(e.find("HTTP 403 Forbidden"), std::string::npos) << e;
    expect_nothing_left(fake);

    e = connect_error(kube_config(kubeconfig, [](Config &c) { c.set("sandbox.runtime_container_image", "registry.fake.test/none:1"); }));
    EXPECT_NE(e.find("ErrImagePull"), std::string::npos) << e;
    expect_nothing_left(fake);

    // An image whose command exits at once: the pod ends Failed (restartPolicy Never).
    TempDir broken("ahk8s-broken");
    actionhost::testing::write_file(broken / "bin/actionhost", "#!/bin/sh\necho boom >&2\nexit 3\n");
    std::filesystem::permissions(broken / "bin/actionhost", std::filesystem::perms::owner_all);
    fake.add_image("registry.fake.test/broken:1", broken.path());
    e = connect_error(kube_config(kubeconfig, [](Config &c) { c.set("sandbox.runtime_container_image", "registry.fake.test/broken:1"); }));
    EXPECT_NE(e.find("phase Failed"), std::string::npos) << e;
    EXPECT_NE(e.find("exit code 3"), std::string::npos) << e;
    expect_nothing_left(fake);

    // Never ready (its volume cannot be mounted): a timeout, then nothing left.
    e = connect_error(kube_config(kubeconfig, [](Config &c) {
        c.set("core.workspace_mount_path_in_sandbox", "/nonexistent-ahk8s-dir");
        c.set("kubernetes.ready_timeout_s", 2);
    }));
    EXPECT_NE(e.find("was not ready within 2 s"), std::string::npos) << e;
    EXPECT_NE(e.find("ContainerCreating"), std::string::npos) << e;
    expect_nothing_left(fake);
}

// The network keys become a NetworkPolicy of the sandbox's pod (manifests.hpp, egress_plan), validated as
// the API server validates it, made before the pod and deleted with it; sandbox.dns the pod's resolvers.
// The fake's network enforces no policy (as a cluster whose network plugin does not): what the policy
// lets out is the request's business, checked here field by field.
TEST(KubernetesApiFake, NetworkKeysBecomeTheSandboxsNetworkPolicy) {
    KubernetesApiFake fake;
    fake.add_image(kImage, install_dir());
    TempDir dir("ahk8s");
    const std::string kubeconfig = write_kubeconfig(dir, fake.url(), fake.token());
    {
        auto s = start_runtime("kubernetes", kube_config(kubeconfig, [](Config &c) { c.set("sandbox.network", "none"); }));
        const std::string pod = pod_of(*s->runtime);
        const json policy = fake.created_body("networkpolicies", pod + "-egress");
        ASSERT_FALSE(policy.is_null()) << "no NetworkPolicy";
        EXPECT_EQ(policy["spec"]["podSelector"]["matchLabels"], json({{"app", "openhands-runtime"}, {"session", s->runtime->session_id()}}));
        EXPECT_EQ(policy["spec"]["policyTypes"], json::array({"Egress"}));
        EXPECT_EQ(policy["spec"]["egress"], json::array());  // nothing out, DNS neither
        // Made before the pod.
        const auto calls = fake.calls();
        const auto made_policy = std::find_if(calls.begin(), calls.end(), [](const std::string &c) { return c.find("POST /apis/networking.k8s.io/v1/namespaces/sandboxes/networkpolicies") == 0; });
        const auto made_pod = std::find_if(calls.begin(), calls.end(), [](const std::string &c) { return c.find("POST /api/v1/namespaces/sandboxes/pods") == 0; });
        EXPECT_LT(made_policy, made_pod);
        EXPECT_EQ(run(*s->runtime, "echo in").value("content", ""), "in");  // the client still comes in
        s->runtime->close();
        expect_nothing_left(fake);  // the policy went with the pod
    }
    {
        auto s = start_runtime("kubernetes", kube_config(kubeconfig, [](Config &c) {
                                   c.set("sandbox.network", "internet");
                                   c.set("sandbox.allow_out", json::array({"198.51.100.0/24", "0.0.0.0/0"}));
                                   c.set("sandbox.deny_out", json::array({"198.51.100.7", "203.0.113.0/24"}));
                                   c.set("sandbox.dns", json::array({"192.0.2.53"}));
                               }));
        const std::string pod = pod_of(*s->runtime);
        const json egress = fake.created_body("networkpolicies", pod + "-egress")["spec"]["egress"];
        EXPECT_EQ(egress, json::parse(R"([
          {"to": [{"ipBlock": {"cidr": "198.51.100.0/24", "except": ["198.51.100.7/32"]}},
                  {"ipBlock": {"cidr": "0.0.0.0/0", "except": ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10",
                                                               "169.254.0.0/16", "198.51.100.7/32", "203.0.113.0/24"]}}]},
          {"to": [{"ipBlock": {"cidr": "192.0.2.53/32"}}], "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]}
        ])")) << egress.dump();
        const json p = fake.created_body("pods", pod);
        EXPECT_EQ(p["spec"]["dnsPolicy"], "None");
        EXPECT_EQ(p["spec"]["dnsConfig"], json({{"nameservers", {"192.0.2.53"}}}));
        // Paused and resumed, the policy stays; closed, it goes.
        s->runtime->pause();
        EXPECT_FALSE(fake.object("networkpolicies", "sandboxes", pod + "-egress").is_null());
        s->runtime->resume();
        EXPECT_EQ(run(*s->runtime, "echo back").value("content", ""), "back");
        s->runtime->close();
        expect_nothing_left(fake);
    }
    {
        // No key: no policy, no resolver setting, no call about policies at all (a service account may
        // have no rights on them).
        auto s = start_runtime("kubernetes", kube_config(kubeconfig));
        EXPECT_TRUE(fake.created_body("networkpolicies", pod_of(*s->runtime) + "-egress").is_null());
        EXPECT_FALSE(fake.created_body("pods", pod_of(*s->runtime))["spec"].contains("dnsPolicy"));
        s->runtime->close();
        EXPECT_EQ(count_calls(fake, "DELETE /apis/networking.k8s.io/v1/namespaces/sandboxes/networkpolicies/" + pod_of(*s->runtime)), 0);
        expect_nothing_left(fake);
    }
}

TEST(KubernetesApiFake, NetworkKeysANetworkPolicyCannotHaveAreRefusedWithTheReason) {
    KubernetesApiFake fake;
    fake.add_image(kImage, install_dir());
    TempDir dir("ahk8s");
    const std::string kubeconfig = write_kubeconfig(dir, fake.url(), fake.token());
    struct Case {
        std::function<void(Config &)> set;
        std::string key, reason;
    };
    const std::vector<Case> cases = {
        {[](Config &c) { c.set("sandbox.allow_out", json::array({"pypi.org"})); }, "sandbox.allow_out: 'pypi.org'", "not names"},
        {[](Config &c) { c.set("sandbox.deny_out", json::array({"*.example.com"})); }, "sandbox.deny_out: '*.example.com'", "not names"},
        {[](Config &c) { c.set("sandbox.dns", json::array({"192.0.2.1", "192.0.2.2", "192.0.2.3", "192.0.2.4"})); }, "sandbox.dns", "at most 3"},
        {[](Config &c) {
             c.set("sandbox.network", "none");
             c.set("sandbox.dns", json::array({"192.0.2.53"}));
         },
         "sandbox.dns needs sandbox.network = \"internet\"", "it is \"none\""},
        {[](Config &c) { c.set("sandbox.secrets", json{{"api", {{"value", "v"}, {"hosts", json::array({"api.example"})}}}}); },
         "sandbox.secrets", "only the sandbox runtime keeps secrets outside"},
        {[](Config &c) { c.set("sandbox.upstream_ca_file", "/etc/ssl/certs/ca-certificates.crt"); }, "sandbox.upstream_ca_file", "no such proxy"},
    };
    for (const auto &c : cases) {
        const std::string e = connect_error(kube_config(kubeconfig, c.set));
        EXPECT_NE(e.find(c.key), std::string::npos) << c.key << ": " << e;
        EXPECT_NE(e.find(c.reason), std::string::npos) << c.key << ": " << e;
    }
    expect_nothing_left(fake);
    EXPECT_EQ(count_calls(fake, "POST"), 0) << "a refused start made something";
}

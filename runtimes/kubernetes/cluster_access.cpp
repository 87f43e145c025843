#include "cluster_access.hpp"
#include <actionhost/common/base64.hpp>

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kube {

namespace fs = std::filesystem;

namespace {

std::string read_text(const std::string &path, const std::string &what) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + what + " " + path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string trim(std::string s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
    size_t i = 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    return s.substr(i);
}

std::string base64_decode(const std::string &text, const std::string &what) {
    const auto out = actionhost::common::base64_decode(text);
    if (!out || out->empty()) throw std::runtime_error("kubeconfig: " + what + " is not base64");
    return *out;
}

// A path of the kubeconfig, relative to the kubeconfig's directory.
std::string relative_to(const std::string &config_path, const std::string &p) {
    if (p.empty() || p[0] == '/') return p;
    return (fs::path(config_path).parent_path() / p).string();
}

YAML::Node named(const YAML::Node &list, const std::string &name, const std::string &what, const std::string &path) {
    if (list && list.IsSequence())
        for (const auto &item : list)
            if (item["name"] && item["name"].as<std::string>() == name) return item;
    throw std::runtime_error("kubeconfig " + path + ": no " + what + " named '" + name + "'");
}

std::string str(const YAML::Node &n) { return n && n.IsScalar() ? n.as<std::string>() : ""; }

}  // namespace

ClusterAccess load_kubeconfig(const std::string &path, const std::string &context_name) {
    YAML::Node root;
    try {
        root = YAML::LoadFile(path);
    } catch (const YAML::BadFile &) {
        throw std::runtime_error("cannot read kubeconfig " + path);
    } catch (const YAML::Exception &e) {
        throw std::runtime_error("kubeconfig " + path + " is not valid YAML: " + e.what());
    }
    if (!root.IsMap()) throw std::runtime_error("kubeconfig " + path + " is not a YAML mapping");
    std::string ctx_name = context_name.empty() ? str(root["current-context"]) : context_name;
    if (ctx_name.empty()) throw std::runtime_error("kubeconfig " + path + " has no current-context (set kubernetes.context)");
    YAML::Node ctx = named(root["contexts"], ctx_name, "context", path)["context"];
    std::string cluster_name = str(ctx["cluster"]), user_name = str(ctx["user"]);
    YAML::Node cluster = named(root["clusters"], cluster_name, "cluster", path)["cluster"];
    ClusterAccess a;
    a.source = "kubeconfig " + path + " context " + ctx_name;
    a.namespace_ = str(ctx["namespace"]);
    a.server = str(cluster["server"]);
    if (a.server.empty()) throw std::runtime_error("kubeconfig " + path + ": cluster '" + cluster_name + "' has no server");
    if (!str(cluster["certificate-authority-data"]).empty())
        a.tls.ca_pem = base64_decode(str(cluster["certificate-authority-data"]), "certificate-authority-data");
    else if (!str(cluster["certificate-authority"]).empty())
        a.tls.ca_file = relative_to(path, str(cluster["certificate-authority"]));
    a.tls.insecure_skip_verify = str(cluster["insecure-skip-tls-verify"]) == "true";
    if (!user_name.empty()) {
        YAML::Node user = named(root["users"], user_name, "user", path)["user"];
        if (user["exec"] || user["auth-provider"])
            throw std::runtime_error("kubeconfig " + path + ": user '" + user_name +
                                     "' gets its credentials from an exec plugin or auth provider, which this backend does not run; "
                                     "give it a token, tokenFile or client certificate");
        a.token = str(user["token"]);
        if (!str(user["tokenFile"]).empty()) a.token_file = relative_to(path, str(user["tokenFile"]));
        if (!str(user["client-certificate-data"]).empty())
            a.tls.client_cert_pem = base64_decode(str(user["client-certificate-data"]), "client-certificate-data");
        else if (!str(user["client-certificate"]).empty())
            a.tls.client_cert_pem = read_text(relative_to(path, str(user["client-certificate"])), "client certificate");
        if (!str(user["client-key-data"]).empty())
            a.tls.client_key_pem = base64_decode(str(user["client-key-data"]), "client-key-data");
        else if (!str(user["client-key"]).empty())
            a.tls.client_key_pem = read_text(relative_to(path, str(user["client-key"])), "client key");
    }
    return a;
}

ClusterAccess load_in_cluster(const std::string &dir) {
    const char *host = std::getenv("KUBERNETES_SERVICE_HOST");
    const char *port = std::getenv("KUBERNETES_SERVICE_PORT");
    if (!host || !*host || !port || !*port)
        throw std::runtime_error("in-cluster config needs KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT");
    ClusterAccess a;
    std::string h = host;
    if (h.find(':') != std::string::npos) h = "[" + h + "]";
    a.server = "https://" + h + ":" + port;
    a.token_file = dir + "/token";
    if (trim(read_text(a.token_file, "service account token")).empty()) throw std::runtime_error("service account token " + a.token_file + " is empty");
    a.tls.ca_file = dir + "/ca.crt";
    if (!fs::exists(a.tls.ca_file)) throw std::runtime_error("service account CA " + a.tls.ca_file + " does not exist");
    if (fs::exists(dir + "/namespace")) a.namespace_ = trim(read_text(dir + "/namespace", "namespace"));
    a.source = "in-cluster service account " + dir;
    return a;
}

ClusterAccess resolve_cluster_access(const AccessSettings &s) {
    if (!s.kubeconfig.empty()) return load_kubeconfig(s.kubeconfig, s.context);
    const char *in_cluster = std::getenv("KUBERNETES_SERVICE_HOST");
    if (in_cluster && *in_cluster) return load_in_cluster(s.service_account_dir);
    std::string path;
    if (const char *env = std::getenv("KUBECONFIG"); env && *env) {
        path = env;
        path = path.substr(0, path.find(':'));
    } else if (const char *home = std::getenv("HOME"); home && *home) {
        path = std::string(home) + "/.kube/config";
    }
    if (path.empty() || !fs::exists(path))
        throw std::runtime_error("no Kubernetes credentials: set kubernetes.kubeconfig or $KUBECONFIG, create ~/.kube/config, or run "
                                 "in a cluster (KUBERNETES_SERVICE_HOST/PORT and a service account)");
    return load_kubeconfig(path, s.context);
}

std::string TokenSource::token() {
    if (file_.empty()) return token_;
    auto now = std::chrono::steady_clock::now();
    if (token_.empty() || now - read_at_ > std::chrono::minutes(1)) {
        token_ = trim(read_text(file_, "token file"));
        read_at_ = now;
    }
    return token_;
}

}  // namespace kube

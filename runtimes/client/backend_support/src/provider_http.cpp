#include "actionhost/runtime_support/provider_http.hpp"

#include "actionhost/runtime_support/host_http.hpp"
#include "actionhost/runtime_support/header_line.hpp"

#include <Poco/Exception.h>
#include <Poco/Net/AcceptCertificateHandler.h>
#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPSClientSession.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/RejectCertificateHandler.h>
#include <Poco/Net/SSLException.h>
#include <Poco/Net/SSLManager.h>
#include <Poco/StreamCopier.h>
#include <Poco/URI.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <mutex>

namespace actionhost::runtime_support {

using nlohmann::json;

json ProviderReply::json() const { return json::parse(body, nullptr, false); }

namespace {

// Poco asks its SSLManager what to do with a certificate that fails verification; without a handler
// installed it would build the console handler, which prompts on stdin. A backend must refuse.
void install_reject_handler() {
    static std::once_flag once;
    std::call_once(once, [] {
        Poco::Net::SSLManager::InvalidCertificateHandlerPtr reject(new Poco::Net::RejectCertificateHandler(false));
        Poco::Net::SSLManager::instance().initializeClient(nullptr, reject, nullptr);
    });
}

struct BioCloser {
    void operator()(BIO *b) const { BIO_free(b); }
};

// Every certificate of a PEM text, added to the context's trust store.
void trust_pem(SSL_CTX *ctx, const std::string &pem) {
    std::unique_ptr<BIO, BioCloser> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
    int added = 0;
    for (int i = 0; i < 1000; ++i) {
        X509 *cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr);
        if (!cert) break;
        X509_STORE_add_cert(SSL_CTX_get_cert_store(ctx), cert);
        X509_free(cert);
        ++added;
    }
    if (added == 0) throw std::invalid_argument("the CA data holds no PEM certificate");
}

void use_client_identity(SSL_CTX *ctx, const std::string &cert_pem, const std::string &key_pem) {
    std::unique_ptr<BIO, BioCloser> cbio(BIO_new_mem_buf(cert_pem.data(), static_cast<int>(cert_pem.size())));
    X509 *cert = PEM_read_bio_X509(cbio.get(), nullptr, nullptr, nullptr);
    if (!cert) throw std::invalid_argument("the client certificate is not PEM");
    int ok = SSL_CTX_use_certificate(ctx, cert);
    X509_free(cert);
    std::unique_ptr<BIO, BioCloser> kbio(BIO_new_mem_buf(key_pem.data(), static_cast<int>(key_pem.size())));
    EVP_PKEY *key = PEM_read_bio_PrivateKey(kbio.get(), nullptr, nullptr, nullptr);
    if (!key) throw std::invalid_argument("the client key is not PEM");
    ok = ok == 1 ? SSL_CTX_use_PrivateKey(ctx, key) : ok;
    EVP_PKEY_free(key);
    if (ok != 1 || SSL_CTX_check_private_key(ctx) != 1)
        throw std::invalid_argument("the client certificate and key do not fit together");
}

}  // namespace

struct ProviderHttp::Tls {
    Poco::Net::Context::Ptr context;
    std::string host;
    Poco::UInt16 port = 443;
    std::string base_path;
};

ProviderHttp::ProviderHttp(const ah_runtime_host_t *host, std::string base_url, TlsOptions tls)
    : host_(host), base_url_(std::move(base_url)) {
    while (!base_url_.empty() && base_url_.back() == '/') base_url_.pop_back();
    if (base_url_.rfind("https://", 0) == 0) {
        Poco::URI uri;
        try {
            uri = Poco::URI(base_url_);
        } catch (const Poco::Exception &e) {
            throw std::invalid_argument("bad URL '" + base_url_ + "': " + e.displayText());
        }
        if (uri.getHost().empty()) throw std::invalid_argument("bad URL '" + base_url_ + "': no host");
        install_reject_handler();
        tls_ = std::make_unique<Tls>();
        tls_->host = uri.getHost();
        tls_->port = uri.getPort();
        tls_->base_path = uri.getPath();
        Poco::Net::Context::Params params;
        params.verificationMode = tls.insecure_skip_verify ? Poco::Net::Context::VERIFY_NONE : Poco::Net::Context::VERIFY_RELAXED;
        params.caLocation = tls.ca_file;
        params.loadDefaultCAs = tls.ca_file.empty() && tls.ca_pem.empty();
        try {
            tls_->context = new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, params);
        } catch (const Poco::Exception &e) {
            throw std::invalid_argument("cannot set up TLS for " + base_url_ + ": " + e.displayText());
        }
        if (!tls.ca_pem.empty()) trust_pem(tls_->context->sslContext(), tls.ca_pem);
        if (!tls.client_cert_pem.empty() || !tls.client_key_pem.empty())
            use_client_identity(tls_->context->sslContext(), tls.client_cert_pem, tls.client_key_pem);
    } else if (base_url_.rfind("http://", 0) != 0 && base_url_.rfind("unix://", 0) != 0) {
        throw std::invalid_argument("unsupported URL '" + base_url_ + "' (expected http://, https:// or unix://)");
    }
}

ProviderHttp::~ProviderHttp() = default;

ProviderReply ProviderHttp::call(const std::string &method, const std::string &path, const std::string &body,
                                 const std::vector<std::string> &headers, double timeout_s) const {
    ProviderReply reply;
    if (!tls_) {
        std::string url = base_url_ + path;
        const HostHttpReply r = host_http_request(host_, method, url, headers, body, timeout_s);
        reply.status = r.status;
        reply.body = r.body;
        const ah_status_t st = r.transport;
        const std::string &error = r.error;
        if (st != AH_OK) throw ProviderUnreachable("cannot reach " + url + ": " + error, st == AH_ERR_TIMEOUT);
        return reply;
    }
    std::string url = base_url_ + path;
    try {
        Poco::Net::HTTPSClientSession session(tls_->host, tls_->port, tls_->context);
        session.setTimeout(Poco::Timespan(static_cast<Poco::Timespan::TimeDiff>(timeout_s * 1e6)));
        Poco::Net::HTTPRequest req(method, tls_->base_path + path, Poco::Net::HTTPMessage::HTTP_1_1);
        for (const auto &line : headers)
            if (auto h = split_header_line(line)) req.set(h->first, h->second);
        if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH")
            req.setContentLength(static_cast<std::streamsize>(body.size()));
        std::ostream &out = session.sendRequest(req);
        out.write(body.data(), static_cast<std::streamsize>(body.size()));
        Poco::Net::HTTPResponse resp;
        std::istream &in = session.receiveResponse(resp);
        reply.status = static_cast<int>(resp.getStatus());
        Poco::StreamCopier::copyToString(in, reply.body);
        return reply;
    } catch (const Poco::TimeoutException &e) {
        throw ProviderUnreachable("timed out talking to " + url + ": " + e.displayText(), true);
    } catch (const Poco::Exception &e) {
        throw ProviderUnreachable("cannot reach " + url + ": " + e.displayText(), false);
    } catch (const std::ios_base::failure &e) {
        throw ProviderUnreachable("cannot reach " + url + ": " + e.what(), false);
    }
}

}  // namespace actionhost::runtime_support

// Detached Ed25519 signatures over a plugin artifact's manifest digest, with OpenSSL's libcrypto (the
// client links it already; docs/design.md, "Plugin signatures", says why not minisign). Keys are PEM
// files as `openssl genpkey -algorithm ed25519` writes them (private) and `openssl pkey -pubout` (public).
//
// What is signed is the text "actionhost-plugin-signature-v1\n" followed by the digest ("sha256:<hex>"):
// the prefix keeps a signature of ours from meaning anything to another tool that signs digests. The
// signature document (JSON, stored in the registry beside the artifact under the tag
// "sha256-<hex>.sig", cosign's convention) is:
//   {"signed": "sha256:<hex>", "algorithm": "ed25519", "key_id": "sha256:<hex of the raw public key>",
//    "signature": "<base64>"}
//
// Threads: any; nothing is shared.
#pragma once

#include <string>
#include <vector>

namespace actionhost::client::plugins {

inline constexpr const char *kSignaturePrefix = "actionhost-plugin-signature-v1\n";

// The signature document for `digest` made with the private key in `private_key_pem` (a path).
// std::runtime_error naming the file when it is no Ed25519 private key.
std::string sign_digest(const std::string &digest, const std::string &private_key_pem);

struct VerifiedSignature {
    std::string key_id;
    std::string key_file;  // the public key (of `public_key_pems`) that verified it
};

// Checks that `document` is a signature of `digest` by one of the public keys in `public_key_pems`
// (paths). std::runtime_error saying why not: the document is malformed, signs another digest, is by a
// key none of those is, or does not verify.
VerifiedSignature verify_signature(const std::string &document, const std::string &digest, const std::vector<std::string> &public_key_pems);

// "sha256:<hex>" of the raw public key in `pem` (a private or a public key file): what `plugin ls`
// and the errors show.
std::string key_id_of_file(const std::string &pem);

}  // namespace actionhost::client::plugins

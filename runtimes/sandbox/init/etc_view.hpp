// The sandbox's /etc: the machine's configuration that commands need, read-only, with the identity files
// generated for the sandbox and the machine's secrets absent.
//
// A read-only overlay of two layers: on top a small generated layer (passwd, group, hosts, hostname,
// resolv.conf naming only the sandbox, plus overlay "whiteouts" that remove entries), below the
// machine's /etc. One mount instead of a bind per entry (~140 binds cost 5-10 ms of a ~40 ms start).
// Removed: every top-level entry other users may not read (shadow, gshadow, sudoers, ...), the backups
// of the identity files, and named secrets deeper down (ssh host keys, ssl/private, VPN and Wi-Fi
// secrets...). The sandbox's ids are unprivileged on the machine, so what is left is only what any
// user of the machine may read anyway.
#pragma once

#include <sys/types.h>

#include <string>

#include "mount_ops.hpp"

namespace sandbox {

struct Identity {
    std::string user;   // the sandbox's user (may be "root")
    uid_t uid;
    gid_t gid;
    std::string home;   // its home directory inside
    std::string hostname;
    std::string resolv_conf;  // the sandbox's /etc/resolv.conf (sandbox_resolv_conf)
    std::string extra_trust;  // PEM certificates added to the sandbox's CA bundle (its egress proxy's CA), or ""
};

// Where the sandbox's CA bundle is (Debian's path, which OpenSSL, GnuTLS and curl there read; SSL_CERT_FILE
// points the others to it).
inline constexpr const char *kCaBundle = "/etc/ssl/certs/ca-certificates.crt";
// `bundle` (a CA bundle's text) with `extra` after it, a newline between them when missing.
std::string with_extra_trust(std::string bundle, const std::string &extra);

// Writes the generated layer into the directory `layer` of `scratch` and mounts the overlay at `target`
// (which must exist). Must run before the machine's root is left (the lower layer is its /etc).
// The machine's /etc/resolv.conf, for a sandbox on the machine's network.
std::string machine_resolv_conf();
// What a sandbox of `network_mode` resolves names with: the machine's resolver (host), pasta's DNS
// forwarder (internet), nothing (none).
std::string sandbox_resolv_conf(const std::string &network_mode);

void mount_etc_view(const DetachedMount &scratch, const std::string &layer, const Identity &id, const std::string &target);

}  // namespace sandbox

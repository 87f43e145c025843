// `ahctl plugin install`: everything fetched and checked before a byte is written to the plugin
// directory, then each plugin staged beside its place and renamed into it.
//
//   1. resolve   the artifact the reference names, then each plugin it requires: one in range installed
//                already, else the highest tag of <registry>/<same folder>/<name> in range
//   2. check     per plugin: its signature (when keys are given), ABI and platform annotations, config
//                and layer downloaded into a scratch store (digests verified), the layer's manifest.json
//                and library ELF header agreeing with the annotations and with this machine
//   3. stage     each layer unpacked into <dir>/.<name>.installing-XXXXXX/<name> (a folder the host's
//                scan of <dir>/*/manifest.json does not see)
//   4. commit    each staged folder renamed into <dir>/<name> (an existing one swapped out atomically
//                with RENAME_EXCHANGE), dependencies first; a failure puts back what was committed
#include <actionhost/modules/manifest.hpp>
#include <actionhost/modules/module_library.hpp>
#include <actionhost/modules/version_range.hpp>
#include <actionhost/runtime_support/image_reference.hpp>

#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>

#include <actionhost/common/json_write.hpp>

#include "plugins/elf_platform.hpp"
#include "plugins/plugin_artifact.hpp"
#include "plugins/plugin_layer.hpp"
#include "plugins/plugin_ops.hpp"
#include "plugins/plugin_signature.hpp"

namespace actionhost::client::plugins {

namespace fs = std::filesystem;
using runtime_support::ImageReference;

namespace {

constexpr size_t kMaxPlugins = 64;  // one install resolves at most this many plugins

struct Planned {
    ImageReference ref;
    std::string reference;  // as text, for messages and the record
    std::string digest;
    ArtifactInfo info;
    std::string signed_by;
    std::string required_by;  // "" for the plugin asked for
};

std::string text_of(const ImageReference &r, const std::string &tag_or_digest) {
    return r.registry + "/" + r.path + (tag_or_digest.rfind("sha256:", 0) == 0 ? "@" : ":") + tag_or_digest;
}

ah_version_t abi_of(const std::string &text, const std::string &who) {
    unsigned major = 0, minor = 0, patch = 0;
    char rest = 0;
    if (std::sscanf(text.c_str(), "%u.%u.%u%c", &major, &minor, &patch, &rest) != 3)
        throw std::runtime_error(who + ": its ABI version \"" + text + "\" is not MAJOR.MINOR.PATCH");
    return {major, minor, patch};
}

class Installer {
  public:
    Installer(const images::RegistrySettings &settings, const PluginInstallOptions &options, const PluginProgress &progress)
        : settings_(settings), options_(options), progress_(progress), scratch_(temp_parent(), "ahctl-plugin-install-"), store_(scratch_.path()) {}

    std::vector<InstalledPlugin> run() {
        installed_ = installed_in(options_.dir);
        ImageReference root;
        try {
            root = runtime_support::parse_image_reference(options_.reference);
        } catch (const std::invalid_argument &e) {
            throw std::runtime_error(e.what());
        }
        plan(root, root.digest.empty() ? root.tag : root.digest, "");
        for (auto &p : plan_) check(p);
        return commit();
    }

  private:
    void say(const std::string &line) const {
        if (progress_) progress_(line);
    }

    // Adds the artifact `ref`:`tag_or_digest` names and, first, what it requires.
    void plan(const ImageReference &ref, const std::string &tag_or_digest, const std::string &required_by) {
        if (plan_.size() + pending_.size() >= kMaxPlugins) throw std::runtime_error("more than " + std::to_string(kMaxPlugins) + " plugins to install: refused");
        Planned p;
        p.ref = ref;
        p.reference = text_of(ref, tag_or_digest);
        p.required_by = required_by;
        say("resolving " + p.reference);
        images::RegistryClient client(ref, settings_);
        const images::FetchedDocument doc = client.manifest(tag_or_digest);
        p.digest = doc.digest;
        try {
            p.info = parse_artifact_manifest(doc.bytes);
        } catch (const std::exception &e) {
            throw std::runtime_error(p.reference + ": " + e.what());
        }
        pending_.push_back(p.info.name);
        for (const auto &[name, range_text] : p.info.requires_plugins) resolve(p, name, range_text);
        pending_.pop_back();
        plan_.push_back(std::move(p));
    }

    void resolve(const Planned &from, const std::string &name, const std::string &range_text) {
        auto parsed = modules::VersionRange::parse(range_text);
        if (!parsed) throw std::runtime_error("the plugin '" + from.info.name + "' requires '" + name + "' with a bad range: " + parsed.error().message);
        const modules::VersionRange &range = parsed.value();
        const std::string wanted = "'" + name + "'" + (range.any() ? "" : " " + range_text);
        if (std::find(pending_.begin(), pending_.end(), name) != pending_.end())
            throw std::runtime_error("the plugin '" + from.info.name + "' requires " + wanted + ", which requires it in turn (cycle): nothing installed");
        for (const auto &p : plan_)
            if (p.info.name == name) {
                if (range.contains(p.info.version)) return;
                throw std::runtime_error("the plugin '" + from.info.name + "' requires " + wanted + ", but " + p.reference + " (" + p.info.version +
                                         ") is what another plugin of this install needs: nothing installed");
            }
        for (const auto &i : installed_)
            if (i.name == name && range.contains(i.version)) {
                say(name + " " + i.version + " is installed already (" + wanted + ")");
                return;
            }
        ImageReference dep = from.ref;
        dep.digest.clear();
        const size_t slash = from.ref.path.rfind('/');
        dep.path = (slash == std::string::npos ? "" : from.ref.path.substr(0, slash + 1)) + name;
        std::vector<std::string> tags;
        try {
            tags = images::RegistryClient(dep, settings_).tags(10000);
        } catch (const std::exception &e) {
            throw std::runtime_error("the plugin '" + from.info.name + "' requires " + wanted + ", but the tags of " + dep.registry + "/" + dep.path +
                                     " cannot be listed (" + e.what() + "): nothing installed");
        }
        const std::string best = range.best_of(tags);
        if (best.empty()) {
            std::string versions;
            for (const auto &t : tags)
                if (modules::parse_plugin_version(t)) versions += (versions.empty() ? "" : ", ") + t;
            throw std::runtime_error("the plugin '" + from.info.name + "' requires " + wanted + ", but no version of " + dep.registry + "/" + dep.path +
                                     " is in that range (it has " + (versions.empty() ? std::string("none") : versions) + "): nothing installed");
        }
        dep.tag = best;
        plan(dep, best, from.info.name);
    }

    // Everything about `p` that can be known without writing to the plugin directory.
    void check(Planned &p) {
        const std::string who = p.reference;
        images::RegistryClient client(p.ref, settings_);
        if (!options_.trusted_keys.empty()) p.signed_by = check_signature(client, p);
        if (auto ok = modules::abi_supported(abi_of(p.info.abi_version, who), modules::ModuleKind::Plugin); !ok)
            throw std::runtime_error(who + ": " + ok.error().message + ": nothing installed");
        const std::string here = host_platform();
        if (p.info.platform != here)
            throw std::runtime_error(who + " is built for " + p.info.platform + ", this machine is " + here + ": nothing installed");
        say("fetching " + who);
        try {
            client.blob(p.info.config, store_);
            client.blob(p.info.layer, store_);
        } catch (const std::exception &e) {
            throw std::runtime_error(who + ": " + e.what() + ": nothing installed");
        }
        check_artifact_config(p.info, store_.read(p.info.config.digest, 1 << 20));
        const LayerScan scan = scan_plugin_layer(store_.path(p.info.layer.digest), kMaxPluginBytes);
        if (scan.manifest_json.empty()) throw std::runtime_error(who + ": its layer has no manifest.json: nothing installed");
        auto m = modules::parse_manifest(scan.manifest_json, "");
        if (!m) throw std::runtime_error(who + ": its manifest.json: " + m.error().message + ": nothing installed");
        const modules::Manifest &manifest = m.value();
        if (manifest.kind != modules::ModuleKind::Plugin) throw std::runtime_error(who + ": its manifest.json is not a plugin's: nothing installed");
        if (manifest.name != p.info.name || manifest.version != p.info.version || modules::to_string(manifest.abi_version) != p.info.abi_version)
            throw std::runtime_error(who + ": its manifest.json says " + manifest.name + " " + manifest.version + " ABI " + modules::to_string(manifest.abi_version) +
                                     ", its annotations " + p.info.name + " " + p.info.version + " ABI " + p.info.abi_version + ": nothing installed");
        const auto head = scan.heads.find(manifest.library);
        if (head == scan.heads.end()) throw std::runtime_error(who + ": its layer lacks the library " + manifest.library + ": nothing installed");
        std::string built_for;
        try {
            built_for = elf_platform(head->second);
        } catch (const std::exception &e) {
            throw std::runtime_error(who + ": its library " + manifest.library + ": " + e.what() + ": nothing installed");
        }
        if (built_for != here)
            throw std::runtime_error(who + ": its library " + manifest.library + " is built for " + built_for + ", this machine is " + here +
                                     (built_for != p.info.platform ? " (its platform annotation says " + p.info.platform + ")" : "") +
                                     ": nothing installed");
    }

    std::string check_signature(images::RegistryClient &client, const Planned &p) {
        const std::string tag = signature_tag(p.digest);
        images::FetchedDocument sig;
        try {
            sig = client.manifest(tag);
        } catch (const std::exception &) {
            throw std::runtime_error(p.reference + " is not signed (no " + p.ref.registry + "/" + p.ref.path + ":" + tag +
                                     ") and a signature is required: nothing installed");
        }
        try {
            const images::Descriptor doc = parse_signature_manifest(sig.bytes);
            if (doc.size > 64 * 1024) throw std::runtime_error("its signature document is larger than 64 KiB");
            client.blob(doc, store_);
            return verify_signature(store_.read(doc.digest, 64 * 1024), p.digest, options_.trusted_keys).key_id;
        } catch (const std::exception &e) {
            throw std::runtime_error(p.reference + ": " + e.what() + ": nothing installed");
        }
    }

    std::vector<InstalledPlugin> commit() {
        std::error_code ec;
        fs::create_directories(options_.dir, ec);
        if (ec) throw std::runtime_error("cannot create the plugin directory " + options_.dir + ": " + ec.message());
        struct Staged {
            const Planned *plan;
            std::unique_ptr<ScratchDir> stage;
            std::string target;
            bool committed = false, swapped = false;
        };
        std::vector<Staged> staged;
        for (const auto &p : plan_) {
            Staged s{&p, std::make_unique<ScratchDir>(options_.dir, "." + p.info.name + ".installing-"), options_.dir + "/" + p.info.name};
            const std::string folder = s.stage->path() + "/" + p.info.name;
            if (::mkdir(folder.c_str(), 0755) != 0) throw std::runtime_error("cannot create " + folder + ": " + std::strerror(errno));
            say("installing " + p.info.name + " " + p.info.version);
            extract_plugin_layer(store_.path(p.info.layer.digest), folder, kMaxPluginBytes);
            std::ofstream(folder + "/" + kInstallRecord)
                << common::dump_json(nlohmann::json{{"reference", p.reference}, {"digest", p.digest}, {"signed_by", p.signed_by}, {"platform", p.info.platform}});
            staged.push_back(std::move(s));
        }
        // Dependencies were planned first: committed in that order, the host never sees a plugin whose
        // requirement is missing.
        try {
            for (auto &s : staged) {
                const std::string folder = s.stage->path() + "/" + s.plan->info.name;
                if (::renameat2(AT_FDCWD, folder.c_str(), AT_FDCWD, s.target.c_str(), RENAME_NOREPLACE) == 0) {
                    s.committed = true;
                } else if (errno == EEXIST && ::renameat2(AT_FDCWD, folder.c_str(), AT_FDCWD, s.target.c_str(), RENAME_EXCHANGE) == 0) {
                    s.committed = s.swapped = true;  // the old folder is now in the stage, removed with it
                } else {
                    throw std::runtime_error("cannot move " + s.plan->info.name + " into " + s.target + ": " + std::strerror(errno));
                }
            }
        } catch (...) {
            for (auto &s : staged) {
                if (!s.committed) continue;
                const std::string folder = s.stage->path() + "/" + s.plan->info.name;
                // A swapped folder is swapped back (the old one returns); a new one goes back to its stage.
                if (s.swapped) ::renameat2(AT_FDCWD, folder.c_str(), AT_FDCWD, s.target.c_str(), RENAME_EXCHANGE);
                else fs::rename(s.target, folder, ec);
            }
            throw;
        }
        std::vector<InstalledPlugin> out;
        for (const auto &s : staged) {
            const Planned &p = *s.plan;
            out.push_back({p.info.name, p.info.version, p.info.abi_version, p.info.platform, s.target, p.reference, p.digest, p.signed_by, false});
        }
        return out;
    }

    const images::RegistrySettings &settings_;
    const PluginInstallOptions &options_;
    const PluginProgress &progress_;
    ScratchDir scratch_;
    images::BlobStore store_;
    std::vector<InstalledPlugin> installed_;
    std::vector<Planned> plan_;         // dependencies before what requires them
    std::vector<std::string> pending_;  // the chain being resolved (cycles)
};

}  // namespace

std::vector<InstalledPlugin> install(const images::RegistrySettings &settings, const PluginInstallOptions &options, const PluginProgress &progress) {
    return Installer(settings, options, progress).run();
}

}  // namespace actionhost::client::plugins

// The docker image mode's install-tree hash: the cached digest equals the computed one, is reused
// while no file changes, and is computed again when a file changes (content, size or mtime).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "install_hash.hpp"
#include "support/temp_dir.hpp"

using actionhost::testing::TempDir;
using actionhost::testing::write_file;
namespace fs = std::filesystem;

namespace {

// A tiny install tree whose files are old enough for the cache to trust them.
struct Tree {
    TempDir dir{"ahhash"};
    std::string cache = dir / "cache/hashes.json";
    std::string root = dir / "install";
    Tree() {
        fs::create_directories(root + "/bin");
        fs::create_directories(root + "/lib/actionhost/plugins/bash/__pycache__");
        write_file(root + "/bin/actionhost", "host binary");
        write_file(root + "/lib/actionhost/plugins/bash/libbash.so", "module");
        write_file(root + "/lib/actionhost/plugins/bash/__pycache__/x.pyc", "ignored");
        age_all();
    }
    void age_all() {
        for (auto &e : fs::recursive_directory_iterator(root))
            if (e.is_regular_file()) age(e.path());
    }
    static void age(const fs::path &p) { fs::last_write_time(p, fs::file_time_type::clock::now() - std::chrono::hours(1)); }
    nlohmann::json cache_json() const {
        std::ifstream in(cache);
        return nlohmann::json::parse(in);
    }
};

}  // namespace

TEST(InstallTreeHash, CachedDigestEqualsTheComputedOneAndIsReused) {
    Tree t;
    const std::string computed = docker::install_tree_hash(t.root);
    EXPECT_EQ(computed.size(), 32u);
    EXPECT_EQ(docker::cached_install_tree_hash(t.root, t.cache), computed);
    ASSERT_TRUE(fs::exists(t.cache));

    // Proof that the second call reads the cache: a doctored digest comes back as long as no file changed.
    auto j = t.cache_json();
    ASSERT_EQ(j.size(), 1u);
    j.begin().value()["hash"] = "doctored";
    write_file(t.cache, j.dump());
    EXPECT_EQ(docker::cached_install_tree_hash(t.root, t.cache), "doctored");
}

TEST(InstallTreeHash, AChangedFileIsHashedAgainEvenWithTheSameSize) {
    Tree t;
    const std::string before = docker::cached_install_tree_hash(t.root, t.cache);
    write_file(t.root + "/lib/actionhost/plugins/bash/libbash.so", "MODULE");  // same size
    t.age_all();  // and an old mtime again, but a different one than cached
    const std::string after = docker::cached_install_tree_hash(t.root, t.cache);
    EXPECT_NE(after, before);
    EXPECT_EQ(after, docker::install_tree_hash(t.root));
}

TEST(InstallTreeHash, FreshFilesAreNeverCached) {
    Tree t;
    write_file(t.root + "/lib/actionhost/new.json", "{}");  // mtime: now — a build may still be writing
    const std::string digest = docker::cached_install_tree_hash(t.root, t.cache);
    EXPECT_EQ(digest, docker::install_tree_hash(t.root));
    EXPECT_FALSE(fs::exists(t.cache));
}

TEST(InstallTreeHash, PycacheAndHiddenDirectoriesDoNotCount) {
    Tree t;
    const std::string before = docker::install_tree_hash(t.root);
    write_file(t.root + "/lib/actionhost/plugins/bash/__pycache__/y.pyc", "more");
    fs::create_directories(t.root + "/lib/actionhost/.git");
    write_file(t.root + "/lib/actionhost/.git/HEAD", "ref");
    EXPECT_EQ(docker::install_tree_hash(t.root), before);
}

TEST(InstallTreeHash, AnUnreadableCacheIsIgnored) {
    Tree t;
    fs::create_directories(fs::path(t.cache).parent_path());
    write_file(t.cache, "not json {");
    EXPECT_EQ(docker::cached_install_tree_hash(t.root, t.cache), docker::install_tree_hash(t.root));
    EXPECT_EQ(t.cache_json().size(), 1u);  // replaced by a good one
}

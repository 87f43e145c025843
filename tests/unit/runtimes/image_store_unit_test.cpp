// The client image store's pieces that need no registry or sandbox: which registry hosts count as this
// machine's loopback (plain http allowed), and which directories may hold a store.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "images/image_store.hpp"
#include "images/registry_client.hpp"
#include "support/temp_dir.hpp"

namespace images = actionhost::client::images;
namespace fs = std::filesystem;

// Plain http only for an address literal of the loopback (or "localhost"): a name that starts with
// "127." resolves wherever its owner likes.
TEST(RegistryBaseUrl, PlainHttpOnlyForLoopbackLiterals) {
    EXPECT_EQ(images::registry_base_url("127.0.0.1:5000", {}), "http://127.0.0.1:5000");
    EXPECT_EQ(images::registry_base_url("127.1.2.3:5000", {}), "http://127.1.2.3:5000");
    EXPECT_EQ(images::registry_base_url("localhost:5000", {}), "http://localhost:5000");
    EXPECT_EQ(images::registry_base_url("[::1]:5000", {}), "http://[::1]:5000");
    EXPECT_EQ(images::registry_base_url("127.evil.example:5000", {}), "https://127.evil.example:5000");
    EXPECT_EQ(images::registry_base_url("127.0.0.1.evil.example", {}), "https://127.0.0.1.evil.example");
    EXPECT_EQ(images::registry_base_url("10.0.0.5:5000", {}), "https://10.0.0.5:5000");
    EXPECT_EQ(images::registry_base_url("10.0.0.5:5000", {"10.0.0.5:5000"}), "http://10.0.0.5:5000");
    EXPECT_EQ(images::registry_base_url("docker.io", {}), "https://registry-1.docker.io");
}

// A store in a directory someone else owns (the /tmp fallback another user made first), or one that is
// writable by others, is refused: its layers would be theirs to plant.
TEST(ImageStoreRoot, AStoreInAnotherUsersDirectoryIsRefused) {
    actionhost::testing::TempDir dir("ahimg-unit");
    images::StoreSettings mine;
    mine.root = dir / "own/images";
    EXPECT_NO_THROW(images::ImageStore{mine});
    struct stat st{};
    ASSERT_EQ(::stat(mine.root.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);

    fs::create_directories(dir / "open");
    ::chmod((dir / "open").c_str(), 0777);
    images::StoreSettings open;
    open.root = dir / "open/images";
    EXPECT_THROW(images::ImageStore{open}, std::runtime_error) << "a store below a world-writable directory";

    fs::create_directory_symlink(dir / "own/images", dir / "link");
    images::StoreSettings linked;
    linked.root = dir / "link";
    EXPECT_THROW(images::ImageStore{linked}, std::runtime_error) << "a store that is a link";

    if (::geteuid() != 0) GTEST_SKIP() << "only root can give a directory to another user here";
    fs::create_directories(dir / "theirs");
    ASSERT_EQ(::chown((dir / "theirs").c_str(), 65534, 65534), 0);
    images::StoreSettings theirs;
    theirs.root = dir / "theirs/images";
    try {
        images::ImageStore store(theirs);
        ADD_FAILURE() << "a store in another user's directory was used";
    } catch (const std::runtime_error &e) {
        EXPECT_NE(std::string(e.what()).find("belongs to uid 65534"), std::string::npos) << e.what();
    }
}

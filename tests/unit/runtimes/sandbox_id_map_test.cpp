// The sandbox's uid/gid maps (runtimes/sandbox/init/id_map.cpp): who each id inside is on the machine.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "id_map.hpp"
#include "support/temp_dir.hpp"

using namespace sandbox;

TEST(SandboxIdMap, AnUnprivilegedCallerMapsOnlyItsOwnIds) {
    IdMaps m = compute_id_maps({1000, 1000, 1000, 1000, 1000, 1000});
    EXPECT_EQ(m.uid_map, "1000 1000 1\n");
    EXPECT_EQ(m.gid_map, "1000 1000 1\n");
    EXPECT_TRUE(m.deny_setgroups);
    // The sandbox's user may have another id inside (e.g. OpenHands' 1000 for a caller 1234).
    m = compute_id_maps({1234, 100, 1000, 1000, 1234, 100});
    EXPECT_EQ(m.uid_map, "1000 1234 1\n");
    EXPECT_EQ(m.gid_map, "1000 100 1\n");
    EXPECT_EQ(m.outside_uid, 1234u);
}

TEST(SandboxIdMap, RootInsideIsTheRangeBaseForARootCaller) {
    // A workspace already handed to base+0: one contiguous range, nothing maps to the machine's root.
    const auto base = static_cast<uid_t>(kDefaultIdBase);
    const IdMaps m = compute_id_maps({0, 0, 0, 0, base, base});
    EXPECT_EQ(m.uid_map, "0 1879048192 65536\n");
    EXPECT_EQ(m.gid_map, "0 1879048192 65536\n");
    EXPECT_FALSE(m.deny_setgroups);
    EXPECT_EQ(m.outside_uid, kDefaultIdBase);
}

TEST(SandboxIdMap, TheSandboxUserKeepsTheWorkspaceOwnersId) {
    // Root starts a sandbox on alice's (1000) workspace with the sandbox user 1000: keep-id for it, the
    // rest of the range around it.
    const IdMaps m = compute_id_maps({0, 0, 1000, 1000, 1000, 1000, 500000, 600000});
    EXPECT_EQ(m.uid_map, "0 500000 1000\n1000 1000 1\n1001 501001 64535\n");
    EXPECT_EQ(m.gid_map, "0 600000 1000\n1000 1000 1\n1001 601001 64535\n");
    // Root inside as the workspace owner: the first line is the kept one.
    const IdMaps r = compute_id_maps({0, 0, 0, 0, 1000, 1000, 500000, 500000});
    EXPECT_EQ(r.uid_map, "0 1000 1\n1 500001 65535\n");
}

TEST(SandboxIdMap, NothingIsEverMappedToTheMachinesRoot) {
    EXPECT_THROW(compute_id_maps({0, 0, 0, 0, 0, 0}), std::invalid_argument);        // a root-owned workspace
    EXPECT_THROW(compute_id_maps({0, 0, 0, 0, 1000, 0}), std::invalid_argument);     // group root
    EXPECT_THROW(compute_id_maps({0, 0, 70000, 0, 1000, 1000}), std::invalid_argument);  // id past the range
    // A workspace owned by another id of the range must be handed over first (two inside ids would
    // otherwise be one outside id).
    const auto other = static_cast<uid_t>(kDefaultIdBase + 5);
    EXPECT_THROW(compute_id_maps({0, 0, 1000, 1000, other, other}), std::invalid_argument);
    for (uid_t inside : {0u, 1u, 1000u, 65535u}) {
        const auto owner = static_cast<uid_t>(kDefaultIdBase + inside);
        const IdMaps m = compute_id_maps({0, 0, inside, inside, owner, owner});
        EXPECT_EQ(m.uid_map.find(" 0 "), std::string::npos) << m.uid_map;
        EXPECT_EQ(m.uid_map.rfind("0 0", 0), std::string::npos) << m.uid_map;
    }
}

TEST(SandboxIdMap, TheRangeComesFromAnActionhostLineOfSubuid) {
    actionhost::testing::TempDir dir;
    const std::string file = dir / "subuid";
    actionhost::testing::write_file(file, "alice:100000:65536\nactionhost:300000:1000\nactionhost:400000:65536\n");
    EXPECT_EQ(subordinate_base(file, "actionhost", 7), 400000u);  // the first line with a whole range
    EXPECT_EQ(subordinate_base(file, "bob", 7), 7u);
    EXPECT_EQ(subordinate_base(dir / "missing", "actionhost", 7), 7u);
    actionhost::testing::write_file(file, "actionhost:0:65536\nactionhost:x:y\n");
    EXPECT_EQ(subordinate_base(file, "actionhost", 7), 7u);  // never a range starting at root
}

// The idmapped workspace's mapping (stored on disk → machine id): the owner is the sandbox's user and the
// rest of the range is itself, so the sandbox's root (the host) can create files there too.
TEST(SandboxIdMap, TheWorkspaceMountMapsTheOwnerAndKeepsTheRestOfTheRange) {
    const unsigned long base = 500000, user = base + 1000;
    // A root-owned workspace: root on disk is the user; the user's own id is nothing on disk.
    EXPECT_EQ(mount_id_map(0, user, base), "500000 500000 1000\n501001 501001 64535\n0 501000 1\n");
    // An owner of another id of the range trades places with the user.
    EXPECT_EQ(mount_id_map(base + 5, user, base),
              "500000 500000 5\n500006 500006 994\n501001 501001 64535\n500005 501000 1\n501000 500005 1\n");
    EXPECT_EQ(mount_id_map(base + 2000, user, base),
              "500000 500000 1000\n501001 501001 999\n502001 502001 63535\n502000 501000 1\n501000 502000 1\n");
    // Already the user's (only the group needed a mapping): the whole range as itself.
    EXPECT_EQ(mount_id_map(user, user, base), "500000 500000 65536\n");
    // The edges of the range: the sandbox's user is root inside, or the range's last id.
    EXPECT_EQ(mount_id_map(0, base, base), "500001 500001 65535\n0 500000 1\n");
    EXPECT_EQ(mount_id_map(0, base + 65535, base), "500000 500000 65535\n0 565535 1\n");
    EXPECT_THROW(mount_id_map(0, base - 1, base), std::invalid_argument);
    // No line maps the machine's root unless root is the owner, and then only to the sandbox's user.
    for (unsigned long owner : {0ul, 1000ul, base, base + 1000, base + 65535})
        for (unsigned long inside : {0ul, 1ul, 1000ul, 65535ul}) {
            const std::string map = mount_id_map(owner, base + inside, base);
            size_t ids = 0;
            for (size_t at = 0; at < map.size();) {
                const size_t end = map.find('\n', at);
                unsigned long disk = 0, kernel = 0, n = 0;
                ASSERT_EQ(std::sscanf(map.substr(at, end - at).c_str(), "%lu %lu %lu", &disk, &kernel, &n), 3) << map;
                EXPECT_TRUE(kernel >= base && kernel + n <= base + kIdRangeSize) << map;
                if (disk == 0) {
                    EXPECT_EQ(kernel, base + inside) << map;
                }
                ids += n;
                at = end + 1;
            }
            EXPECT_EQ(ids, kIdRangeSize) << map;  // one disk id for each id of the range
        }
}

// describe_storage() on real mounts: a tmpfs (no block device) and ext4 on a loop device over a
// file (loop -> its backing file's device).
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <catch2/catch.hpp>
#include <iobench/explain.hpp>

#include "loop_fs.hpp"
#include "tests/support/test_support.hpp"

namespace {
using namespace iobench::explain;
namespace test = iobench::test;
}  // namespace

TEST_CASE("a tmpfs directory has no block device and is named as page cache only",
          "[explain][chain]") {
  const test::ScopedTmpfs tmpfs("4m");
  if (!tmpfs.mounted()) {
    WARN("skipped: mounting a tmpfs needs root");
    return;
  }
  const StorageChain chain = describe_storage(tmpfs.path() / "not-yet-there");
  CHECK(chain.fs_type == "tmpfs");
  CHECK(chain.mount_point == std::filesystem::canonical(tmpfs.path()).string());
  CHECK(chain.no_block_device == "tmpfs: no block device: page cache only");
  CHECK(chain.devices.empty());
  CHECK(chain_device_names(std::vector<StorageChain>{chain}).empty());
}

TEST_CASE("ext4 on a loop device chains the loop device to its backing file's device",
          "[explain][chain]") {
  const test::LoopFs loop(16 * test::kMiB);
  if (!loop.refused().empty()) {
    WARN("skipped: " << loop.refused());
    return;
  }
  const StorageChain chain = describe_storage(loop.mount_point());
  CHECK(chain.fs_type == "ext4");
  CHECK(chain.source == loop.device());
  CHECK(chain.no_block_device.empty());
  CHECK(chain.mount_options.find("noatime") != std::string::npos);
  REQUIRE(chain.devices.size() >= 2);
  const BlockDevice& dev = chain.devices[0];
  CHECK(dev.name == loop.name());
  CHECK(dev.device == loop.device_number());
  CHECK(dev.role == "filesystem");
  CHECK(dev.backing_file == std::filesystem::canonical(loop.image()).string());
  CHECK(dev.logical_block_size == 512);
  CHECK(dev.rotational.has_value());
  CHECK_FALSE(dev.scheduler.empty());
  // The backing file's st_dev is the next device in the chain.
  struct stat st {};
  REQUIRE(::stat(loop.image().c_str(), &st) == 0);
  const BlockDevice& backing = chain.devices[1];
  CHECK(backing.role == "loop backing");
  CHECK(backing.device ==
        std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev)));
  const std::vector<std::string> names =
      chain_device_names(std::vector<StorageChain>{chain, chain});
  CHECK(names.size() == chain.devices.size());
  CHECK(names.front() == loop.name());

  // The loop device itself as the target (read in place): its chain, not /dev's devtmpfs.
  const StorageChain raw = describe_storage(loop.device());
  CHECK(raw.no_block_device.empty());
  REQUIRE(raw.devices.size() == chain.devices.size());
  CHECK(raw.devices[0].name == loop.name());
  CHECK(raw.devices[0].role == "target");
  CHECK(raw.devices[1].device == backing.device);
}

// describe_storage() on real mounts: a tmpfs (no block device) and ext4 on a loop device over a
// file (loop -> its backing file's device).
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <catch2/catch.hpp>
#include <iobench/explain.hpp>

#include "loop_fs.hpp"
#include "report/explain_json.hpp"
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

namespace {

// An overlay mounted over `lower` with its upper and work directories in `upper_fs`, unmounted
// with the object; refused() says why not (not root, no overlay module).
class OverlayMount {
 public:
  OverlayMount(const std::filesystem::path& lower, const std::filesystem::path& upper_fs) {
    upper_ = upper_fs / "upper";
    const std::filesystem::path work = upper_fs / "work";
    std::filesystem::create_directories(upper_);
    std::filesystem::create_directories(work);
    std::filesystem::create_directories(mount_point());
    // Canonical names, as describe_storage() resolves them.
    upper_ = std::filesystem::canonical(upper_);
    const std::string command =
        "mount -t overlay overlay -o lowerdir=" + std::filesystem::canonical(lower).string() +
        ",upperdir=" + upper_.string() + ",workdir=" + std::filesystem::canonical(work).string() +
        " " + mount_point().string() + " 2>&1";
    if (iobench::test::run_command(command) == 0) {
      mounted_ = true;
    } else {
      refused_ = "'" + command + "' refused";
    }
  }
  ~OverlayMount() {
    if (mounted_) (void)iobench::test::run_command("umount " + mount_point().string());
  }
  OverlayMount(const OverlayMount&) = delete;
  OverlayMount& operator=(const OverlayMount&) = delete;
  [[nodiscard]] const std::string& refused() const noexcept { return refused_; }
  [[nodiscard]] std::filesystem::path mount_point() const { return dir_.path() / "merged"; }
  [[nodiscard]] const std::filesystem::path& upper() const noexcept { return upper_; }

 private:
  iobench::test::TempDir dir_{"overlay"};
  std::filesystem::path upper_;
  bool mounted_ = false;
  std::string refused_;
};

}  // namespace

TEST_CASE("an overlay names its upper and lower layers and chains the devices under them",
          "[explain][chain]") {
  // tmpfs upper over an ext4-on-loop lower: the overlay has no device of its own; the lower
  // layer's loop device and the disk under its backing file are the chain.
  const test::ScopedTmpfs tmpfs("4m");
  if (!tmpfs.mounted()) {
    WARN("skipped: mounting a tmpfs needs root");
    return;
  }
  const test::LoopFs loop(16 * test::kMiB);
  if (!loop.refused().empty()) {
    WARN("skipped: " << loop.refused());
    return;
  }
  const std::filesystem::path lower = loop.mount_point() / "lower";
  std::filesystem::create_directories(lower);
  const OverlayMount overlay(lower, tmpfs.path());
  if (!overlay.refused().empty()) {
    WARN("skipped: " << overlay.refused());
    return;
  }
  const StorageChain chain = describe_storage(overlay.mount_point());
  CHECK(chain.fs_type == "overlay");
  CHECK(chain.no_block_device.empty());
  REQUIRE(chain.overlay.size() == 2);
  const OverlayLayer& up = chain.overlay[0];
  CHECK(up.role == "upper");
  CHECK(up.dir == std::filesystem::canonical(overlay.upper()).string());
  CHECK(up.fs_type == "tmpfs");
  CHECK(up.mount_point == std::filesystem::canonical(tmpfs.path()).string());
  CHECK(up.device.empty());
  const OverlayLayer& low = chain.overlay[1];
  CHECK(low.role == "lower");
  CHECK(low.dir == std::filesystem::canonical(lower).string());
  CHECK(low.fs_type == "ext4");
  CHECK(low.mount_point == std::filesystem::canonical(loop.mount_point()).string());
  CHECK(low.device == loop.device_number());
  REQUIRE(chain.devices.size() >= 2);
  CHECK(chain.devices[0].name == loop.name());
  CHECK(chain.devices[0].role == "overlay lower");
  CHECK(chain.devices[1].role == "loop backing");

  // The JSON keeps the layers and reads them back.
  PhaseExplanation e;
  e.chains = {chain};
  const PhaseExplanation back =
      iobench::detail::explain_from_json(iobench::detail::explain_to_json(e), "");
  REQUIRE(back.chains.size() == 1);
  REQUIRE(back.chains[0].overlay.size() == 2);
  CHECK(back.chains[0].overlay[1].device == low.device);
  CHECK(back.chains[0].overlay[0].fs_type == "tmpfs");
}

// Destructive runs on block devices (destructive=, force_signature, trims as BLKDISCARD, purge),
// on loop devices over files only: every safety rule's refusal, and what a permitted write, trim
// or purge leaves in the backing file. Root only; without loop devices each case says why it
// is skipped.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iobench/error.hpp>
#include <iobench/runner.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "plugins/disk/device_purge.hpp"
#include "plugins/disk/device_safety.hpp"
#include "plugins/disk/disk_config.hpp"
#include "plugins/disk/disk_formatter.hpp"
#include "tests/disk/loop_device.hpp"
#include "tests/explain/loop_fs.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
using namespace iobench::plugins::disk;

namespace {

constexpr std::uint64_t kImageBytes = 16 << 20;

// A loop device over kImageBytes filled with `fill` (0xAB unless told).
class LoopDevice : public test::LoopDevice {
 public:
  explicit LoopDevice(char fill = '\xAB') : test::LoopDevice(kImageBytes, fill) {}
};

std::string read_bytes(const std::filesystem::path& path, std::uint64_t offset, std::size_t n) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(offset));
  std::string bytes(n, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(n));
  return bytes;
}

// Field `index` (0-based) of /sys/block/NAME/stat: 6 sectors written, 13 sectors discarded.
std::uint64_t device_stat(const std::string& device, std::size_t index) {
  std::ifstream in("/sys/block/" + device.substr(5) + "/stat");
  std::uint64_t value = 0;
  for (std::size_t i = 0; i <= index; ++i) in >> value;
  REQUIRE(in);
  return value;
}

std::uint64_t allocated_bytes(const std::filesystem::path& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return static_cast<std::uint64_t>(st.st_blocks) * 512;
}

// The ConfigError message make_disk_config gives for `raw` on `target`, or "" if accepted.
std::string refusal(const std::map<std::string, std::string>& raw, const std::string& target) {
  const Params params = Params::validate(disk_param_specs(), raw, "disk");
  const std::vector<std::filesystem::path> targets{target};
  try {
    (void)make_disk_config(params, targets);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

RunResult run_disk(std::map<std::string, std::string> params, const std::string& target) {
  const Registry registry = test::make_full_registry();
  test::CapturingReporter reporter;
  return Runner(registry, RunOptions{})
      .run(std::vector<Step>{Step{
               .workload = "disk", .params = std::move(params), .targets = {target}}},
           reporter);
}

#define SKIP_UNLESS_LOOP(loop)             \
  if (!(loop).refused().empty()) {         \
    WARN("skipped: " << (loop).refused()); \
    return;                                \
  }

const std::string kUntouched(64 << 10, '\xAB');

}  // namespace

TEST_CASE("find_signature names each known magic at its offset", "[disk][raw]") {
  struct Case {
    std::size_t offset;
    std::string bytes;
    std::string name;
  };
  const std::vector<Case> cases{
      {1080, "\x53\xEF", "ext2/3/4 (magic 0x53EF at byte 1080)"},
      {0, "XFSB", "XFS (magic 'XFSB' at byte 0)"},
      {65600, "_BHRfS_M", "btrfs (magic '_BHRfS_M' at byte 65600)"},
      {4086, "SWAPSPACE2", "swap (magic 'SWAPSPACE2' at byte 4086)"},
      {0, "LUKS\xBA\xBE", "LUKS (magic 0x4C554B53BABE at byte 0)"},
      {512, "EFI PART", "GPT partition table (magic 'EFI PART' at byte 512)"},
      {510, "\x55\xAA", "MBR partition table or boot sector (magic 0x55AA at byte 510)"},
      {0, "\xFC\x4E\x2B\xA9", "md RAID member (superblock 1.1) (magic 0xFC4E2BA9 at byte 0)"},
      {4096, "\xFC\x4E\x2B\xA9", "md RAID member (superblock 1.2) (magic 0xFC4E2BA9 at byte 4096)"},
      {131072 + 5 * 1024, std::string("\x0C\xB1\xBA\x00\x00\x00\x00\x00", 8),
       "ZFS (uberblock magic 0x00BAB10C at byte 136192)"},
      {131072, std::string("\x00\x00\x00\x00\x00\xBA\xB1\x0C", 8),
       "ZFS (uberblock magic 0x00BAB10C at byte 131072)"},
  };
  for (const Case& c : cases) {
    std::vector<std::byte> head(kSignatureProbeBytes, std::byte{0});
    std::memcpy(head.data() + c.offset, c.bytes.data(), c.bytes.size());
    CHECK(find_signature(head) == std::optional<std::string>(c.name));
  }
  const std::vector<std::byte> blank(kSignatureProbeBytes, std::byte{0xAB});
  CHECK_FALSE(find_signature(blank).has_value());
  // A head too short for a magic's offset is searched as far as it goes.
  CHECK_FALSE(find_signature(std::span(blank).first(100)).has_value());
}

TEST_CASE("a write on a block device without destructive is refused", "[disk][raw]") {
  LoopDevice loop;
  SKIP_UNLESS_LOOP(loop);
  CHECK_THAT(refusal({{"bs", "64k"}, {"blocks", "4"}}, loop.device()),
             Catch::Contains("is a block device; operation=write on it destroys its data") &&
                 Catch::Contains("--destructive=SERIAL"));
  CHECK_THAT(refusal({{"operation", "trim"}, {"bs", "64k"}, {"blocks", "4"}}, loop.device()),
             Catch::Contains("operation=trim") && Catch::Contains("--destructive=SERIAL"));
  // Reads stay as they were: no flag needed; the flag without a write is refused.
  CHECK(refusal({{"operation", "read"}, {"bs", "64k"}, {"blocks", "4"}}, loop.device()).empty());
  CHECK_THAT(
      refusal(
          {{"operation", "read"}, {"bs", "64k"}, {"blocks", "4"}, {"destructive", loop.serial()}},
          loop.device()),
      Catch::Contains("operation=read does not write"));
}

TEST_CASE("a serial that does not match the device is refused with exit 2, nothing written",
          "[disk][raw]") {
  LoopDevice loop;
  SKIP_UNLESS_LOOP(loop);
  CHECK(loop.serial() == std::filesystem::canonical(loop.image()).string());
  const test::CliResult cli = test::run_cli({"run", "disk", "-d", loop.device(), "--destructive",
                                             "/not/the/image", "bs=64k", "blocks=4", "-q"});
  CHECK(cli.exit_code == 2);
  CHECK_THAT(cli.err, Catch::Contains("--destructive=/not/the/image does not match") &&
                          Catch::Contains("loop/backing_file '" + loop.serial() + "'") &&
                          Catch::Contains("give --destructive=SERIAL"));
  CHECK(read_bytes(loop.image(), 0, kUntouched.size()) == kUntouched);
  // The option and the param are the same thing: both at once is refused.
  const test::CliResult both =
      test::run_cli({"run", "disk", "-d", loop.device(), "--destructive", loop.serial(),
                     "destructive=" + loop.serial(), "bs=64k", "blocks=4", "-q"});
  CHECK(both.exit_code == 2);
  CHECK_THAT(both.err, Catch::Contains("--destructive and destructive="));
}

TEST_CASE("a destructive write on a loop device writes exactly its blocks", "[disk][raw]") {
  LoopDevice loop;
  SKIP_UNLESS_LOOP(loop);
  const test::CliResult cli =
      test::run_cli({"run", "disk", "-d", loop.device(), "--destructive", loop.serial(), "bs=64k",
                     "blocks=16", "data=zeros", "-q", "--format", "json"});
  REQUIRE(cli.exit_code == 0);
  const nlohmann::json doc = nlohmann::json::parse(cli.out);
  const nlohmann::json& step = doc.at("steps").at(0);
  CHECK(step.at("attributes").at("destructive.0") == "loop/backing_file '" + loop.serial() + "'");
  CHECK(step.at("phases").at(0).at("ops_by_kind").at("write").at("bytes") == 16 * 65536);
  // The first 1 MiB is zeros, the byte after it still the fill.
  CHECK(read_bytes(loop.image(), 0, 1 << 20) == std::string(1 << 20, '\0'));
  CHECK(read_bytes(loop.image(), 1 << 20, kUntouched.size()) == kUntouched);
}

TEST_CASE("verify on a loop device reads back the stamped blocks a destructive write wrote",
          "[disk][raw]") {
  LoopDevice loop;
  SKIP_UNLESS_LOOP(loop);
  const test::CliResult cli =
      test::run_cli({"run", "disk", "-d", loop.device(), "--destructive", loop.serial(), "bs=64k",
                     "blocks=16", "verify=true", "data=zeros", "-q", "--format", "json"});
  INFO(cli.err);
  REQUIRE(cli.exit_code == 0);
  const nlohmann::json step = nlohmann::json::parse(cli.out).at("steps").at(0);
  CHECK(step.at("phases").at(1).at("name") == "verify");
  CHECK(step.at("phases").at(1).at("ops_by_kind").at("read").at("ops") == 16);
  // Block 3 starts with its stamp: the magic, then its offset; zeros after the 40 bytes.
  const std::string block = read_bytes(loop.image(), 3 * 65536, 65536);
  std::uint64_t offset = 0;
  std::memcpy(&offset, block.data() + 8, 8);
  CHECK(offset == 3 * 65536);
  CHECK(block.substr(40) == std::string(65536 - 40, '\0'));
  // Mixed reads would meet blocks nothing wrote: refused.
  CHECK_THAT(refusal({{"operation", "mixed"}, {"verify", "true"}, {"destructive", loop.serial()}},
                     loop.device()),
             Catch::Contains("only operation=write under --destructive is verified"));
}

TEST_CASE("a mounted device is refused", "[disk][raw]") {
  test::LoopFs fs(kImageBytes);
  if (!fs.refused().empty()) {
    WARN("skipped: " << fs.refused());
    return;
  }
  std::ifstream in("/sys/block/" + fs.name() + "/loop/backing_file");
  std::string serial;
  std::getline(in, serial);
  CHECK_THAT(refusal({{"bs", "64k"}, {"blocks", "4"}, {"destructive", serial}}, fs.device()),
             Catch::Contains("(device " + fs.device_number() + ") is mounted on " +
                             fs.mount_point().string()) &&
                 Catch::Contains("unmount it"));
}

TEST_CASE("a device held by device mapper or opened exclusively is refused", "[disk][raw]") {
  LoopDevice loop;
  SKIP_UNLESS_LOOP(loop);
  const std::map<std::string, std::string> raw{
      {"bs", "64k"}, {"blocks", "4"}, {"destructive", loop.serial()}};
  {
    const int fd = ::open(loop.device().c_str(), O_RDONLY | O_EXCL | O_CLOEXEC);
    REQUIRE(fd >= 0);
    CHECK_THAT(refusal(raw, loop.device()),
               Catch::Contains("is in use: another program opened it exclusively"));
    ::close(fd);
  }
  CHECK(refusal(raw, loop.device()).empty());
  const std::string dm = "iobench-rawdev-" + std::to_string(::getpid());
  if (test::run_command("dmsetup create " + dm + " --table '0 2048 linear " + loop.device() +
                        " 0'") != 0) {
    WARN("holders case skipped: dmsetup create refused");
    return;
  }
  const std::string message = refusal(raw, loop.device());
  test::run_command("dmsetup remove " + dm);
  CHECK_THAT(message, Catch::Contains("is held by dm-") && Catch::Contains("dmsetup remove"));
}

TEST_CASE("a device holding a signature is refused without force_signature", "[disk][raw]") {
  LoopDevice loop;
  SKIP_UNLESS_LOOP(loop);
  {
    // ext2/3/4's magic in the superblock, written through the device.
    const int fd = ::open(loop.device().c_str(), O_WRONLY | O_CLOEXEC);
    REQUIRE(fd >= 0);
    REQUIRE(::pwrite(fd, "\x53\xEF", 2, 1080) == 2);
    REQUIRE(::fsync(fd) == 0);
    ::close(fd);
  }
  std::map<std::string, std::string> raw{
      {"bs", "64k"}, {"blocks", "4"}, {"destructive", loop.serial()}};
  CHECK_THAT(refusal(raw, loop.device()),
             Catch::Contains("holds a ext2/3/4 (magic 0x53EF at byte 1080) signature") &&
                 Catch::Contains("add --force-signature"));
  raw["force_signature"] = "true";
  CHECK(refusal(raw, loop.device()).empty());
}

TEST_CASE("the root file system's device is refused", "[disk][raw]") {
  struct stat root {};
  REQUIRE(::stat("/", &root) == 0);
  std::ifstream uevent(
      fmt::format("/sys/dev/block/{}:{}/uevent", major(root.st_dev), minor(root.st_dev)));
  std::string line, name;
  while (std::getline(uevent, line)) {
    if (line.starts_with("DEVNAME=")) name = line.substr(8);
  }
  // A partition's whole disk is the device to refuse.
  std::error_code ec;
  const auto dir = std::filesystem::canonical(
      fmt::format("/sys/dev/block/{}:{}", major(root.st_dev), minor(root.st_dev)), ec);
  if (!ec && std::filesystem::exists(dir / "partition")) {
    name = dir.parent_path().filename().string();
  }
  struct stat node {};
  if (name.empty() || ::stat(("/dev/" + name).c_str(), &node) != 0 || !S_ISBLK(node.st_mode)) {
    WARN("skipped: / is not on a block device with a node in /dev (" << name << ")");
    return;
  }
  CHECK_THAT(refusal({{"bs", "64k"}, {"blocks", "4"}, {"destructive", "any"}}, "/dev/" + name),
             Catch::Contains(name + " holds the root file system") &&
                 Catch::Contains("never writes the root device"));
}

TEST_CASE("trims on a loop device discard their range and free the backing file's blocks",
          "[disk][raw]") {
  LoopDevice loop('\0');
  SKIP_UNLESS_LOOP(loop);
  const std::map<std::string, std::string> write{
      {"bs", "64k"}, {"blocks", "16"}, {"destructive", loop.serial()}};
  REQUIRE(run_disk(write, loop.device()).status == Status::kOk);
  // Random data, fsynced: the backing file's first 1 MiB is allocated and not zeros.
  const std::uint64_t before = allocated_bytes(loop.image());
  const std::uint64_t discarded_before = device_stat(loop.device(), 13);
  CHECK(read_bytes(loop.image(), 0, 1 << 20) != std::string(1 << 20, '\0'));
  // The random data may hold a magic by chance (0x55AA at byte 510: 1 in 65536).
  const RunResult trim = run_disk({{"operation", "trim"},
                                   {"bs", "64k"},
                                   {"blocks", "8"},
                                   {"destructive", loop.serial()},
                                   {"force_signature", "true"}},
                                  loop.device());
  REQUIRE(trim.status == Status::kOk);
  CHECK(trim.steps.at(0).phases.at(0).ops.at(0).ops == 8);
  CHECK(before - allocated_bytes(loop.image()) == 8 * 65536);
  // Discards (BLKDISCARD), not writes of zeros (a block device's fallocate PUNCH_HOLE).
  CHECK(device_stat(loop.device(), 13) - discarded_before == 8 * 65536 / 512);
  CHECK(read_bytes(loop.image(), 0, 8 * 65536) == std::string(8 * 65536, '\0'));
  CHECK(read_bytes(loop.image(), 8 * 65536, 65536) != std::string(65536, '\0'));
}

TEST_CASE("purge falls back from NVMe format to BLKSECDISCARD to BLKDISCARD on a loop device",
          "[disk][raw]") {
  LoopDevice loop;
  SKIP_UNLESS_LOOP(loop);
  const std::string name = loop.device().substr(5);
  const RunResult run = run_disk({{"operation", "read"},
                                  {"bs", "64k"},
                                  {"blocks", "16"},
                                  {"purge", "auto"},
                                  {"destructive", loop.serial()}},
                                 loop.device());
  REQUIRE(run.status == Status::kOk);
  const StepResult& step = run.steps.at(0);
  const std::string expected = "discard (nvme-format: " + name +
                               " is not an NVMe device; secdiscard: Operation not supported)";
  REQUIRE(step.attribute("purge.0") != nullptr);
  CHECK(std::get<std::string>(*step.attribute("purge.0")) == expected);
  std::ostringstream text;
  format_disk_text(step, text);
  CHECK_THAT(text.str(), Catch::Contains("purge of " + loop.device() + ": " + expected));
  // The loop device discarded everything: the backing file holds no block, reads zeros.
  CHECK(allocated_bytes(loop.image()) == 0);
  CHECK(read_bytes(loop.image(), 0, 1 << 20) == std::string(1 << 20, '\0'));
}

TEST_CASE("purge=overwrite writes zeros over the whole device", "[disk][raw]") {
  LoopDevice loop;
  SKIP_UNLESS_LOOP(loop);
  struct stat st {};
  REQUIRE(::stat(loop.device().c_str(), &st) == 0);
  const PurgeRecord record =
      purge_device(loop.device(), loop.device().substr(5), PurgeMethod::kOverwrite, {}, st.st_rdev);
  CHECK(record.text() == "overwrite");
  CHECK(read_bytes(loop.image(), 0, kImageBytes) == std::string(kImageBytes, '\0'));
  CHECK(allocated_bytes(loop.image()) >= kImageBytes);
  // Not without destructive.
  CHECK_THAT(refusal({{"operation", "read"}, {"bs", "64k"}, {"blocks", "4"}, {"purge", "discard"}},
                     loop.device()),
             Catch::Contains("purge=discard erases whole block devices, so it needs "
                             "--destructive=SERIAL"));
}

TEST_CASE("precondition=wipc writes twice the device's capacity before the measured phase",
          "[disk][raw]") {
  LoopDevice loop;
  SKIP_UNLESS_LOOP(loop);
  const std::uint64_t written_before = device_stat(loop.device(), 6);
  const RunResult run = run_disk({{"operation", "read"},
                                  {"bs", "64k"},
                                  {"blocks", "4"},
                                  {"data", "zeros"},
                                  {"precondition", "wipc"},
                                  {"destructive", loop.serial()}},
                                 loop.device());
  REQUIRE(run.status == Status::kOk);
  const StepResult& step = run.steps.at(0);
  // The preconditioning is not measured: only the read phase is reported.
  REQUIRE(step.phases.size() == 1);
  CHECK(step.phases.at(0).name == "read");
  REQUIRE(step.attribute("precondition") != nullptr);
  CHECK(std::get<std::string>(*step.attribute("precondition")) ==
        "workload-independent (SNIA PTS): 2 x capacity in 128 KiB sequential O_DIRECT writes");
  std::ostringstream text;
  format_disk_text(step, text);
  CHECK_THAT(text.str(), Catch::Contains("precondition: workload-independent (SNIA PTS)"));
  // Two passes of O_DIRECT writes over all 16 MiB reached the device: 2 x 32768 sectors.
  CHECK(device_stat(loop.device(), 6) - written_before == 2 * kImageBytes / 512);
  CHECK(read_bytes(loop.image(), 0, kImageBytes) == std::string(kImageBytes, '\0'));
  // Not on a directory target.
  test::TempDir dir("wipc");
  CHECK_THAT(refusal({{"operation", "read"},
                      {"bs", "64k"},
                      {"blocks", "4"},
                      {"precondition", "wipc"},
                      {"destructive", "x"}},
                     dir.path().string()),
             Catch::Contains("precondition=wipc writes whole block devices, but a target is not"));
}

TEST_CASE("a path that names another device after the check is refused at the purge's open",
          "[disk][raw]") {
  LoopDevice checked;
  SKIP_UNLESS_LOOP(checked);
  LoopDevice other('\xCD');
  SKIP_UNLESS_LOOP(other);
  const test::TempDir dir{"rawdev-link"};
  const std::filesystem::path link = dir.path() / "device";
  std::filesystem::create_symlink(checked.device(), link);
  const CheckedDevice check =
      check_destructive_device(link, checked.serial(), false, "operation=write");
  struct stat st {};
  REQUIRE(::stat(checked.device().c_str(), &st) == 0);
  CHECK(check.rdev == st.st_rdev);
  CHECK(check.identity == "loop/backing_file '" + checked.serial() + "'");
  // The path is made to name the other device between the plan's check and the purge.
  std::filesystem::remove(link);
  std::filesystem::create_symlink(other.device(), link);
  REQUIRE(::stat(other.device().c_str(), &st) == 0);
  const std::string now = fmt::format("{}:{}", major(st.st_rdev), minor(st.st_rdev));
  try {
    (void)purge_device(link, "loop", PurgeMethod::kOverwrite, {}, check.rdev);
    FAIL("the purge wrote the device swapped in");
  } catch (const IoError& e) {
    CHECK_THAT(e.what(), Catch::Contains("open for the purge refused: the path now names block "
                                         "device (device " +
                                         now + ")"));
  }
  CHECK(read_bytes(other.image(), 0, 64 << 10) == std::string(64 << 10, '\xCD'));
  CHECK(read_bytes(checked.image(), 0, 64 << 10) == kUntouched);
}

TEST_CASE("a mountinfo line listed as 0:NN is tied to its device by its source", "[disk][raw]") {
  LoopDevice loop;
  SKIP_UNLESS_LOOP(loop);
  struct stat st {};
  REQUIRE(::stat(loop.device().c_str(), &st) == 0);
  const std::string dev = fmt::format("{}:{}", major(st.st_rdev), minor(st.st_rdev));
  // As btrfs lists a mount (captured on a btrfs file system, the source replaced by the loop).
  const MountEntry btrfs =
      parse_mountinfo_line("1207 29 0:33 / /mnt/pool rw,relatime shared:620 - btrfs " +
                           loop.device() + " rw,space_cache=v2,subvolid=5,subvol=/");
  CHECK(btrfs.dev == "0:33");
  CHECK(btrfs.mount_point == "/mnt/pool");
  CHECK(btrfs.source == loop.device());
  CHECK(mount_devices(btrfs) == std::vector<std::string>{"0:33", dev});
  // ZFS names a dataset, not a device: only the listed number.
  const MountEntry zfs =
      parse_mountinfo_line("301 29 0:51 / /tank rw,noatime shared:150 - zfs tank rw,xattr");
  CHECK(zfs.source == "tank");
  CHECK(mount_devices(zfs) == std::vector<std::string>{"0:51"});
}

TEST_CASE("destructive under mpirun with more than one rank is refused", "[disk][raw]") {
  // As OpenMPI's mpirun -n 2 sets it for each rank; the device is never looked at.
  const char* before = std::getenv("OMPI_COMM_WORLD_SIZE");
  const std::string saved = before != nullptr ? before : "";
  REQUIRE(::setenv("OMPI_COMM_WORLD_SIZE", "2", 1) == 0);
  const std::string two =
      refusal({{"bs", "64k"}, {"blocks", "4"}, {"destructive", "SER1"}}, "/dev/null");
  REQUIRE(::setenv("OMPI_COMM_WORLD_SIZE", "1", 1) == 0);
  const std::string one =
      refusal({{"bs", "64k"}, {"blocks", "4"}, {"destructive", "SER1"}}, "/dev/null");
  if (before != nullptr) {
    ::setenv("OMPI_COMM_WORLD_SIZE", saved.c_str(), 1);
  } else {
    ::unsetenv("OMPI_COMM_WORLD_SIZE");
  }
  CHECK(two ==
        "disk: --destructive=SER1 under mpirun (2 ranks): every rank would write, purge and "
        "precondition the same block device at once; run it with one rank (without mpirun, or "
        "mpirun -n 1)");
  CHECK_THAT(one, !Catch::Contains("under mpirun"));
}

TEST_CASE("destructive and force_signature in a suite file are refused, naming the flag",
          "[disk][raw]") {
  const test::TempDir dir{"rawdev-suite"};
  const std::filesystem::path suite = dir.path() / "wipe.json";
  std::ofstream(suite) << R"({"steps": [{"workload": "disk", "params": {"operation": "write",
      "destructive": "SER1", "force_signature": true}}]})";
  const test::CliResult cli =
      test::run_cli({"run", suite.string(), "-d", dir.path().string(), "-q"});
  CHECK(cli.exit_code == 2);
  CHECK_THAT(cli.err,
             Catch::Contains("/steps/0/params/destructive: 'destructive' may not come from a "
                             "suite file: it lets a run overwrite whole block devices; remove it "
                             "and give --destructive=SERIAL on the command line"));
  CHECK_THAT(cli.err, Catch::Contains("/steps/0/params/force_signature: 'force_signature' may "
                                      "not come from a suite file") &&
                          Catch::Contains("give --force-signature on the command line"));
  std::vector<std::string> entries;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    entries.push_back(entry.path().filename().string());
  }
  CHECK(entries == std::vector<std::string>{"wipe.json"});
}

TEST_CASE("vpd_pg80_serial keeps the first serial byte after a 0x00 header byte", "[disk][raw]") {
  // Peripheral byte 0x00, page 0x80, length 12, then the serial, space padded.
  const std::string page("\x00\x80\x00\x0C  S3Z9NB0K  ", 16);
  CHECK(vpd_pg80_serial(page) == "S3Z9NB0K");
  // The length bounds the serial: what follows it is not part of it.
  CHECK(vpd_pg80_serial(std::string("\x00\x80\x00\x04WD01XYZ", 11)) == "WD01");
  CHECK(vpd_pg80_serial(std::string("\x00\x80\x00", 3)).empty());
}

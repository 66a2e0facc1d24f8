#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>

#include "engines/descriptor_file.hpp"
#include "engines/open_flags.hpp"

namespace iobench {
namespace {

class PsyncEngine final : public Engine {
 public:
  [[nodiscard]] std::string name() const override { return "psync"; }
  [[nodiscard]] EngineCaps caps() const override {
    return EngineCaps{.supports_direct = true, .needs_map_size = false};
  }
  [[nodiscard]] std::unique_ptr<IoFile> open(const FileLocation& location,
                                             const OpenOptions& options) const override {
    const std::filesystem::path& path = location.path();
    const int flags = detail::open_flags(options);
    UniqueFd fd = location.open(flags, options.create);
    return std::make_unique<detail::DescriptorFile>(std::move(fd), path);
  }
};

}  // namespace

std::unique_ptr<Engine> make_psync_engine() { return std::make_unique<PsyncEngine>(); }

}  // namespace iobench

#include "plugins/disk/register.hpp"

namespace iobench::plugins::disk {

void register_family(PluginRegistrar& /*registrar*/) {}

}  // namespace iobench::plugins::disk

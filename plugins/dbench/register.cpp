#include "plugins/dbench/register.hpp"

namespace iobench::plugins::dbench {

void register_family(PluginRegistrar& /*registrar*/) {}

}  // namespace iobench::plugins::dbench

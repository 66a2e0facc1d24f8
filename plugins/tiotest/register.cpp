#include "plugins/tiotest/register.hpp"

namespace iobench::plugins::tiotest {

void register_family(PluginRegistrar& /*registrar*/) {}

}  // namespace iobench::plugins::tiotest

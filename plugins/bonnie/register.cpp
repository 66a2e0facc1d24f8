#include "plugins/bonnie/register.hpp"

namespace iobench::plugins::bonnie {

void register_family(PluginRegistrar& /*registrar*/) {}

}  // namespace iobench::plugins::bonnie

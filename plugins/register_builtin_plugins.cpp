#include "plugins/bonnie/register.hpp"
#include "plugins/builtin_plugins.hpp"
#include "plugins/dbench/register.hpp"
#include "plugins/disk/register.hpp"
#include "plugins/tiotest/register.hpp"

namespace iobench::plugins {

void register_all(PluginRegistrar& registrar) {
  disk::register_family(registrar);
  bonnie::register_family(registrar);
  tiotest::register_family(registrar);
  dbench::register_family(registrar);
}

}  // namespace iobench::plugins

// register_builtin_workloads(): the families' own register functions, in `iobench list` order.
#include <iobench/workloads.hpp>

#include "plugins/bonnie/register.hpp"
#include "plugins/dbench/register.hpp"
#include "plugins/disk/register.hpp"
#include "plugins/filebench/register.hpp"
#include "plugins/io500/register.hpp"
#include "plugins/mdtest/register.hpp"
#include "plugins/tiotest/register.hpp"

namespace iobench {

void register_builtin_workloads(PluginRegistrar& registrar) {
  plugins::disk::register_family(registrar);
  plugins::bonnie::register_family(registrar);
  plugins::tiotest::register_family(registrar);
  plugins::dbench::register_family(registrar);
  plugins::mdtest::register_family(registrar);
  plugins::filebench::register_family(registrar);
  plugins::io500::register_family(registrar);
}

Registry make_builtin_registry() {
  Registry registry;
  register_builtins(registry);
  register_builtin_workloads(registry);
  return registry;
}

}  // namespace iobench

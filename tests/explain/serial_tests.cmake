# Included by ctest after catch_discover_tests' list of explain_tests: the tests that measure a
# loop device's bytes (or its throttled rate) run alone, so that no parallel test (ctest -j2)
# pushes machine-wide Dirty over the background threshold or writes while they measure.
# A renamed TEST_CASE makes ctest print "Can not find test to add properties to": update here.
set_tests_properties(
  "explain.O_DIRECT 4 KiB writes on a loop fs reach the device byte for byte"
  "explain.buffered writes without fsync are absorbed by the page cache and reads come from it"
  "explain.writes in a blkio-throttled cgroup are named as throttled with the limit"
  "explain.compare of a cached and an uncached read on a loop fs names the device reads first"
  "explain.per-interval device writes of an O_DIRECT run add up to the phase's device writes"
  "explain.the CSV's device columns of a loop fs run are the figures of its JSON"
  "explain.the time-series CSV's device columns add up to the phase's device writes in its JSON"
  PROPERTIES RUN_SERIAL TRUE)

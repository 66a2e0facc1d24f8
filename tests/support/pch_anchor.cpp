// The one source of iobench_test_pch, the target that precompiles catch.hpp for every test
// executable (tests/CMakeLists.txt): a precompiled header needs a target that compiles something.

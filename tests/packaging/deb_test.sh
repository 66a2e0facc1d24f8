#!/usr/bin/env bash
# The .deb of `cpack -G DEB`: built from this build tree, its control data names its run-time
# dependencies, and unpacked into a scratch root (dpkg -x, no install on the machine) it holds
# the binary, the library, the headers, the CMake and pkg-config files, the manual page and the
# completions; the binary runs from there, and examples/consumer builds against that root alone
# with find_package(iobench) and runs one workload.
# Usage: deb_test.sh BUILD_DIR SOURCE_DIR WORK_DIR CXX_COMPILER
set -euo pipefail
build=$1
source_dir=$2
work=$3
cxx=$4
fail() { echo "FAIL: $*" >&2; exit 1; }
# The libiobench that `binary` loads, as a canonical path.
loaded_library() {
  local path
  path=$(ldd "$1" | awk '/libiobench\.so/ {print $3}')
  [[ -n $path ]] && readlink -f "$path"
}
for tool in cpack dpkg-deb dpkg-shlibdeps; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is missing (apt-get install dpkg-dev)"; exit 77; }
done
rm -rf "$work"
mkdir -p "$work"
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/cpack" >"$work/cpack.log" 2>&1 ||
  fail "cpack failed: $(tail -20 "$work/cpack.log")"
deb=$(ls "$work"/cpack/iobench_*.deb)
echo "package: $(basename "$deb")"

depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
# What dpkg-shlibdeps found for the binary, the library and the MPI module, and the headers' fmt.
for dependency in libc6 libstdc++6 libfmt-dev zlib1g libboost-program-options liburing libaio; do
  [[ $depends == *"$dependency"* ]] || fail "Depends lacks $dependency: $depends"
done

root=$work/root
dpkg -x "$deb" "$root"
for file in usr/bin/iobench usr/include/iobench/runner.hpp usr/include/iobench/version.hpp \
            usr/include/iobench/worker_context.hpp usr/include/iobench/workload_info.hpp \
            usr/include/iobench/detail/io_driver_loops.hpp \
            usr/lib/cmake/iobench/iobenchConfig.cmake usr/lib/pkgconfig/iobench.pc \
            usr/share/man/man1/iobench.1 usr/share/bash-completion/completions/iobench \
            usr/share/zsh/vendor-completions/_iobench; do
  [[ -e $root/$file ]] || fail "the package has no /$file: $(cd "$root" && find . -type f | head -50)"
done
ls "$root"/usr/lib/libiobench.so.* >/dev/null || fail "the package has no libiobench.so.*"

# The binary runs from the unpacked root (RPATH $ORIGIN/../lib), loading that root's library.
version=$(env -u LD_LIBRARY_PATH "$root/usr/bin/iobench" --version)
[[ $version == "iobench "* ]] || fail "iobench --version printed '$version'"
[[ $(loaded_library "$root/usr/bin/iobench") == "$(readlink -f "$root")/usr/lib/"* ]] ||
  fail "the unpacked iobench does not load the unpacked library: $(ldd "$root/usr/bin/iobench")"
echo "unpacked: $version"
if command -v man >/dev/null; then
  man -l "$root/usr/share/man/man1/iobench.1" >/dev/null 2>&1 || fail "man -l of the packaged page failed"
fi
bash -n "$root/usr/share/bash-completion/completions/iobench" || fail "packaged bash completion"

# The consumer example against the unpacked root only.
cmake -S "$source_dir/examples/consumer" -B "$work/consumer" -DCMAKE_CXX_COMPILER="$cxx" \
      -DCMAKE_PREFIX_PATH="$root/usr" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
      -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF >"$work/consumer.log" 2>&1 ||
  fail "configuring the consumer failed: $(tail -20 "$work/consumer.log")"
cmake --build "$work/consumer" >>"$work/consumer.log" 2>&1 ||
  fail "building the consumer failed: $(tail -20 "$work/consumer.log")"
[[ $(loaded_library "$work/consumer/consumer") == "$(readlink -f "$root")/usr/lib/"* ]] ||
  fail "the consumer does not load the unpacked library: $(ldd "$work/consumer/consumer")"
mkdir -p "$work/target"
"$work/consumer/consumer" "$work/target" "$work/result.json" --size=256k >"$work/run.log" 2>&1 ||
  fail "the consumer failed: $(tail -20 "$work/run.log")"
grep -q '"schema"' "$work/result.json" || fail "the consumer wrote no result document"
[[ -z $(ls -A "$work/target") ]] || fail "the consumer left files in its target"
echo "consumer built against the package and ran"
rm -rf "$work"
echo "1 passed, 0 failed"

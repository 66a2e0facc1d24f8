# `iobench run --explain` (libiobench/src/explain_bpf): a BPF program built with clang's bpf
# target against a vmlinux.h that bpftool dumps from this machine's BTF, embedded in libiobench as
# a bpftool-generated skeleton and loaded through libbpf (Debian: libbpf-dev, pkgconf, bpftool,
# clang).
# IOBENCH_BPF: AUTO builds it where all of them are found, ON fails without them, OFF leaves it
# out; a build without it is supported (--explain then reports "explain: unavailable: ...").
# Sets IOBENCH_BPF_ENABLED and, when on, the target iobench_bpf_skeleton (its header directory).
set(IOBENCH_BPF AUTO CACHE STRING "Build the eBPF latency split of --explain: AUTO, ON or OFF")
set_property(CACHE IOBENCH_BPF PROPERTY STRINGS AUTO ON OFF)

set(IOBENCH_BPF_ENABLED OFF)
set(IOBENCH_BPF_WHY "")
if(IOBENCH_BPF STREQUAL "OFF")
  set(IOBENCH_BPF_WHY "IOBENCH_BPF=OFF")
else()
  # Not REQUIRED: under AUTO a machine without pkg-config builds without the feature and says why.
  find_package(PkgConfig)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(LIBBPF IMPORTED_TARGET libbpf)
  endif()
  find_program(IOBENCH_BPFTOOL bpftool PATHS /usr/sbin /sbin)
  find_program(IOBENCH_BPF_CLANG NAMES clang clang-16 clang-15 clang-14)
  set(IOBENCH_BTF_FILE /sys/kernel/btf/vmlinux CACHE FILEPATH
      "BTF of the kernel whose types the BPF program is built against")
  if(NOT PKG_CONFIG_FOUND)
    set(IOBENCH_BPF_WHY "pkg-config not found, needed to find libbpf (Debian: pkgconf)")
  elseif(NOT LIBBPF_FOUND)
    set(IOBENCH_BPF_WHY "libbpf not found (Debian: libbpf-dev)")
  elseif(NOT IOBENCH_BPFTOOL)
    set(IOBENCH_BPF_WHY "bpftool not found (Debian: bpftool)")
  elseif(NOT IOBENCH_BPF_CLANG)
    set(IOBENCH_BPF_WHY "clang not found (Debian: clang)")
  elseif(NOT EXISTS ${IOBENCH_BTF_FILE})
    set(IOBENCH_BPF_WHY "no kernel BTF at ${IOBENCH_BTF_FILE} (a kernel with CONFIG_DEBUG_INFO_BTF)")
  else()
    set(IOBENCH_BPF_ENABLED ON)
  endif()
  if(IOBENCH_BPF STREQUAL "ON" AND NOT IOBENCH_BPF_ENABLED)
    message(FATAL_ERROR "IOBENCH_BPF=ON, but ${IOBENCH_BPF_WHY}")
  endif()
endif()
if(IOBENCH_BPF_ENABLED)
  message(STATUS "iobench: eBPF --explain ON (libbpf ${LIBBPF_VERSION}, ${IOBENCH_BPFTOOL}, "
                 "${IOBENCH_BPF_CLANG}, BTF ${IOBENCH_BTF_FILE})")
else()
  message(STATUS "iobench: eBPF --explain OFF: ${IOBENCH_BPF_WHY}")
endif()

# iobench_bpf_skeleton(<target> <bpf source> <shared header dir>): vmlinux.h, the object and its
# skeleton header <name>.skel.h in <binary dir>/bpf, which <target> gets on its include path.
function(iobench_bpf_skeleton target source include_dir)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/bpf)
  get_filename_component(name ${source} NAME_WE)
  file(MAKE_DIRECTORY ${out})
  add_custom_command(OUTPUT ${out}/vmlinux.h
    COMMAND ${IOBENCH_BPFTOOL} btf dump file ${IOBENCH_BTF_FILE} format c > ${out}/vmlinux.h
    COMMENT "bpftool: vmlinux.h from ${IOBENCH_BTF_FILE}" VERBATIM)
  string(TOLOWER ${CMAKE_SYSTEM_PROCESSOR} arch)
  if(arch MATCHES "x86_64|amd64")
    set(bpf_arch x86)
  elseif(arch MATCHES "aarch64|arm64")
    set(bpf_arch arm64)
  else()
    set(bpf_arch ${arch})
  endif()
  add_custom_command(OUTPUT ${out}/${name}.bpf.o
    COMMAND ${IOBENCH_BPF_CLANG} -target bpf -g -O2 -D__TARGET_ARCH_${bpf_arch}
            -I${out} -I${include_dir} ${LIBBPF_CFLAGS} -c ${source} -o ${out}/${name}.bpf.o
    DEPENDS ${source} ${out}/vmlinux.h ${include_dir}/explain_bpf_shared.h
    COMMENT "clang -target bpf: ${name}.bpf.o" VERBATIM)
  # `gen object` links the object and drops its DWARF (BTF stays): the embedded copy is smaller.
  add_custom_command(OUTPUT ${out}/${name}.skel.h
    COMMAND ${IOBENCH_BPFTOOL} gen object ${out}/${name}.linked.o ${out}/${name}.bpf.o
    COMMAND ${IOBENCH_BPFTOOL} gen skeleton ${out}/${name}.linked.o name ${name}_bpf
            > ${out}/${name}.skel.h
    DEPENDS ${out}/${name}.bpf.o
    COMMENT "bpftool gen skeleton: ${name}.skel.h" VERBATIM)
  add_custom_target(${target}_skel DEPENDS ${out}/${name}.skel.h)
  add_dependencies(${target} ${target}_skel)
  # A system header: the skeleton's object is one long string literal (-Woverlength-strings).
  target_include_directories(${target} SYSTEM PRIVATE ${out})
endfunction()

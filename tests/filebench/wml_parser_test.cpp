// The WML parser: every modelled construct into the model, and every error with its position.
#include "plugins/filebench/wml_parser.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "tests/filebench/wml_test_helpers.hpp"

namespace fb = iobench::plugins::filebench;

TEST_CASE("a fileserver-style file parses into filesets, processes, threads and flowops") {
  const std::string text =
      "# a comment\n"
      "set $dir=/tmp\n"
      "set $n=1000\n"
      "set $size=cvar(type=cvar-gamma,parameters=mean:131072;gamma:1.5)\n"
      "set $threads = 3\n"
      "define fileset name=big,path=$dir,size=$size,entries=$n,dirwidth=20,prealloc=80\n"
      "define process name=p,instances=2\n"
      "{\n"
      "  thread name=t,memsize=10m,instances=$threads\n"
      "  {\n"
      "    flowop createfile name=c1,filesetname=big,fd=1\n"
      "    flowop writewholefile name=w1,srcfd=1,fd=1,iosize=1m  # trailing comment\n"
      "    flowop appendfilerand name=a1,iosize=16k,fd=1,iters=3\n"
      "    flowop read name=r1,fd=1,iosize=4k,random,dsync\n"
      "    flowop delay name=d1,value=0.5\n"
      "  }\n"
      "}\n"
      "echo \"loaded\"\n"
      "run 7\n";
  const fb::WmlModel m = fb::parse_wml(text, "t.f");
  REQUIRE(m.filesets.size() == 1);
  const fb::FilesetDef& f = m.filesets[0];
  CHECK(f.name == "big");
  CHECK_FALSE(f.single_file);
  CHECK(f.size.kind == fb::SizeSpec::Kind::kGamma);
  CHECK(f.size.mean_bytes == 131072.0);
  CHECK(f.size.gamma == 1.5);
  CHECK(f.entries == 1000);
  CHECK(f.dir_width == 20.0);
  CHECK(f.dir_gamma == 1.5);
  CHECK(f.prealloc_pct == 80);
  CHECK(f.where.line == 6);
  CHECK(f.where.column == 8);
  REQUIRE(m.processes.size() == 1);
  CHECK(m.processes[0].instances == 2);
  REQUIRE(m.processes[0].threads.size() == 1);
  const fb::ThreadDef& t = m.processes[0].threads[0];
  CHECK(t.instances == 3);
  CHECK(t.memsize == 10ULL << 20);
  CHECK(m.thread_count() == 6);
  REQUIRE(t.flowops.size() == 5);
  CHECK(t.flowops[0].kind == fb::FlowopKind::kCreateFile);
  CHECK(t.flowops[0].fileset == 0);
  CHECK(t.flowops[0].fd == 1);
  CHECK(t.flowops[1].kind == fb::FlowopKind::kWriteWholeFile);
  CHECK(t.flowops[1].srcfd == 1);
  CHECK(t.flowops[1].iosize == 1ULL << 20);
  CHECK(t.flowops[1].fileset == fb::kNoFileset);
  CHECK(t.flowops[2].iosize == 16384);
  CHECK(t.flowops[2].iters == 3);
  CHECK(t.flowops[3].random);
  CHECK(t.flowops[3].dsync);
  CHECK(t.flowops[4].value == 0.5);
  CHECK(t.flowops[4].where.line == 15);
  CHECK(t.flowops[4].where.column == 12);
  REQUIRE(m.run_seconds);
  CHECK(*m.run_seconds == 7);
  REQUIRE(m.echoes.size() == 1);
  CHECK(m.echoes[0] == "loaded");
}

TEST_CASE("define file takes fixed sizes, bare prealloc, reuse and readonly") {
  const fb::WmlModel m = fb::parse_wml(
      "define file name=log,path=/x,size=2g,prealloc,reuse,readonly\n"
      "define fileset name=s,size=100,entries=5,dirwidth=2,dirgamma=0\n"
      "define process name=p {thread name=t {flowop statfile name=s1,filesetname=s}}\n"
      "create files\nrun\n",
      "t.f");
  REQUIRE(m.filesets.size() == 2);
  CHECK(m.filesets[0].single_file);
  CHECK(m.filesets[0].size.kind == fb::SizeSpec::Kind::kFixed);
  CHECK(m.filesets[0].size.fixed_bytes == 2ULL << 30);
  CHECK(m.filesets[0].prealloc_pct == 100);
  CHECK(m.filesets[0].reuse);
  CHECK(m.filesets[0].readonly);
  CHECK(m.filesets[1].dir_gamma == 0.0);
  CHECK(m.filesets[1].prealloc_pct == 0);
  CHECK(m.create_files);
  REQUIRE(m.run_seconds);
  CHECK(*m.run_seconds == 60);  // filebench's default
  CHECK(m.processes[0].threads[0].memsize == 1ULL << 20);
}

TEST_CASE("flags take true and false, also from variables, and a size defaults to 0 bytes") {
  const fb::WmlModel m = fb::parse_wml(
      "set $sync=true\nset $no=false\n"
      "define file name=f,prealloc=false,reuse=$no,readonly=true\n"
      "define file name=g,prealloc=true\n"
      "define process name=p {thread name=t {flowop appendfile name=a,filename=f,iosize=1k,"
      "dsync=$sync,random=false}}\n",
      "t.f");
  CHECK(m.filesets[0].prealloc_pct == 0);
  CHECK_FALSE(m.filesets[0].reuse);
  CHECK(m.filesets[0].readonly);
  CHECK(m.filesets[0].size.fixed_bytes == 0);
  CHECK(m.filesets[1].prealloc_pct == 100);
  const fb::FlowopDef& a = m.processes[0].threads[0].flowops[0];
  CHECK(a.dsync);
  CHECK_FALSE(a.random);
  CHECK(filebench_test::wml_error_of("define file name=f,reuse=yes\n") ==
        "t.f:1:26: reuse=yes is not a flag; write reuse alone, reuse=true or reuse=false");
}

TEST_CASE("type=gamma is read as cvar-gamma and gamma defaults to 1.5") {
  const fb::WmlModel m = fb::parse_wml(
      "define fileset name=s,size=cvar(type=gamma,parameters=mean:4096),entries=5,dirwidth=2\n",
      "t.f");
  CHECK(m.filesets[0].size.kind == fb::SizeSpec::Kind::kGamma);
  CHECK(m.filesets[0].size.mean_bytes == 4096.0);
  CHECK(m.filesets[0].size.gamma == 1.5);
}

TEST_CASE("parse errors name the file, line and column and the fix") {
  const std::string fs = "define fileset name=s,size=1k,entries=4,dirwidth=2\n";
  CHECK(filebench_test::wml_error_of("\n  bogus 1\n") ==
        "t.f:2:3: unknown statement 'bogus'; expected set, define, run, create files, echo or "
        "a # comment");
  CHECK(filebench_test::wml_error_of(
            "define fileset name=s,size=1k,entries=4,dirwidth=2,colour=3\n") ==
        "t.f:1:52: unknown attribute 'colour' of define fileset; expected one of name, path, "
        "size, entries, leafdirs, dirwidth, dirgamma, prealloc, paralloc, reuse, readonly, "
        "cached");
  CHECK(filebench_test::wml_error_of("set $x=5 @\n") ==
        "t.f:1:10: unexpected character '@'; the language has words, $variables, \"strings\", "
        "= , { } ( ) ; and # comments");
  CHECK(filebench_test::wml_error_of("echo \"open\n") ==
        "t.f:1:6: unterminated string; close it with '\"' on the same line");
  CHECK(filebench_test::wml_error_of("set $a=$b\n") ==
        "t.f:1:8: variable $b is not set; add 'set $b=...' before its use");
  CHECK(filebench_test::wml_error_of("define fileset name=s,size=12q,entries=4,dirwidth=2\n") ==
        "t.f:1:28: size=12q is not a size; write digits with an optional k, m, g or t suffix "
        "(1024-based), e.g. 16k");
  CHECK(filebench_test::wml_error_of(
            fs + "define process name=p {\n thread name=t {\n  flowop openfile name=o,"
                 "filesetname=nope\n }\n}\n") ==
        "t.f:4:38: fileset 'nope' is not defined; define it before the process that uses it");
  CHECK(filebench_test::wml_error_of(
            fs + "define process name=p {thread name=t {flowop read name=r,fd=1}}\n") ==
        "t.f:2:46: flowop read 'r' needs iosize=BYTES");
  CHECK(filebench_test::wml_error_of("define process name=p {thread name=t }\n") ==
        "t.f:1:38: expected '{' to open the thread's flowop list, found '}'");
  CHECK(filebench_test::wml_error_of("define fileset name=s,size=1k,entries=4\n") ==
        "t.f:1:8: define fileset 's' needs dirwidth=N (files per directory)");
}

TEST_CASE("constructs filebench accepts but iobench does not model are errors saying so") {
  const std::string fs = "define fileset name=s,size=1k,entries=4,dirwidth=2\n";
  CHECK(filebench_test::wml_error_of("list\n") ==
        "t.f:1:1: statement 'list' is accepted by filebench but not modelled by iobench yet; "
        "remove it from the file");
  CHECK(filebench_test::wml_error_of(
            "define fileset name=s,size=1k,entries=4,dirwidth=2,trusttree\n") ==
        "t.f:1:52: attribute 'trusttree' of define fileset is accepted by filebench but not "
        "modelled by iobench yet; remove it");
  CHECK(filebench_test::wml_error_of(
            fs + "define process name=p {thread name=t {flowop print name=m}}\n") ==
        "t.f:2:46: flowop 'print' is accepted by filebench but not modelled by iobench yet; "
        "remove it");
  CHECK(filebench_test::wml_error_of(
            fs + "define process name=p {thread name=t {flowop fsync name=r,fd=1,"
                 "directio}}\n") ==
        "t.f:2:64: attribute 'directio' of flowop fsync is accepted by filebench but not "
        "modelled by iobench yet; remove it");
  CHECK(filebench_test::wml_error_of("set $s=cvar(type=cvar-pareto,parameters=mean:5)\n") ==
        "t.f:1:18: unknown cvar type 'cvar-pareto'; filebench 1.5 has cvar-gamma, cvar-uniform, "
        "cvar-normal, cvar-exponential, cvar-erlang, cvar-lognormal, cvar-triangular and "
        "cvar-weibull");
  CHECK(filebench_test::wml_error_of("define file name=f,trusttree\n") ==
        "t.f:1:20: attribute 'trusttree' of define file is accepted by filebench but not "
        "modelled by iobench yet; remove it");
  CHECK(filebench_test::wml_error_of("define flowop name=c\n") ==
        "t.f:1:8: 'define flowop' is accepted by filebench but not modelled by iobench yet; "
        "remove it");
}

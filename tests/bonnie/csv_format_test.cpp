#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "plugins/bonnie/csv_formatter.hpp"
#include "tests/bonnie/csv_fixtures.hpp"

using namespace iobench::plugins::bonnie;
using namespace iobench::plugins::bonnie::test;

namespace {

std::string csv_of(const iobench::StepResult& step) {
  std::ostringstream out;
  format_csv_step(step, out);
  return out.str();
}

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, sep)) fields.push_back(field);
  if (!line.empty() && line.back() == sep) fields.emplace_back();
  return fields;
}

}  // namespace

TEST_CASE("bonnie csv line matches bonnie plus plus 2.00a", "[bonnie][csv]") {
  // Exactly the line bonnie++ 2.00a wrote for this run (all defaults, so no column differs).
  CHECK(csv_of(vm_fixture().step()) ==
        "1.98,2.00a,vm,1,42,64M,,8192,5,964,99,+++++,+++,+++++,+++,1594,99,+++++,+++,+++++,+++,"
        "1,,,,,+++++,+++,+++++,+++,+++++,+++,+++++,+++,+++++,+++,+++++,+++,12420us,174us,253us,"
        "9145us,57us,7956us,442us,88us,445us,718us,5us,85us\n");
}

TEST_CASE("bonnie csv line writes the io chunk in its column", "[bonnie][csv]") {
  // bonnie++ 2.00a leaves column 6 empty; the chunk (1m) goes there.
  CHECK(csv_of(big_io_fixture().step()) ==
        "1.98,2.00a,h,1,7,2G,1m,100,2,,,277711,99,2861782,99,,,+++++,+++,+++++,+++,,,,,,,,,,,,,,,,"
        ",,,15395us,3443us,,272us,6838us,,,,,,\n");
}

TEST_CASE("bonnie csv line writes num dirs and file chunk in their columns", "[bonnie][csv]") {
  // bonnie++ 2.00a wrote "1,4096,1024,,3": the directory count one column late.
  CHECK(csv_of(files_fixture().step()) ==
        "1.98,2.00a,h,1,0,,,,,,,,,,,,,,,,,1,4096,1024,3,,1915,97,+++++,+++,+++++,+++,1469,96,"
        "+++++,+++,+++++,+++,,,,,,,874us,120us,1828us,1703us,160us,7339us\n");
  ReportHeader h;
  h.machine = "m";
  h.file_size_mib = 0;
  h.files = FileSpec{.num_k = 2, .kind = FileKind::kSymlink, .dirs = 1, .chunk_bytes = 4096};
  const auto fields = split(csv_line(h, ReportRow{.name = "m"}), ',');
  REQUIRE(fields.size() == kCsvFields198);
  CHECK(fields[21] == "2");
  CHECK(fields[22] == "symlink");
  CHECK(fields[23].empty());
  CHECK(fields[24].empty());
  CHECK(fields[25] == "4k");
  h.files.kind = FileKind::kHardLink;
  CHECK(split(csv_line(h, ReportRow{.name = "m"}), ',')[22] == "link");
  h.files = FileSpec{.num_k = 2, .max_bytes = 4096};
  const auto max_only = split(csv_line(h, ReportRow{.name = "m"}), ',');
  CHECK(max_only[22] == "4096");
  CHECK(max_only[23].empty());
}

TEST_CASE("bonnie csv lines always have 50 fields", "[bonnie][csv]") {
  for (const auto& fixture : {vm_fixture(), big_io_fixture(), files_fixture(), copies_fixture()}) {
    std::istringstream lines(csv_of(fixture.step()));
    std::string line;
    while (std::getline(lines, line)) {
      CHECK(split(line, ',').size() == kCsvFields198);
      CHECK(line.rfind("1.98,2.00a,", 0) == 0);
      CHECK(line.size() < 1024);
    }
  }
  CHECK(split(csv_header(ReportFormat::kV200), ',').size() == kCsvFields198);
  CHECK(split(csv_header(ReportFormat::kV197), ',').size() == kCsvFields197);
}

TEST_CASE("bonnie csv has a line per copy and the sum", "[bonnie][csv]") {
  const std::string csv = csv_of(copies_fixture().step());
  const auto lines = split(csv, '\n');
  REQUIRE(lines.size() == 4);  // three lines and the empty piece after the last newline
  CHECK(split(lines[0], ',')[2] == "host.1");
  CHECK(split(lines[1], ',')[2] == "host.2");
  CHECK(split(lines[2], ',')[2] == "host");
  for (int i = 0; i < 3; ++i) CHECK(split(lines[static_cast<std::size_t>(i)], ',')[3] == "2");
  CHECK(split(lines[0], ',')[11] == "102400");
  CHECK(split(lines[1], ',')[11] == "51200");
  CHECK(split(lines[2], ',')[11] == "153600");
  CHECK(split(lines[0], ',')[19] == "4096");
  CHECK(split(lines[1], ',')[19] == "+++++");
  CHECK(split(lines[2], ',')[19] == "+++++");
  CHECK(split(lines[2], ',')[39] == "150ms");
}

TEST_CASE("bonnie csv repetitions get the 50 name header", "[bonnie][csv]") {
  const std::string csv = csv_of(repetitions_fixture().step());
  const auto lines = split(csv, '\n');
  REQUIRE(lines.size() == 4);
  const auto names = split(lines[0], ',');
  REQUIRE(names.size() == kCsvFields198);
  CHECK(names[0] == "format_version");
  CHECK(names[6] == "io_chunk_size");
  CHECK(names[7] == "seek_count");
  CHECK(names[8] == "seek_proc_count");
  CHECK(names[9] == "putc");
  CHECK(names[19] == "seeks");
  CHECK(names[24] == "num_dirs");
  CHECK(names[25] == "file_chunk_size");
  CHECK(names[49] == "ran_del_latency");
  CHECK(split(lines[1], ',')[11] == "10240");
  CHECK(split(lines[2], ',')[11] == "5120");
}

TEST_CASE("bonnie csv header is bonnie plus plus 2.00a header to the letter", "[bonnie][csv]") {
  // Built from the phase name table: pinned here to bonnie++'s own text (bon_csv2html's).
  const std::string rest =
      "putc,putc_cpu,put_block,put_block_cpu,rewrite,rewrite_cpu,getc,getc_cpu,get_block,"
      "get_block_cpu,seeks,seeks_cpu,num_files,max_size,min_size,num_dirs,file_chunk_size,"
      "seq_create,seq_create_cpu,seq_stat,seq_stat_cpu,seq_del,seq_del_cpu,ran_create,"
      "ran_create_cpu,ran_stat,ran_stat_cpu,ran_del,ran_del_cpu,putc_latency,put_block_latency,"
      "rewrite_latency,getc_latency,get_block_latency,seeks_latency,seq_create_latency,"
      "seq_stat_latency,seq_del_latency,ran_create_latency,ran_stat_latency,ran_del_latency";
  CHECK(csv_header(ReportFormat::kV200) ==
        "format_version,bonnie_version,name,concurrency,seed,file_size,io_chunk_size,seek_count,"
        "seek_proc_count," +
            rest);
  CHECK(csv_header(ReportFormat::kV197) ==
        "format_version,bonnie_version,name,concurrency,seed,file_size,io_chunk_size," + rest);
}

TEST_CASE("bonnie csv reproduces the 1.97 format on request", "[bonnie][csv]") {
  StepBuilder b = vm_fixture();
  ReportHeader h = read_report_header(b.step());
  h.format = ReportFormat::kV197;
  h.io_chunk_bytes = 4096;
  iobench::StepResult step = b.step();
  step.attributes.clear();
  for (auto& a : to_attributes(h)) step.attributes.push_back(a);
  const std::string line = csv_of(step);
  CHECK(line ==
        "1.97,1.97,vm,1,42,64M,4k,964,99,+++++,+++,+++++,+++,1594,99,+++++,+++,+++++,+++,"
        "1,,,,,+++++,+++,+++++,+++,+++++,+++,+++++,+++,+++++,+++,+++++,+++,12420us,174us,253us,"
        "9145us,57us,7956us,442us,88us,445us,718us,5us,85us\n");
  CHECK(split(line.substr(0, line.size() - 1), ',').size() == kCsvFields197);
}

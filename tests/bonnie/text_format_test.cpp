#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "plugins/bonnie/cell_text.hpp"
#include "plugins/bonnie/text_formatter.hpp"
#include "tests/bonnie/csv_fixtures.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench::plugins::bonnie;
using namespace iobench::plugins::bonnie::test;

namespace {

using ::iobench::test::kMiB;

std::string text_of(const iobench::StepResult& step) {
  std::ostringstream out;
  format_text_step(step, out);
  return out.str();
}

}  // namespace

TEST_CASE("bonnie text table matches bonnie plus plus 2.00a", "[bonnie][text]") {
  // Byte for byte what bonnie++ 2.00a printed for these figures.
  const std::string expected =
      "Version 2.00a       ------Sequential Output------ --Sequential Input- --Random-\n"
      "                    -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--\n"
      "Name:Size etc        /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP\n"
      "vm              64M  964k  99 +++++ +++ +++++ +++ 1594k  99 +++++ +++ +++++ +++\n"
      "Latency             12420us     174us     253us    9145us      57us    7956us\n"
      "Version 2.00a       ------Sequential Create------ --------Random Create--------\n"
      "vm                  -Create-- --Read--- -Delete-- -Create-- --Read--- -Delete--\n"
      "              files  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP\n"
      "                  1 +++++ +++ +++++ +++ +++++ +++ +++++ +++ +++++ +++ +++++ +++\n"
      "Latency               442us      88us     445us     718us       5us      85us\n";
  CHECK(text_of(vm_fixture().step()) == expected + std::string(kUnitsNote));
  // Warnings follow the table (the family formatter replaces the generic step section).
  iobench::StepResult warned = vm_fixture().step();
  warned.warnings = {"results are suspect"};
  CHECK(text_of(warned) == expected + std::string(kUnitsNote) + "WARNING: results are suspect\n");
}

TEST_CASE("bonnie text table shows large rates and skipped tests", "[bonnie][text]") {
  // bonnie++ 2.00a -s 2048:1048576:100:2 -n 0 -f on tmpfs printed
  // "h        2G:1m::100            271m  99  2.7g  99           +++++ +++ +++++ +++": it drops
  // the one-digit seeker count; iobench prints it.
  const std::string expected =
      "Version 2.00a       ------Sequential Output------ --Sequential Input- --Random-\n"
      "                    -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--\n"
      "Name:Size etc        /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP\n"
      "h      2G:1m::100:2            271m  99  2.7g  99           +++++ +++ +++++ +++\n"
      "Latency                       15395us    3443us               272us    6838us\n"
      "\n";
  CHECK(text_of(big_io_fixture().step()) == expected + std::string(kUnitsNote));
}

TEST_CASE("bonnie text table shows file test rates and shapes", "[bonnie][text]") {
  // bonnie++ -s 0 -n 1:4k:1k:3 printed this layout; its rate cells print the file count
  // (printf %5d of a double), iobench prints the rates its CSV line has (1915 and 1469).
  const std::string expected =
      "Version 2.00a       ------Sequential Create------ --------Random Create--------\n"
      "h                   -Create-- --Read--- -Delete-- -Create-- --Read--- -Delete--\n"
      "files:max:min        /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP\n"
      "      1:4096:1024/3  1915  97 +++++ +++ +++++ +++  1469  96 +++++ +++ +++++ +++\n"
      "Latency               874us     120us    1828us    1703us     160us    7339us\n";
  CHECK(text_of(files_fixture().step()) == expected + std::string(kUnitsNote));

  ReportHeader h;
  h.machine = "h";
  h.file_size_mib = 0;

  h.files = FileSpec{.num_k = 1, .kind = FileKind::kHardLink};
  CHECK(text_of(StepBuilder(h).step()).find("files:max            /sec") != std::string::npos);
  CHECK(text_of(StepBuilder(h).step()).find("             1:link       ") != std::string::npos);
  h.files = FileSpec{.num_k = 1, .kind = FileKind::kSymlink, .dirs = 2};
  CHECK(text_of(StepBuilder(h).step()).find("        1:symlink/2      ") != std::string::npos);
  h.files = FileSpec{.num_k = 64, .max_bytes = 4096};
  CHECK(text_of(StepBuilder(h).step()).find("files:max            /sec") != std::string::npos);
  CHECK(text_of(StepBuilder(h).step()).find("          64:4096:0      ") != std::string::npos);
}

TEST_CASE("bonnie text table puts copies and their sum in rows", "[bonnie][text]") {
  const std::string blank(10, ' ');  // a rate and a CPU cell of a test that did not run
  const std::string expected =
      "Version 2.00a       ------Sequential Output------ --Sequential Input- --Random-\n"
      "                    -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--\n"
      "Name:Size etc        /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP\n"
      "host.1        1G::2" +
      blank + "  100m  50" + blank + blank + blank + "  4096  25\n" + "Latency          " + blank +
      "    2000us" + blank + blank + blank + "      10us\n" + "host.2        1G::2" + blank +
      " 50.0m  10" + blank + blank + blank + " +++++ +++\n" + "Latency          " + blank +
      "     150ms" + blank + blank + blank + "      10us\n" + "host          1G::2" + blank +
      "  150m  60" + blank + blank + blank + " +++++ +++\n" + "Latency          " + blank +
      "     150ms" + blank + blank + blank + "      10us\n" + "\n";
  CHECK(text_of(copies_fixture().step()) == expected + std::string(kUnitsNote));
}

TEST_CASE("bonnie text table reproduces the 1.97 layout on request", "[bonnie][text]") {
  ReportHeader h = read_report_header(vm_fixture().step());
  h.format = ReportFormat::kV197;
  h.file_size_mib = 8196;
  h.files.num_k = 16;
  StepBuilder b(h);
  const double del_s = seconds_for(16384, 31949);
  const double put_s = seconds_for(8196 * 1024, 113486);
  b.one(PhaseId::kPutc, seconds_for(3 * 1024, 446), 6.8, 3 * kMiB, 384, 21'900'000)
      .one(PhaseId::kPutBlock, put_s, put_s * 0.17, 8196 * kMiB, 1, 735'000'000)
      .phase(PhaseId::kSeeks,
             std::vector<WorkerFigures>(5, WorkerFigures{6.34, 0.152, 0, 1638, 208'000'000}))
      .one(PhaseId::kSeqCreate, 0.3, 0.3, 0, 16384, 2'366'000)
      .one(PhaseId::kSeqDelete, del_s, del_s * 0.595, 0, 16384, 718'000);
  const std::string blank(10, ' ');
  const std::string expected =
      "Version  1.97       ------Sequential Output------ --Sequential Input- --Random-\n"
      "Concurrency   1     -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--\n"
      "Machine        Size K/sec %CP K/sec %CP K/sec %CP K/sec %CP K/sec %CP  /sec %CP\n"
      "vm            8196M   446  98 113486  17" +
      blank + blank + blank + "  1292  11\n" + "Latency             21900us     735ms" + blank +
      blank + blank + "     208ms\n" +
      "Version  1.97       ------Sequential Create------ --------Random Create--------\n"
      "vm                  -Create-- --Read--- -Delete-- -Create-- --Read--- -Delete--\n"
      "              files  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP\n"
      "                 16 +++++ +++" +
      blank + " 31949  59" + blank + blank + blank + "\n" + "Latency              2366us" + blank +
      "     718us" + blank + blank + blank + "\n";
  CHECK(text_of(b.step()) == expected + std::string(kUnitsNote));
  h.io_chunk_bytes = 4096;
  CHECK(text_of(StepBuilder(h).step()).find("Machine   Size:chnk K/sec") != std::string::npos);
  CHECK(text_of(StepBuilder(h).step()).find("vm         8196M:4k") != std::string::npos);
}

TEST_CASE("bonnie text table leaves failed phases blank", "[bonnie][text]") {
  StepBuilder b = vm_fixture();
  b.mutable_step().phases[0].status = iobench::Status::kFailed;                  // putc
  b.mutable_step().phases[3].workers[0].status = iobench::Status::kInterrupted;  // getc
  const std::string text = text_of(b.step());
  CHECK(text.find("vm              64M           +++++ +++ +++++ +++           +++++ +++") !=
        std::string::npos);
  CHECK(text.find("Latency                         174us     253us                57us") !=
        std::string::npos);
}

TEST_CASE("bonnie rate cells follow the k m g rule", "[bonnie][text]") {
  const auto rate = [](double kib_per_s) {
    return text_rate(PhaseId::kPutBlock, Cell{.state = Cell::State::kValue, .rate = kib_per_s},
                     false);
  };
  CHECK(rate(0) == "    0k");
  CHECK(rate(9999.9) == " 9999k");
  CHECK(rate(10000) == "  9.8m");
  CHECK(rate(102297.6) == " 99.9m");
  CHECK(rate(102348.8) == " 100.0m");  // 99.95 MiB/s: bonnie++'s "%4.1f" rounds up, one wider
  CHECK(rate(102400) == "  100m");
  CHECK(rate(1022976) == "  999m");
  CHECK(rate(1023999) == " 1000m");  // 999.999 MiB/s rounds to 1000 like bonnie++
  CHECK(rate(1024000) == "  1.0g");
  CHECK(rate(2861782) == "  2.7g");
  CHECK(text_rate(PhaseId::kPutBlock, Cell{.state = Cell::State::kValue, .rate = 364656.9}, true) ==
        " 364656");
  const auto seeks = [](double per_s) {
    return text_rate(PhaseId::kSeeks, Cell{.state = Cell::State::kValue, .rate = per_s}, false);
  };
  CHECK(seeks(439.54) == " 439.5");
  CHECK(seeks(1291.6) == "  1292");
  CHECK(seeks(12113.2) == " 12113");
  CHECK(text_rate(PhaseId::kSeqCreate, Cell{.state = Cell::State::kValue, .rate = 8891.9}, false) ==
        "  8891");
  CHECK(text_rate(PhaseId::kGetc, Cell{}, false) == "      ");
  CHECK(text_rate(PhaseId::kGetc, Cell{.state = Cell::State::kTooFast}, false) == " +++++");
  CHECK(text_cpu(Cell{}) == "    ");
  CHECK(text_cpu(Cell{.state = Cell::State::kTooFast}) == " +++");
  CHECK(text_cpu(Cell{.state = Cell::State::kValue, .cpu_percent = 112}) == " 112");
}

TEST_CASE("bonnie latency cells use us ms and s", "[bonnie][text]") {
  CHECK(format_latency(0).empty());
  CHECK(format_latency(999) == "0us");
  CHECK(format_latency(5'000) == "5us");
  CHECK(format_latency(99'999'000) == "99999us");
  CHECK(format_latency(99'999'001) == "99ms");
  CHECK(format_latency(100'000'000) == "100ms");
  CHECK(format_latency(1'066'999'999) == "1066ms");
  CHECK(format_latency(99'999'999'000) == "99999ms");
  CHECK(format_latency(99'999'999'001) == "99s");
  CHECK(format_latency(123'456'000'000) == "123s");
}

TEST_CASE("bonnie size cells follow print size", "[bonnie][text]") {
  CHECK(print_size(64, "MG") == "64M");
  CHECK(print_size(2048, "MG") == "2G");
  CHECK(print_size(1536, "MG") == "1536M");
  CHECK(print_size(1024 * 1024, "MG") == "1024G");
  CHECK(print_size(4096, " km") == "4k");
  CHECK(print_size(1048576, " km") == "1m");
  CHECK(print_size(512, " km") == "512");
  CHECK(print_size(1536, " km") == "1536");
  CHECK(name_size_cell("host", "16M:4k") == "host         16M:4k");
  CHECK(name_size_cell("averyveryverylongmachinename", "16M:::400") == "averyvery 16M:::400");
  CHECK(name_size_cell("x", "123456789012345678") == " 123456789012345678");
  CHECK(name_size_cell("x", "1234567890123456789") == "1234567890123456789");
  ReportHeader h;
  h.file_size_mib = 16;
  h.seeks = 400;
  CHECK(io_size_text(h) == "16M:::400");
  h.seekers = 3;
  CHECK(io_size_text(h) == "16M:::400:3");
  h.seeks = 8192;
  h.copies = 4;
  CHECK(io_size_text(h) == "16M::4::3");
  h.file_size_mib = 512;
  h.seeks = 400000;
  h.seekers = 5;
  h.copies = 1;
  CHECK(io_size_text(h) == "512M:::400000");
}

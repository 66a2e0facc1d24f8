#include <catch2/catch.hpp>
#include <iobench/printable.hpp>
#include <string>

using iobench::printable;
using iobench::printable_message;

TEST_CASE("printable escapes control characters and bytes that are not UTF-8", "[printable]") {
  CHECK(printable("plain/path_1.txt") == "plain/path_1.txt");
  CHECK(printable("a\nb\tc\rd") == "a\\nb\\tc\\rd");
  CHECK(printable("\x1b[31mred") == "\\x1b[31mred");
  CHECK(printable(std::string("nul\0byte", 8)) == "nul\\x00byte");
  CHECK(printable("del\x7f") == "del\\x7f");
  CHECK(printable("back\\slash") == "back\\slash");  // printable characters stay as they are
  CHECK(printable("caf\xc3\xa9 \xe2\x82\xac") == "caf\xc3\xa9 \xe2\x82\xac");  // UTF-8 kept
  CHECK(printable("bad \xff\xfe end") == "bad \\xff\\xfe end");
  CHECK(printable("trunc \xe2\x82") == "trunc \\xe2\\x82");  // a cut sequence is not UTF-8
  CHECK(printable("c1 \xc2\x9b") == "c1 \\xc2\\x9b");        // U+009B (CSI) is a control
  CHECK(printable("over \xc0\xaf") == "over \\xc0\\xaf");    // overlong '/'
  CHECK(printable_message("line 1\nline\t2\x1b") == "line 1\nline\\t2\\x1b");
}

TEST_CASE("printable cuts long text in the middle and stays within its bound", "[printable]") {
  const std::string head = "/very/long/path/";
  const std::string tail = "/file.txt: No space left on device";
  const std::string text = head + std::string(5000, 'd') + tail;
  for (const std::size_t max : {32UL, 100UL, 256UL, 1023UL}) {
    const std::string shown = printable(text, max);
    INFO(max << ": " << shown);
    CHECK(shown.size() <= max);
    CHECK(shown.find("[... ") != std::string::npos);
    if (max >= 100) {
      CHECK(shown.rfind(head, 0) == 0);
      CHECK(shown.size() >= tail.size());
      CHECK(shown.substr(shown.size() - tail.size()) == tail);  // the errno text survives
    }
  }
  // The marker counts the bytes left out.
  const std::string cut = printable(std::string(1000, 'x'), 100);
  const std::size_t shown_x = static_cast<std::size_t>(std::count(cut.begin(), cut.end(), 'x'));
  CHECK(cut.find("[... " + std::to_string(1000 - shown_x) + " bytes ...]") != std::string::npos);
  // Escapes and multi-byte characters are never split by the cut.
  const std::string escapes = printable(std::string(400, '\x01'), 64);
  CHECK(escapes.size() <= 64);
  CHECK(escapes.find("\\x0[") == std::string::npos);
  const std::string euros = printable(std::string(300, 'a') + std::string(60, '\xe2'), 64);
  CHECK(euros.size() <= 64);
  std::string many_euros;
  for (int i = 0; i < 200; ++i) many_euros += "\xe2\x82\xac";
  const std::string e = printable(many_euros, 64);
  CHECK(e.size() <= 64);
  CHECK(e.rfind("\xe2\x82\xac", 0) == 0);
  CHECK(e.substr(e.size() - 3) == "\xe2\x82\xac");
}

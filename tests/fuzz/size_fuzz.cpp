// Fuzz target: sizes and counts ("4k", "1GiB", "50k") and machine-relative size expressions
// ("2*ram/targets"), as params, suites and the command line read them.
//
// Invariants: a parsed size formatted by format_size (what reports print) parses back to the same
// bytes; suffixes are case-insensitive; a count is also a size of the same value; an expression
// comes to a non-zero whole number of MiB that also parses back; a size of whole MiB used as an
// expression ("SIZE*1") gives the same bytes; only ConfigError is ever thrown, with a message.
#include <cctype>
#include <iobench/error.hpp>
#include <iobench/params.hpp>
#include <iobench/units.hpp>
#include <optional>
#include <string>

#include "suite/units_detail.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

using iobench::ConfigError;
namespace detail = iobench::detail;

template <typename Parse>
std::optional<std::uint64_t> try_parse(Parse parse) {
  try {
    return parse();
  } catch (const ConfigError& e) {
    FUZZ_CHECK(*e.what() != '\0', "empty message");
    return std::nullopt;
  }
}

std::string to_upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = iobench::fuzz::as_text(data, size);

  const auto bytes = try_parse([&] { return iobench::parse_size(text, "size"); });
  if (bytes) {
    const std::string printed = detail::format_size(*bytes);
    FUZZ_CHECK(iobench::parse_size(printed, "size") == *bytes, printed);
    FUZZ_CHECK(iobench::parse_size(detail::to_lower(text), "size") == *bytes, text);
    FUZZ_CHECK(iobench::parse_size(to_upper(text), "size") == *bytes, text);
    FUZZ_CHECK(!detail::is_size_expression(text), text);
  }

  const auto count = try_parse([&] { return iobench::parse_count(text, "count"); });
  if (count) {
    FUZZ_CHECK(bytes && *bytes == *count, text);
  }

  const iobench::SizeContext machine{.ram_bytes = 24 * iobench::kGiB + 123 * iobench::kKiB,
                                     .targets = 3};
  if (detail::is_size_expression(text)) {
    const auto resolved =
        try_parse([&] { return detail::parse_size_expression_as(text, "size='x'", machine); });
    if (resolved) {
      FUZZ_CHECK(*resolved > 0 && *resolved % iobench::kMiB == 0, text);
      FUZZ_CHECK(iobench::parse_size(detail::format_size(*resolved), "size") == *resolved, text);
    }
  } else if (bytes && *bytes > 0 && *bytes % iobench::kMiB == 0) {
    const std::string product = std::string(text) + "*1";
    const auto resolved =
        try_parse([&] { return detail::parse_size_expression_as(product, "size='x'", machine); });
    FUZZ_CHECK(resolved && *resolved == *bytes, product);
  }

  // As a workload param: the text a report shows for it validates to the same bytes.
  static const std::vector<iobench::ParamSpec> specs{
      {.key = "size", .type = iobench::ParamType::kSize}};
  std::optional<iobench::Params> params;
  try {
    params = iobench::Params::validate(specs, {{"size", std::string(text)}}, "fuzz", machine);
  } catch (const ConfigError&) {
  }
  if (params) {
    const std::uint64_t value = params->get_u64("size");
    const iobench::Params again =
        iobench::Params::validate(specs, {{"size", params->get_string("size")}}, "fuzz", machine);
    FUZZ_CHECK(again.get_u64("size") == value, params->get_string("size"));
  }
  return 0;
}

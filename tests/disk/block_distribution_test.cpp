// The skewed block distributions against their exact expected shares.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <iobench/error.hpp>
#include <vector>

#include "plugins/disk/block_distribution.hpp"

using namespace iobench;
using namespace iobench::plugins::disk;

namespace {

// Generalised harmonic number H(n, theta) = sum 1/k^theta, k = 1..n.
double harmonic(std::uint64_t n, double theta) {
  double sum = 0;
  for (std::uint64_t k = n; k >= 1; --k) sum += std::pow(static_cast<double>(k), -theta);
  return sum;
}

// Hits per block over `draws` draws of `order`, sorted from the hottest block down.
std::vector<std::uint64_t> sorted_hits(BlockOrder& order, std::uint64_t blocks,
                                       std::uint64_t draws) {
  std::vector<std::uint64_t> hits(blocks);
  for (std::uint64_t i = 0; i < draws; ++i) ++hits.at(order.block(i % blocks));
  std::sort(hits.begin(), hits.end(), std::greater<>());
  return hits;
}

double share_of_top(const std::vector<std::uint64_t>& hits, std::size_t top, std::uint64_t draws) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < top; ++i) sum += hits[i];
  return static_cast<double>(sum) / static_cast<double>(draws);
}

}  // namespace

TEST_CASE("zipf picks give the top 1 % of blocks their expected share", "[disk]") {
  constexpr std::uint64_t kBlocks = 10'000;
  constexpr std::uint64_t kDraws = 2'000'000;
  for (const double theta : {0.8, 1.0, 1.2}) {
    INFO("theta " << theta);
    BlockOrder order(false, BlockDistribution::parse(fmt::format("zipf:{}", theta), "t"), kBlocks,
                     42);
    const auto hits = sorted_hits(order, kBlocks, kDraws);
    const double expected = harmonic(kBlocks / 100, theta) / harmonic(kBlocks, theta);
    // 2e6 draws: the share's standard error is below 0.05 %; allow 1 % relative.
    CHECK(share_of_top(hits, kBlocks / 100, kDraws) == Approx(expected).epsilon(0.01));
    // The single hottest block gets 1 / H(n, theta) of the draws.
    CHECK(static_cast<double>(hits[0]) / kDraws ==
          Approx(1.0 / harmonic(kBlocks, theta)).epsilon(0.02));
  }
}

TEST_CASE("pareto:h puts 1 - h of the picks on a fraction h of the blocks", "[disk]") {
  constexpr std::uint64_t kBlocks = 10'000;
  constexpr std::uint64_t kDraws = 1'000'000;
  for (const double h : {0.2, 0.1}) {
    BlockOrder order(false, BlockDistribution::parse(fmt::format("pareto:{}", h), "t"), kBlocks, 7);
    const auto hits = sorted_hits(order, kBlocks, kDraws);
    CHECK(share_of_top(hits, static_cast<std::size_t>(h * kBlocks), kDraws) ==
          Approx(1.0 - h).epsilon(0.01));
  }
}

TEST_CASE("skewed picks are spread over the file, not packed at its start", "[disk]") {
  constexpr std::uint64_t kBlocks = 1000;
  BlockOrder order(false, BlockDistribution::parse("zipf:1.2", "t"), kBlocks, 3);
  std::vector<std::uint64_t> hits(kBlocks);
  for (int i = 0; i < 100'000; ++i) ++hits[order.block(0)];
  const auto hottest = std::max_element(hits.begin(), hits.end()) - hits.begin();
  std::uint64_t first_tenth = 0;
  for (std::uint64_t b = 0; b < kBlocks / 10; ++b) first_tenth += hits[b];
  CHECK(hottest != 0);
  CHECK(first_tenth < 50'000);  // unscrambled, the first tenth of zipf:1.2 would get ~75 %
}

TEST_CASE("block distributions parse their forms and refuse bad ones", "[disk]") {
  CHECK(BlockDistribution::parse("zipf:1.2", "random_order").to_string() == "zipf:1.2");
  CHECK(BlockDistribution::parse("pareto:0.2", "random_order").to_string() == "pareto:0.2");
  CHECK(BlockDistribution::parse("uniform", "random_order").kind ==
        BlockDistribution::Kind::kUniform);
  for (const char* bad : {"zipf", "zipf:", "zipf:0", "zipf:-1", "zipf:x", "pareto:1", "pareto:0",
                          "pareto:1.5", "normal", "zipf:1.2x", "zipf:nan", "zipf:inf"}) {
    INFO(bad);
    CHECK_THROWS_WITH(BlockDistribution::parse(bad, "random_order"),
                      Catch::Contains("random_order") && Catch::Contains("zipf:THETA"));
  }
}

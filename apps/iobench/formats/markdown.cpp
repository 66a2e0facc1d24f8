// --format markdown: compare's tables as GitHub-flavoured Markdown (compare only).
#include <iobench/compare.hpp>

#include "output_formats.hpp"

namespace iobench::cli {

OutputFormat markdown_output_format() {
  return OutputFormat{.name = "markdown", .compare = write_comparison_markdown};
}

}  // namespace iobench::cli

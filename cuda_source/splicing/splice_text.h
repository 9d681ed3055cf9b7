// The byte ranges a splice edits by and the small text rules it follows: a definition's comment
// goes with it, a removal takes whole lines, two pieces are the same when they differ only in
// whitespace. Shared by the parts of the definition splice (definition_splice.h), which edit a
// file as text and must agree on where a piece begins and ends.
#pragma once

#include <string>
#include <vector>

namespace kb::cuda_source {

struct Range {
  size_t begin = 0, end = 0;
  bool overlaps(const Range& o) const { return begin < o.end && o.begin < end; }
};

// One edit of the original: [range) becomes `text`. An empty range inserts.
struct Edit {
  Range range;
  std::string text;
};

size_t line_begin(const std::string& s, size_t pos);

// `r` widened upwards over the comment lines directly above it (no blank line between): a
// definition's doc comment describes it, so it goes (or is replaced) with it.
Range with_leading_comment(const std::string& s, Range r);

// `r` widened over a `// ...` comment that ends its last line ("constexpr int kBlock = 256;  //
// one warp per row"): the comment says why that value, so it goes with it.
Range with_trailing_comment(const std::string& s, Range r);

// The whole lines of `r`, plus one blank line after it, for removing a definition cleanly.
Range whole_lines(const std::string& s, Range r);

// The text with every run of whitespace made one space and none at the ends.
std::string normalized(const std::string& s);

// The text with no whitespace but between two words ("int n"): equal for two spellings of one
// piece of code (`{return v*v;}` and `{ return v * v; }`), for telling a copy from a change.
std::string compact_code(const std::string& s);

// `text` with the edits applied; throws kb::Error naming `path` when two overlap. At one
// offset, insertions come before a replacement, in the order given.
std::string apply_edits(const std::string& path, const std::string& text, std::vector<Edit> edits);

}  // namespace kb::cuda_source

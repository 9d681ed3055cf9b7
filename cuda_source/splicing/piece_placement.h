// Where the pieces a reply adds go in the file it is spliced into (definition_splice.h): each
// before its first use, in the namespaces it stands in in the reply. Its first use is the
// earliest of the replaced definitions (and other added pieces) that name what it declares and
// come after it in the reply; a piece nothing names (an include) goes before everything that
// follows it in the reply. At that place, the file's namespaces it shares are kept open; the
// others are closed, by inserting before the file's namespace block, and its own are opened
// around it (`namespace ops {` ... `}  // namespace ops`), named ones reopened, anonymous ones
// joining the file's anonymous namespace.
#pragma once

#include <vector>

#include "cuda_source/splicing/reply_pieces.h"

namespace kb::cuda_source {

// The insertions (empty-range edits of `original`) that put `carried` (in the reply's order) in
// place. `fallback` is where a piece goes that nothing after it in the reply was spliced to: the
// first replaced definition.
std::vector<Edit> place_carried_pieces(const SpliceSide& original, const SpliceSide& reply,
                                       const std::vector<CarriedPiece>& carried,
                                       const std::vector<ReplacedPiece>& replaced, size_t fallback);

}  // namespace kb::cuda_source

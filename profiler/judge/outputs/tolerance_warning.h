// A verification that passed can still prove little: when an output's reference never exceeds
// its atol (max |original's value| <= atol over every trial), `|c - r| <= atol + rtol*|r|` holds
// for any candidate value within atol of zero, e.g. a kernel that writes zeros. Not a failure
// (the original may really produce tiny values), but the reviewer and whoever sets the tolerance
// must know.
#pragma once

#include <string>

#include "core/result_types.h"

namespace kb::judge {

// "out: the reference's largest magnitude 3e-07 is below atol 1e-05; this output's check passes
// any value within atol of zero: lower atol in [[kernel]].tolerance", or "" when the output's
// check is meaningful (or it compared nothing, or its atol is 0).
std::string tolerance_warning(const OutputError& output);

}  // namespace kb::judge

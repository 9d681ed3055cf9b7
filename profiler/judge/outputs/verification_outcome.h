// How a verification, one of its passes or one of its checks ended. Its own header because checks
// on every floor of the judge return one (the guard zones' check in buffers/, the passes, the
// judged call): none of them has to include the code that runs a judged call to name the result.
#pragma once

#include <string>

#include "core/result_types.h"

namespace kb::judge {

// How a verification (or one of its passes) ended; `verdict` is pending when it passed.
struct VerificationOutcome {
  Verdict verdict = Verdict::pending;
  std::string reason;
  bool failed() const { return verdict != Verdict::pending; }
};

}  // namespace kb::judge

// The roles `init` writes for a launcher's buffer parameters (bot/commands/init/starter_config.h): from how the
// launched kernels use the memory (bot/onboarding/param_evidence.h) where they tell, else from the types.
#pragma once

#include <string>
#include <vector>

#include "bot/onboarding/param_evidence.h"
#include "bot/onboarding/param_types.h"
#include "core/arg_types.h"
#include "cuda_source/tokens/source_scanner.h"

namespace kb::bot {

struct StarterRoles {
  std::vector<ArgRole> roles;        // per parameter; input for what is no buffer
  std::vector<RoleFromUses> by_use;  // per parameter: what the uses decided, and the note
};

// Read only is an input, written only an output, both inout; a buffer the launcher sets itself
// before its kernels run is an output. Where the uses do not tell: const is an input, a non-const
// pointer every kernel takes as const one too, else an output. A written buffer named as scratch
// is a workspace, unless nothing else would be compared. `table_file` names the lines of other files.
StarterRoles starter_roles(const std::vector<cuda_source::ScannedParam>& params, const std::vector<ParamType>& types,
                           const ParamEvidence& evidence, const std::string& table_file);

}  // namespace kb::bot

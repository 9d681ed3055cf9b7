// Two versions of a file that differ only in integer literals, described in words: what the PR
// body lists for a tuned literal ("block size literal in launch_gelu: 32 -> 256"), naming the
// launcher's knobs (cuda_source/knobs/literal_knobs.h) where a changed literal is one of theirs.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kb::cuda_source {

// One line per changed knob (and per changed literal no knob owns); nothing when the texts are
// equal or differ in anything but integer literals (other tokens, comments, spacing).
std::optional<std::vector<std::string>> describe_literal_changes(const std::string& original,
                                                                 const std::string& updated,
                                                                 const std::string& launcher, const std::string& file);

}  // namespace kb::cuda_source

// How the prompts show a file: whole, or, when it is too long for the prompt, as the excerpt a
// model needs to rewrite the launcher (its definitions, the kernels it launches and what they
// read; cuda_source/splicing/launcher_excerpt.h). A model shown excerpts writes the launcher and its
// kernels only, and its reply is spliced into the whole file it started from
// (cuda_source/splicing/definition_splice.h), so everything after the proposer sees a complete file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace kb::search {

// Longer than this, a file is cut in a prompt, so a model could not write it back whole.
constexpr size_t kWholeSourceMaxChars = 24'000;

// Whether a file of `chars` characters is too long to show whole: longer than a prompt shows,
// or (with `context_tokens` > 0, the model's context, as a server named it) more
// than a quarter of the context at about 4 characters a token: the prompt shows it once or
// twice (a crossover's two parents), and the reply writes it again, reasoning besides.
bool too_long_for_prompt(size_t chars, int64_t context_tokens);

// One search's way of showing its kernel's files.
struct SourceView {
  bool excerpts = false;  // show the launcher's part only, and splice replies back
  std::string path;       // the file, for the scanner's messages
  std::string launcher;
};

// What a prompt shows of `source`: the excerpt, or the whole file; either cut to
// kWholeSourceMaxChars with a note saying how much was cut.
std::string shown_source(const SourceView& view, const std::string& source);

// The launcher's excerpt of `source`, when the launcher is found and the excerpt is shorter.
std::optional<std::string> shorter_excerpt(const SourceView& view, const std::string& source);

// The whole candidate from `code`, what the model wrote: as it is when the prompts showed whole
// files; spliced into `base` (the file the model started from) when they showed excerpts, the
// #define values it changed applied. Throws kb::Error saying why it cannot be spliced.
std::string whole_source(const SourceView& view, const std::string& base, const std::string& code);

}  // namespace kb::search

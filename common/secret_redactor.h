// Keeps secrets out of text that came from an untrusted process (a candidate's output, its
// compile log, the harness's result file, which candidate code shares a process with): every
// secret value this process knows is replaced, and so is anything shaped like a common token
// (GitHub, OpenAI, AWS, Slack, an Authorization header, a private key), so a secret read from
// somewhere kernelbot never saw is caught too. Text is also bounded and stripped of terminal
// control characters before it may reach a log, result.json, the archive, a PR or a prompt.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kb {

inline constexpr const char* kRedacted = "[REDACTED]";

// Whether an environment variable's name looks like it holds a secret: *_TOKEN, *_KEY, *SECRET*,
// *PASSWORD*, *PASSWD*, *CREDENTIAL*, *AUTH*, GITHUB_*. Such variables never reach a child.
bool env_name_looks_secret(const std::string& name);

// Adds a value to the process-wide set that redact() removes. Values shorter than 8 characters
// are ignored: redacting "true" or a port number would garble every log. Thread-safe.
void register_secret(const std::string& value);

// Registers the value of every variable in `env` whose name looks like a secret: called once at
// start-up, so a token the parent
// never reads on purpose is still known.
void register_secrets_from_environment(char** env);

// `text` with every registered secret and every token-shaped string replaced by [REDACTED].
std::string redact(std::string_view text);

// redact(), then control characters other than newline and tab dropped, then at most `max_bytes`
// (the head and the tail, with a marker where the middle was). What untrusted text goes through
// before anything stores, prints or sends it.
std::string untrusted_text(std::string_view text, size_t max_bytes);

}  // namespace kb

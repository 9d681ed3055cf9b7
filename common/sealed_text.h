// A text sealed with a key: the JSON envelope {"result_text": TEXT, "seal": HMAC-SHA256(KEY, TEXT)}
// in which the judge hands kernelbot its result (a one-job judge's result file, a session's reply
// frame). Only a holder of the key can make one that opens.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace kb {

// The envelope of `text` sealed with `key`.
nlohmann::json sealed_envelope(const std::string& key, const std::string& text);

// The text of `envelope` when its seal verifies with `key`; nullopt when it does not. Throws
// (nlohmann::json's exceptions) when `envelope` is not such an envelope at all.
std::optional<std::string> open_sealed(const std::string& key, const std::string& envelope);

}  // namespace kb

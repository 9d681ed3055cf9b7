#include "common/sealed_text.h"

#include "common/hmac_sha256.h"

namespace kb {

nlohmann::json sealed_envelope(const std::string& key, const std::string& text) {
  return nlohmann::json{{"result_text", text}, {"seal", hmac_sha256_hex(key, text)}};
}

std::optional<std::string> open_sealed(const std::string& key, const std::string& envelope) {
  const nlohmann::json sealed = nlohmann::json::parse(envelope);
  std::string text = sealed.at("result_text").get<std::string>();
  if (!equal_in_constant_time(hmac_sha256_hex(key, text), sealed.at("seal").get<std::string>())) return std::nullopt;
  return text;
}

}  // namespace kb

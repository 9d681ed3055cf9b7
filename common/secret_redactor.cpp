#include "common/secret_redactor.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <mutex>
#include <regex>
#include <set>
#include <vector>

#include "common/text.h"

namespace kb {
namespace {

std::mutex& secrets_mutex() {
  static std::mutex m;
  return m;
}

// Longest first, so a secret that contains another is replaced whole.
struct LongestFirst {
  bool operator()(const std::string& a, const std::string& b) const {
    return a.size() != b.size() ? a.size() > b.size() : a < b;
  }
};

std::set<std::string, LongestFirst>& secrets() {
  static std::set<std::string, LongestFirst> s;
  return s;
}

// A token shape: the regex runs only where one of its literal anchors occurs (std::regex is
// slow, and logs are long). Every repetition is bounded: libstdc++'s std::regex recurses once per
// character a repetition matches, so `sk-` followed by 100 KB of letters in a child's output
// (which a candidate controls) would overflow the stack and end kernelbot. No real token is
// longer than the bounds.
struct Shape {
  std::vector<std::string> anchors;
  std::regex pattern;
  std::string keep_group;  // "$1": the part of the match that stays (a header's name)
};

const std::vector<Shape>& shapes() {
  using std::regex;
  static const std::vector<Shape> s = [] {
    std::vector<Shape> v;
    v.push_back({{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, regex(R"(gh[pousr]_[A-Za-z0-9]{16,1024})"), ""});
    v.push_back({{"github_pat_"}, regex(R"(github_pat_[A-Za-z0-9_]{16,1024})"), ""});
    v.push_back({{"sk-"}, regex(R"(sk-[A-Za-z0-9_-]{16,1024})"), ""});
    v.push_back({{"xox"}, regex(R"(xox[abprs]-[A-Za-z0-9-]{10,1024})"), ""});
    v.push_back({{"akia", "asia"}, regex(R"((AKIA|ASIA)[0-9A-Z]{16})"), ""});
    // git's http.extraheader ("AUTHORIZATION: basic <base64>"), curl -v, a .netrc line.
    v.push_back({{"authorization", "password"},
                 regex(R"(((proxy-)?authorization\s{0,16}[:=]\s{0,16}((basic|bearer|token)\s{1,16})?|)"
                       R"(password\s{0,16}[:=]\s{0,16})[A-Za-z0-9+/=._~-]{8,1024})",
                       regex::icase),
                 "$1"});
    // A bare scheme and credential: long enough not to eat a compiler's "unexpected token here".
    v.push_back({{"bearer", "basic", "token"},
                 regex(R"(((bearer|basic|token)\s{1,16})[A-Za-z0-9+/=._~-]{20,1024})", regex::icase),
                 "$1"});
    // user:password@ in a URL (a remote's credentials).
    v.push_back({{"://"}, regex(R"((://[^/\s:@]{1,256}:)[^/\s@]{6,1024}@)"), "$1"});
    return v;
  }();
  return s;
}

// A PEM private key, from its BEGIN line to its END line or the end of the text: found by hand,
// since a regex spanning the key would recurse once per character of it.
void redact_private_keys(std::string& text, const char* redacted) {
  for (size_t at = text.find("-----BEGIN "); at != std::string::npos; at = text.find("-----BEGIN ", at + 1)) {
    const size_t head_end = text.find("-----", at + 11);
    if (head_end == std::string::npos) return;
    const std::string head = text.substr(at + 11, head_end - at - 11);
    if (!head.ends_with("PRIVATE KEY") || head.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ ") != std::string::npos)
      continue;
    size_t end = text.find("-----END ", head_end + 5);
    end = end == std::string::npos ? text.size() : text.find("PRIVATE KEY-----", end);
    end = end == std::string::npos ? text.size() : end + 16;
    text.replace(at, end - at, redacted);
  }
}

// Anchors are lower-case and looked for in the lower-cased text; the regex then decides.
bool has_anchor(const Shape& shape, const std::string& lowered) {
  for (const auto& a : shape.anchors)
    if (lowered.find(a) != std::string::npos) return true;
  return false;
}

std::string bounded(const std::string& text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  const size_t half = max_bytes / 2;
  return text.substr(0, half) + "\n[... " + std::to_string(text.size() - 2 * half) + " bytes omitted ...]\n" +
         text.substr(text.size() - half);
}

}  // namespace

bool env_name_looks_secret(const std::string& name) {
  static const char* const kSecretSuffixes[] = {"_KEY", "_TOKEN"};
  static const char* const kSecretParts[] = {"SECRET", "PASSWORD", "CREDENTIAL", "PASSWD", "AUTH"};
  std::string upper = name;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  for (const char* s : kSecretSuffixes)
    if (upper.ends_with(s)) return true;
  for (const char* p : kSecretParts)
    if (upper.find(p) != std::string::npos) return true;
  return upper.starts_with("GITHUB_");
}

void register_secret(const std::string& value) {
  if (value.size() < 8) return;
  std::lock_guard lock(secrets_mutex());
  secrets().insert(value);
}

void register_secrets_from_environment(char** env) {
  for (char** e = env; e && *e; ++e) {
    std::string entry = *e;
    size_t eq = entry.find('=');
    if (eq != std::string::npos && env_name_looks_secret(entry.substr(0, eq))) register_secret(entry.substr(eq + 1));
  }
}

std::string redact(std::string_view text_view) {
  std::string text(text_view);
  {
    std::lock_guard lock(secrets_mutex());
    for (const auto& secret : secrets())
      for (size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, at + std::strlen(kRedacted)))
        text.replace(at, secret.size(), kRedacted);
  }
  redact_private_keys(text, kRedacted);
  std::string lowered = lower(text);
  for (const auto& shape : shapes()) {
    if (!has_anchor(shape, lowered)) continue;
    text = std::regex_replace(text, shape.pattern, shape.keep_group + kRedacted);
    lowered = lower(text);
  }
  return text;
}

std::string untrusted_text(std::string_view text, size_t max_bytes) {
  std::string clean = redact(text);
  // Escape sequences could rewrite what a maintainer's terminal shows of a log.
  clean.erase(std::remove_if(clean.begin(), clean.end(),
                             [](unsigned char c) { return (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f; }),
              clean.end());
  return bounded(clean, max_bytes);
}

}  // namespace kb

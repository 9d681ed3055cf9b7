// kb_seal_result KEY FILE: rewrites FILE (an EvalResult JSON a fake harness wrote) in the sealed
// form the real judge writes ({"result_text": ..., "seal": HMAC-SHA256(KEY, text)}), so the CPU
// tests' shell-script harnesses speak the same protocol as kernelbot-harness --seal-key-stdin.
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/sealed_text.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: kb_seal_result KEY FILE\n";
    return 2;
  }
  std::ifstream in(argv[2]);
  std::stringstream raw;
  raw << in.rdbuf();
  const std::string text = nlohmann::json::parse(raw.str()).dump();
  std::ofstream(argv[2]) << kb::sealed_envelope(argv[1], text).dump();
  return 0;
}

// A sealed text opens with its key only; an envelope that is not one is an error, not a text.
#include "common/sealed_text.h"

#include <gtest/gtest.h>

TEST(SealedText, OpensWithItsKeyOnly) {
  const std::string key = "00112233445566778899aabbccddeeff";
  const std::string envelope = kb::sealed_envelope(key, "{\"verdict\":\"accepted\"}").dump();
  EXPECT_EQ(kb::open_sealed(key, envelope).value_or(""), "{\"verdict\":\"accepted\"}");
  EXPECT_FALSE(kb::open_sealed("ffeeddccbbaa99887766554433221100", envelope));
  nlohmann::json changed = nlohmann::json::parse(envelope);
  changed["result_text"] = "{\"verdict\":\"accepted\",\"speedup\":100}";
  EXPECT_FALSE(kb::open_sealed(key, changed.dump())) << "the text changed under its seal";
  EXPECT_ANY_THROW(kb::open_sealed(key, "{\"verdict\":\"accepted\"}"));
  EXPECT_ANY_THROW(kb::open_sealed(key, "not json"));
}

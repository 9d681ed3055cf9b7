// {{PLACEHOLDER}} templates: every slot filled once, values never re-expanded, missing ones named.
#include "common/text_template.h"

#include <gtest/gtest.h>

#include "core/errors.h"

using kb::fill_template;

TEST(TextTemplate, FillsEveryPlaceholderAndReportsMissingOnes) {
  EXPECT_EQ(fill_template("a {{X}} b {{Y}}{{X}}", {{"X", "1"}, {"Y", "{{Z}}"}}), "a 1 b {{Z}}1");
  try {
    fill_template("{{A}} {{B}} {{A}}", {{"A", ""}});
    FAIL() << "expected an error";
  } catch (const kb::Error& e) {
    EXPECT_NE(std::string(e.what()).find("B"), std::string::npos);
  }
}

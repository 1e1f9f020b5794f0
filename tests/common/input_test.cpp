#include "common/input.hpp"

#include <gtest/gtest.h>

#include "common/suggest.hpp"

namespace rigsim {
namespace {

using nlohmann::json;

TEST(Input, UnknownKeyIsAnErrorWithSuggestionAndPointer) {
  const json doc = json::parse(R"({"entries": [{"model": "x", "modle": "y"}]})");
  ObjectReader top(doc, "f.json", "");
  const json& arr = top.required_array("entries");
  ObjectReader e = top.element(arr, "entries", 0);
  (void)e.required_string("model");
  try {
    e.finish();
    FAIL() << "expected InputError";
  } catch (const InputError& err) {
    EXPECT_EQ(err.file(), "f.json");
    EXPECT_EQ(err.location(), "/entries/0/modle");
    EXPECT_NE(std::string(err.what()).find("did you mean \"model\""), std::string::npos) << err.what();
  }
}

TEST(Input, MissingRequiredKeyNamesTheKeyAndTheObject) {
  const json doc = json::parse(R"({"a": {}})");
  ObjectReader top(doc, "f.json", "");
  ObjectReader a = top.child("a");
  try {
    a.required_int("lanes");
    FAIL();
  } catch (const InputError& err) {
    EXPECT_EQ(err.location(), "/a");
    EXPECT_NE(std::string(err.what()).find("\"lanes\""), std::string::npos);
  }
}

TEST(Input, WrongTypeSaysWhatWasExpected) {
  const json doc = json::parse(R"({"lanes": "sixteen"})");
  ObjectReader top(doc, "f.json", "");
  try {
    top.required_int("lanes");
    FAIL();
  } catch (const InputError& err) {
    EXPECT_EQ(err.location(), "/lanes");
    EXPECT_NE(std::string(err.what()).find("expected an integer, got a string"), std::string::npos)
        << err.what();
  }
}

TEST(Input, SyntaxErrorsGiveLineAndColumn) {
  try {
    parse_json_text("{\n  \"a\": 1,\n  \"b\": }\n", "bad.json");
    FAIL();
  } catch (const InputError& err) {
    EXPECT_EQ(err.location().rfind("line 3", 0), 0u) << err.location();
  }
}

TEST(Input, MissingFileIsAnInputError) {
  EXPECT_THROW(load_json_file("/nonexistent/x.json"), InputError);
}

TEST(Suggest, ClosestMatchFindsTyposButNotStrangers) {
  EXPECT_EQ(closest_match("rtx-3900", {"rtx-3090", "rtx-4090", "a100-sxm4-80gb"}), "rtx-3090");
  EXPECT_EQ(closest_match("banana", {"rtx-3090", "rtx-4090"}), "");
  // A key that longer keys start with is suggested by meaning before spelling ("rtx-3060" is the 12 GB
  // card, not the nearer-spelt rtx-3090).
  EXPECT_EQ(did_you_mean("rtx-3060", {"rtx-3090", "rtx-3060-12gb"}), " (did you mean \"rtx-3060-12gb\"?)");
  EXPECT_EQ(did_you_mean("a100-sxm4", {"a100-sxm4-40gb", "a100-sxm4-80gb", "h100-sxm5"}),
            " (did you mean one of \"a100-sxm4-40gb\", \"a100-sxm4-80gb\"?)");
  // The nearest spelling first, then the family's nearest model numbers.
  EXPECT_EQ(did_you_mean("rtx-3900", {"rtx-3090", "rtx-4090"}), " (did you mean one of \"rtx-3090\", \"rtx-4090\"?)");
  EXPECT_EQ(did_you_mean("llama-2-7", {"llama-2-70b", "llama-2-7b"}), " (did you mean \"llama-2-7b\"?)");
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(Suggest, AModelNumberSuggestsItsFamilyByNearestNumber) {
  // "z270" is no typo of anything: it is an Intel Z chipset between the Z170 and the Z370.
  const std::vector<std::string> chipsets{"x570", "b550", "z170", "z490", "z370", "x99", "trx40", "c612"};
  EXPECT_EQ(did_you_mean("z270", chipsets), " (did you mean one of \"z170\", \"z370\", \"z490\"?)");
  // The nearest spelling, then "rtx-" cards by distance from 5060 (the family ends at the first digit:
  // never a "gtx-" card).
  const std::vector<std::string> gpus{"gtx-1080-ti", "rtx-3090", "rtx-4090", "rtx-5090", "rtx-5070-ti", "h100-sxm5"};
  EXPECT_EQ(did_you_mean("rtx-5060", gpus), " (did you mean one of \"rtx-5090\", \"rtx-5070-ti\", \"rtx-4090\", \"rtx-3090\"?)");
  // No number, no family: nothing but spelling.
  EXPECT_EQ(did_you_mean("banana", gpus), "");
}

}  // namespace
}  // namespace rigsim

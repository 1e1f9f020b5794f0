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
  EXPECT_EQ(did_you_mean("rtx-3900", {"rtx-3090", "rtx-4090"}), " (did you mean \"rtx-3090\"?)");
  EXPECT_EQ(did_you_mean("llama-2-7", {"llama-2-70b", "llama-2-7b"}), " (did you mean \"llama-2-7b\"?)");
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

}  // namespace
}  // namespace rigsim

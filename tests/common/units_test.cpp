#include "common/units.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace rigsim {
namespace {

TEST(Units, ParsesDecimalAndBinarySizes) {
  EXPECT_DOUBLE_EQ(parse_bytes("8GiB").value, 8.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(parse_bytes("512MB").value, 512e6);
  EXPECT_DOUBLE_EQ(parse_bytes("4096").value, 4096);
  EXPECT_DOUBLE_EQ(parse_bytes("1e6B").value, 1e6);
  EXPECT_DOUBLE_EQ(parse_bytes("128 MiB").value, 128.0 * 1048576);
}

TEST(Units, ParsesRatesInBytesAndBits) {
  EXPECT_DOUBLE_EQ(parse_rate("24GB/s").value, 24e9);
  EXPECT_DOUBLE_EQ(parse_rate("100Gb/s").value, 12.5e9);
  EXPECT_DOUBLE_EQ(parse_rate("12.5 GB/s").value, 12.5e9);
}

TEST(Units, ParsesDurations) {
  EXPECT_DOUBLE_EQ(parse_duration("2us").value, 2e-6);
  EXPECT_DOUBLE_EQ(parse_duration("1.5ms").value, 1.5e-3);
  EXPECT_DOUBLE_EQ(parse_duration("150ns").value, 150e-9);
}

TEST(Units, RejectsMalformedQuantitiesWithASentence) {
  EXPECT_THROW(parse_bytes("lots"), std::invalid_argument);
  EXPECT_THROW(parse_bytes("8XB"), std::invalid_argument);
  EXPECT_THROW(parse_bytes("-4MB"), std::invalid_argument);
  EXPECT_THROW(parse_rate("24GB"), std::invalid_argument);
  EXPECT_THROW(parse_duration("2 fortnights"), std::invalid_argument);
  try {
    parse_rate("fast");
    FAIL() << "expected an exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("\"fast\""), std::string::npos) << e.what();
  }
}

TEST(Units, TimeIsSizeOverRate) {
  // 1 GB over a 25 GB/s link takes 40 ms.
  EXPECT_DOUBLE_EQ((Bytes{1e9} / gb_per_s(25)).value, 0.04);
}

TEST(Units, FormatsForPeople) {
  EXPECT_EQ(format_bytes(Bytes{128.0 * 1048576}), "128 MiB");
  EXPECT_EQ(format_rate(gb_per_s(31.5)), "31.50 GB/s");
}

}  // namespace
}  // namespace rigsim

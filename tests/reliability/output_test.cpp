// Issue 12, "Output files and the hostile user": one writer for every command, all or nothing.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/input.hpp"
#include "common/output.hpp"

namespace rigsim {
namespace {

namespace fs = std::filesystem;

class OutputFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rigsim-out-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string read(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  /// Files in the directory other than `keep`.
  std::vector<std::string> others(std::initializer_list<std::string> keep) const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) {
      const std::string n = e.path().filename().string();
      if (std::find(keep.begin(), keep.end(), n) == keep.end()) out.push_back(n);
    }
    return out;
  }

  fs::path dir_;
};

TEST_F(OutputFile, ReplacesARegularFileAndLeavesNoTemporaryFile) {
  const fs::path out = dir_ / "r.json";
  std::ofstream(out) << "old";
  write_output_file(out.string(), "new\n");
  EXPECT_EQ(read(out), "new\n");
  EXPECT_TRUE(others({"r.json"}).empty());
}

TEST_F(OutputFile, AUsersOwnDotTmpFileIsNeverTouched) {
  const fs::path out = dir_ / "r.json";
  std::ofstream(dir_ / "r.json.tmp") << "mine";
  write_output_file(out.string(), "report");
  EXPECT_EQ(read(dir_ / "r.json.tmp"), "mine");
  EXPECT_EQ(read(out), "report");
}

TEST_F(OutputFile, WritesThroughASymlinkAndKeepsTheLink) {
  const fs::path target = dir_ / "target.json", link = dir_ / "link.json";
  std::ofstream(target) << "old";
  fs::create_symlink("target.json", link);
  write_output_file(link.string(), "through");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_EQ(read(target), "through");
}

TEST_F(OutputFile, ADirectoryIsAClearErrorAndNothingIsLeftBehind) {
  const fs::path d = dir_ / "d";
  fs::create_directories(d);
  try {
    write_output_file(d.string(), "x");
    FAIL() << "wrote onto a directory";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(others({"d"}).empty());
  EXPECT_TRUE(fs::is_empty(d));
}

TEST_F(OutputFile, ASpecialFileIsWrittenNotReplaced) {
  // /dev/null: written to, and still a character device afterwards (as root, a rename would have
  // replaced the device node).
  write_output_file("/dev/null", "discarded");
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  if (fs::exists("/dev/full")) {
    try {
      write_output_file("/dev/full", std::string(1 << 16, 'x'));
      FAIL() << "a write to /dev/full must fail";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("write failed"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(fs::is_character_file("/dev/full"));
  }
}

TEST_F(OutputFile, AMissingDirectoryIsAnErrorAndTheModeIsAPlainFilesMode) {
  EXPECT_THROW(write_output_file((dir_ / "no" / "such" / "r.json").string(), "x"), InputError);
  const fs::path out = dir_ / "m.json";
  const mode_t mask = ::umask(022);
  write_output_file(out.string(), "x");
  ::umask(mask);
  struct stat st {};
  ASSERT_EQ(::stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

}  // namespace
}  // namespace rigsim

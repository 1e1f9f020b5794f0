// Strict reading of JSON input files. Required keys are required, unknown keys are errors with a
// suggestion, and every error names the file and the JSON pointer of the offending value.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace rigsim {

/// A problem with user input: file, location (JSON pointer or line) and what was expected.
/// Thrown by library code, caught once in main, printed, and turned into a non-zero exit.
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string location, const std::string& message);
  const std::string& file() const { return file_; }
  const std::string& location() const { return location_; }

 private:
  std::string file_;
  std::string location_;
};

/// Input files larger than this are refused (a layout is a few kB; `rigsim topo /dev/zero` must not
/// grow until memory runs out).
inline constexpr std::uintmax_t kMaxInputBytes = 64ull << 20;
/// Reads a whole input file: refuses what is not a regular file (directory, device, pipe) and files
/// over kMaxInputBytes, and drops a UTF-8 byte-order mark, the same for every reader.
std::string read_input_file(const std::string& path);
/// `text` without a leading UTF-8 byte-order mark.
std::string strip_utf8_bom(std::string text);

/// Reads a whole file and parses it as JSON; syntax errors report the line and column, duplicate keys
/// and numbers out of range are located errors too.
nlohmann::json load_json_file(const std::string& path);
/// Parses JSON text; `name` is used as the file name in errors.
nlohmann::json parse_json_text(const std::string& text, const std::string& name);

/// A view of one JSON object that remembers which keys were read. Call finish() at the end:
/// any key not read is reported as unknown, with the closest known key as a suggestion.
class ObjectReader {
 public:
  ObjectReader(const nlohmann::json& node, std::string file, std::string pointer);

  std::string required_string(const std::string& key);
  int required_int(const std::string& key);
  bool required_bool(const std::string& key);
  const nlohmann::json& required_array(const std::string& key);
  const nlohmann::json& required_object(const std::string& key);

  std::optional<std::string> optional_string(const std::string& key);
  std::optional<double> optional_number(const std::string& key);
  std::optional<int> optional_int(const std::string& key);
  std::optional<bool> optional_bool(const std::string& key);
  /// Returns nullptr when absent.
  const nlohmann::json* optional_array(const std::string& key);
  const nlohmann::json* optional_object(const std::string& key);

  /// An array of strings at `key` (empty when absent and not `required`); a non-string element is an
  /// error located at its index.
  std::vector<std::string> string_list(const std::string& key, bool required = false);

  /// Reader for a nested object at `key` (required).
  ObjectReader child(const std::string& key);
  /// Reader for element `index` of an array value found at `key`.
  ObjectReader element(const nlohmann::json& array, const std::string& key, std::size_t index) const;

  /// Declares keys that are accepted but ignored (e.g. "$comment").
  void allow(const std::string& key);
  /// Throws InputError for the first key that was never read.
  void finish() const;

  /// Throws an InputError located at `key` of this object.
  [[noreturn]] void fail(const std::string& key, const std::string& message) const;
  /// Throws an InputError located at this object.
  [[noreturn]] void fail_here(const std::string& message) const;

  std::string pointer_of(const std::string& key) const;
  const std::string& pointer() const { return pointer_; }
  const std::string& file() const { return file_; }
  bool has(const std::string& key) const { return node_.contains(key); }

 private:
  const nlohmann::json& get(const std::string& key, nlohmann::json::value_t type, const char* what);
  int to_int(const std::string& key, const nlohmann::json& v) const;
  const nlohmann::json* find(const std::string& key, nlohmann::json::value_t type, const char* what);

  const nlohmann::json& node_;
  std::string file_;
  std::string pointer_;
  std::set<std::string> known_;
};

/// JSON pointer escaping of one reference token ("~" -> "~0", "/" -> "~1").
std::string escape_pointer_token(const std::string& token);

}  // namespace rigsim

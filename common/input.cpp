#include "common/input.hpp"

#include <cinttypes>
#include <climits>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "common/suggest.hpp"

namespace rigsim {
namespace {

std::string describe(const std::string& file, const std::string& location, const std::string& message) {
  std::string out = file;
  if (!location.empty()) out += (file.empty() ? "" : ": ") + location;
  return out + (out.empty() ? "" : ": ") + message;
}

const char* type_name(nlohmann::json::value_t t) {
  using V = nlohmann::json::value_t;
  switch (t) {
    case V::null:
      return "null";
    case V::object:
      return "an object";
    case V::array:
      return "an array";
    case V::string:
      return "a string";
    case V::boolean:
      return "a boolean";
    case V::number_integer:
    case V::number_unsigned:
      return "an integer";
    case V::number_float:
      return "a number";
    default:
      return "an unknown value";
  }
}

bool type_matches(const nlohmann::json& v, nlohmann::json::value_t want) {
  using V = nlohmann::json::value_t;
  if (want == V::number_float) return v.is_number();
  if (want == V::number_integer) return v.is_number_integer();
  return v.type() == want;
}

}  // namespace

InputError::InputError(std::string file, std::string location, const std::string& message)
    : std::runtime_error(describe(file, location, message)),
      file_(std::move(file)),
      location_(std::move(location)) {}

namespace {

/// The JSON pointer of the value being parsed, kept from the parser's events, so that a duplicate key
/// is reported where it is (nlohmann keeps the last of two equal keys without a word).
class KeyTracker {
 public:
  explicit KeyTracker(std::string name) : name_(std::move(name)) {}

  bool operator()(int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    switch (event) {
      case E::object_start:
      case E::array_start:
        enter_element();
        frames_.push_back(Frame{event == E::array_start, -1, {}, {}});
        break;
      case E::object_end:
      case E::array_end:
        frames_.pop_back();
        break;
      case E::key: {
        Frame& f = frames_.back();
        f.key = parsed.get<std::string>();
        if (!f.keys.insert(f.key).second)
          throw InputError(name_, pointer(),
                           "duplicate key \"" + f.key + "\" (JSON readers keep only one of them; remove the other)");
        break;
      }
      case E::value:
        enter_element();
        break;
    }
    return true;
  }

 private:
  struct Frame {
    bool array;
    long index;
    std::string key;
    std::set<std::string> keys;
  };

  void enter_element() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
  }

  std::string pointer() const {
    std::string out;
    for (const Frame& f : frames_)
      out += "/" + (f.array ? std::to_string(f.index) : escape_pointer_token(f.key));
    return out;
  }

  std::string name_;
  std::vector<Frame> frames_;
};

}  // namespace

std::string strip_utf8_bom(std::string text) {
  if (text.size() >= 3 && static_cast<unsigned char>(text[0]) == 0xEF &&
      static_cast<unsigned char>(text[1]) == 0xBB && static_cast<unsigned char>(text[2]) == 0xBF)
    text.erase(0, 3);
  return text;
}

std::string read_input_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw InputError(path, "", "cannot open file for reading (no such file)");
  if (!fs::is_regular_file(st))
    throw InputError(path, "", std::string("is not a regular file (") +
                                   (fs::is_directory(st) ? "a directory" : "a device, pipe or socket") +
                                   "); rigsim reads its inputs from regular files");
  const std::string over = "rigsim refuses input files over " + std::to_string(kMaxInputBytes >> 20) + " MiB";
  const auto size = fs::file_size(path, ec);
  if (!ec && size > kMaxInputBytes) throw InputError(path, "", "is " + std::to_string(size) + " bytes; " + over);
  // Read in blocks up to the cap (a file may grow while being read, or report no size).
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open file for reading");
  std::string text;
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxInputBytes)
      throw InputError(path, "", "grew past the limit while being read; " + over);
  }
  return strip_utf8_bom(std::move(text));
}

nlohmann::json parse_json_text(const std::string& raw, const std::string& name) {
  const std::string text = strip_utf8_bom(raw);
  try {
    return nlohmann::json::parse(text, KeyTracker(name));
  } catch (const nlohmann::json::out_of_range& e) {
    // e.g. a number too large for a double ("number overflow parsing '1e999'").
    std::string what = e.what();
    const auto pos = what.find("] ");
    if (pos != std::string::npos) what = what.substr(pos + 2);
    throw InputError(name, "", "invalid JSON: " + what);
  } catch (const nlohmann::json::parse_error& e) {
    // Translate the byte offset into a line and column for people.
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string what = e.what();
    const auto pos = what.find("syntax error");
    if (pos != std::string::npos) what = what.substr(pos);
    throw InputError(name, "line " + std::to_string(line) + ", column " + std::to_string(column),
                     "invalid JSON: " + what);
  }
}

nlohmann::json load_json_file(const std::string& path) {
  return parse_json_text(read_input_file(path), path);
}

std::string escape_pointer_token(const std::string& token) {
  std::string out;
  for (char c : token) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

ObjectReader::ObjectReader(const nlohmann::json& node, std::string file, std::string pointer)
    : node_(node), file_(std::move(file)), pointer_(std::move(pointer)) {
  if (!node_.is_object())
    throw InputError(file_, pointer_.empty() ? "/" : pointer_,
                     std::string("expected an object, got ") + type_name(node_.type()));
}

std::string ObjectReader::pointer_of(const std::string& key) const {
  return pointer_ + "/" + escape_pointer_token(key);
}

void ObjectReader::fail(const std::string& key, const std::string& message) const {
  throw InputError(file_, pointer_of(key), message);
}

void ObjectReader::fail_here(const std::string& message) const {
  throw InputError(file_, pointer_.empty() ? "/" : pointer_, message);
}

const nlohmann::json* ObjectReader::find(const std::string& key, nlohmann::json::value_t type,
                                         const char* what) {
  known_.insert(key);
  auto it = node_.find(key);
  if (it == node_.end()) return nullptr;
  if (!type_matches(*it, type)) fail(key, std::string("expected ") + what + ", got " + type_name(it->type()));
  return &*it;
}

const nlohmann::json& ObjectReader::get(const std::string& key, nlohmann::json::value_t type,
                                        const char* what) {
  const nlohmann::json* v = find(key, type, what);
  if (v == nullptr) fail_here("missing required key \"" + key + "\" (" + what + ")");
  return *v;
}

using V = nlohmann::json::value_t;

std::string ObjectReader::required_string(const std::string& key) {
  return get(key, V::string, "a string").get<std::string>();
}
int ObjectReader::to_int(const std::string& key, const nlohmann::json& v) const {
  // nlohmann would truncate 4294967316 to 20 and read 2^64-1 as -1: check the range first.
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(INT_MAX))
      fail(key, "expected an integer from " + std::to_string(INT_MIN) + " to " + std::to_string(INT_MAX) +
                    ", got " + std::to_string(u));
    return static_cast<int>(u);
  }
  const auto i = v.get<std::int64_t>();
  if (i < INT_MIN || i > INT_MAX)
    fail(key, "expected an integer from " + std::to_string(INT_MIN) + " to " + std::to_string(INT_MAX) +
                  ", got " + std::to_string(i));
  return static_cast<int>(i);
}

int ObjectReader::required_int(const std::string& key) {
  return to_int(key, get(key, V::number_integer, "an integer"));
}
bool ObjectReader::required_bool(const std::string& key) {
  return get(key, V::boolean, "true or false").get<bool>();
}
const nlohmann::json& ObjectReader::required_array(const std::string& key) {
  return get(key, V::array, "an array");
}
const nlohmann::json& ObjectReader::required_object(const std::string& key) {
  return get(key, V::object, "an object");
}

std::optional<std::string> ObjectReader::optional_string(const std::string& key) {
  const auto* v = find(key, V::string, "a string");
  return v ? std::optional<std::string>(v->get<std::string>()) : std::nullopt;
}
std::optional<double> ObjectReader::optional_number(const std::string& key) {
  const auto* v = find(key, V::number_float, "a number");
  return v ? std::optional<double>(v->get<double>()) : std::nullopt;
}
std::optional<int> ObjectReader::optional_int(const std::string& key) {
  const auto* v = find(key, V::number_integer, "an integer");
  return v ? std::optional<int>(to_int(key, *v)) : std::nullopt;
}
std::optional<bool> ObjectReader::optional_bool(const std::string& key) {
  const auto* v = find(key, V::boolean, "true or false");
  return v ? std::optional<bool>(v->get<bool>()) : std::nullopt;
}
const nlohmann::json* ObjectReader::optional_array(const std::string& key) {
  return find(key, V::array, "an array");
}
const nlohmann::json* ObjectReader::optional_object(const std::string& key) {
  return find(key, V::object, "an object");
}
std::vector<std::string> ObjectReader::string_list(const std::string& key, bool required) {
  std::vector<std::string> out;
  const nlohmann::json* arr = required ? &required_array(key) : optional_array(key);
  if (arr == nullptr) return out;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    if (!(*arr)[i].is_string())
      throw InputError(file_, pointer_of(key) + "/" + std::to_string(i), "expected a string");
    out.push_back((*arr)[i].get<std::string>());
  }
  return out;
}

ObjectReader ObjectReader::child(const std::string& key) {
  return ObjectReader(required_object(key), file_, pointer_of(key));
}

ObjectReader ObjectReader::element(const nlohmann::json& array, const std::string& key,
                                   std::size_t index) const {
  return ObjectReader(array.at(index), file_, pointer_of(key) + "/" + std::to_string(index));
}

void ObjectReader::allow(const std::string& key) {
  known_.insert(key);
}

void ObjectReader::finish() const {
  const std::vector<std::string> known(known_.begin(), known_.end());
  for (const auto& [key, value] : node_.items()) {
    if (known_.count(key) == 0)
      throw InputError(file_, pointer_of(key), "unknown key \"" + key + "\"" + did_you_mean(key, known));
  }
}

}  // namespace rigsim

#include "common/input.hpp"

#include <fstream>
#include <sstream>

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

nlohmann::json parse_json_text(const std::string& text, const std::string& name) {
  try {
    return nlohmann::json::parse(text);
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
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open file for reading");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_json_text(ss.str(), path);
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
int ObjectReader::required_int(const std::string& key) {
  return get(key, V::number_integer, "an integer").get<int>();
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
  return v ? std::optional<int>(v->get<int>()) : std::nullopt;
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

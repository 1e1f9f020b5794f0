#include "workloads/model.hpp"

#include <algorithm>
#include <filesystem>
#include <limits>

#include "common/input.hpp"
#include "common/suggest.hpp"
#include "workloads/read_util.hpp"

namespace rigsim::workloads {
namespace {

using detail::in_range;

constexpr int kMaxInt = std::numeric_limits<int>::max();

const detail::EnumTable<Norm> kNorms{{"layernorm", Norm::LayerNorm}, {"rmsnorm", Norm::RmsNorm}};
const detail::EnumTable<Position> kPositions{{"learned", Position::Learned}, {"rotary", Position::Rotary}};

void read_shape(ObjectReader& r, ModelConfig& m) {
  m.layers = in_range(r, "layers", r.required_int("layers"), 1, 100000);
  m.hidden = in_range(r, "hidden", r.required_int("hidden"), 1, kMaxInt);
  m.heads = in_range(r, "heads", r.required_int("heads"), 1, m.hidden);
  if (m.hidden % m.heads != 0)
    r.fail("heads",
           "heads (" + std::to_string(m.heads) + ") must divide hidden (" + std::to_string(m.hidden) + ")");
  m.kv_heads = in_range(r, "kv_heads", r.optional_int("kv_heads").value_or(m.heads), 1, m.heads);
  if (m.heads % m.kv_heads != 0)
    r.fail("kv_heads", "kv_heads (" + std::to_string(m.kv_heads) + ") must divide heads (" +
                           std::to_string(m.heads) + ")");
  m.ffn = in_range(r, "ffn", r.required_int("ffn"), 1, kMaxInt);
  m.gated_mlp = r.required_bool("gated_mlp");
  m.vocab = in_range(r, "vocab", r.required_int("vocab"), 1, kMaxInt);
  m.tied_embeddings = r.required_bool("tied_embeddings");
  m.bias = r.optional_bool("bias").value_or(false);
}

void read_style(ObjectReader& r, ModelConfig& m) {
  m.norm = detail::read_enum(r, "norm", kNorms);
  m.position = detail::read_enum(r, "position", kPositions);
  m.max_seq = in_range(r, "max_seq", r.optional_int("max_seq").value_or(0), 0, kMaxInt);
  if (m.position == Position::Learned && m.max_seq == 0)
    r.fail_here("learned positions need \"max_seq\" (the position table has max_seq rows)");
}

// The MoE keys only make sense together with "experts"; a dense model must not carry them.
void reject_moe_keys_on_dense(ObjectReader& r) {
  for (const char* key : {"top_k", "shared_experts", "expert_ffn", "moe_every", "first_dense_layers"})
    if (r.has(key))
      r.fail(key, std::string("\"") + key + "\" needs \"experts\" (a mixture-of-experts model)");
}

void read_moe(ObjectReader& r, ModelConfig& m) {
  m.experts = in_range(r, "experts", r.optional_int("experts").value_or(0), 0, 100000);
  if (m.experts == 0) return reject_moe_keys_on_dense(r);
  m.top_k = in_range(r, "top_k", r.required_int("top_k"), 1, m.experts);
  m.shared_experts = in_range(r, "shared_experts", r.optional_int("shared_experts").value_or(0), 0, 1000);
  m.expert_ffn = in_range(r, "expert_ffn", r.optional_int("expert_ffn").value_or(m.ffn), 1, kMaxInt);
  m.moe_every = in_range(r, "moe_every", r.optional_int("moe_every").value_or(1), 1, m.layers);
  m.first_dense_layers =
      in_range(r, "first_dense_layers", r.optional_int("first_dense_layers").value_or(0), 0, m.layers - 1);
  if (m.moe_layer_count() == 0) r.fail("moe_every", "no layer is a mixture-of-experts layer");
}

bool looks_like_path(const std::string& s) {
  return s.find('/') != std::string::npos || (s.size() > 5 && s.ends_with(".json"));
}

// Parameters of one MLP of intermediate size `ffn`: two or three matrices (+ biases).
double mlp_params(const ModelConfig& m, double ffn) {
  const double matrices = (m.gated_mlp ? 3.0 : 2.0) * m.hidden * ffn;
  const double biases = m.bias ? (m.gated_mlp ? 2.0 : 1.0) * ffn + m.hidden : 0.0;
  return matrices + biases;
}

double norm_params(const ModelConfig& m) {
  return (m.norm == Norm::LayerNorm ? 2.0 : 1.0) * m.hidden;
}

}  // namespace

bool ModelConfig::is_moe_layer(int layer) const {
  return experts > 0 && layer >= first_dense_layers && layer % moe_every == 0;
}

int ModelConfig::moe_layer_count() const {
  int n = 0;
  for (int i = 0; i < layers; ++i) n += is_moe_layer(i) ? 1 : 0;
  return n;
}

ModelConfig parse_model(const nlohmann::json& doc, const std::string& file) {
  ObjectReader r(doc, file, "");
  r.allow("$comment");
  ModelConfig m;
  m.file = file;
  m.name = r.required_string("name");
  m.source = r.required_string("source");
  m.notes = r.string_list("notes");
  read_shape(r, m);
  read_style(r, m);
  read_moe(r, m);
  r.finish();
  return m;
}

ModelConfig load_model(const std::string& path) {
  return parse_model(load_json_file(path), path);
}

std::vector<std::string> builtin_model_names(const std::string& models_dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(models_dir, ec))
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

ModelConfig find_model(const std::string& name_or_path, const std::string& models_dir) {
  if (looks_like_path(name_or_path)) return load_model(name_or_path);
  const auto names = builtin_model_names(models_dir);
  if (std::find(names.begin(), names.end(), name_or_path) == names.end()) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    throw InputError(models_dir, "",
                     "unknown model \"" + name_or_path + "\"" + did_you_mean(name_or_path, names) +
                         "; built-in models: " + list + " (or give the path of a model file)");
  }
  return load_model((std::filesystem::path(models_dir) / (name_or_path + ".json")).string());
}

LayerParams layer_params(const ModelConfig& m, int layer) {
  LayerParams p;
  const double h = m.hidden, kv = m.kv_dim();
  p.attention = 2 * h * h + 2 * h * kv + (m.bias ? 2 * h + 2 * kv : 0.0);
  p.norms = 2 * norm_params(m);
  if (!m.is_moe_layer(layer)) {
    p.mlp = p.mlp_active = mlp_params(m, m.ffn);
    return p;
  }
  const double expert = mlp_params(m, m.expert_ffn), router = h * m.experts;
  p.experts = m.experts * expert;
  p.mlp = p.experts + m.shared_experts * expert + router;
  p.mlp_active = (m.top_k + m.shared_experts) * expert + router;
  return p;
}

ParamCounts param_counts(const ModelConfig& m) {
  ParamCounts c;
  const double h = m.hidden;
  c.embedding = m.vocab * h + (m.position == Position::Learned ? m.max_seq * h : 0.0);
  c.lm_head = m.tied_embeddings ? 0.0 : m.vocab * h;
  c.final_norm = norm_params(m);
  for (int i = 0; i < m.layers; ++i) {
    const LayerParams p = layer_params(m, i);
    c.layers += p.total();
    c.layers_active += p.active();
    c.experts += p.experts;
  }
  const double outside = c.embedding + c.lm_head + c.final_norm;
  c.total = outside + c.layers;
  c.active = outside + c.layers_active;
  return c;
}

}  // namespace rigsim::workloads

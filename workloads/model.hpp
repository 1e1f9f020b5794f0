// Transformer model configurations (data files under scenarios/models/) and their parameter counts.
// A model file is read strictly, like a layout: unknown keys are errors with a suggestion, every error
// names the file and the JSON pointer, and shapes are checked (heads divide hidden, …).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rigsim::workloads {

enum class Norm { LayerNorm, RmsNorm };
enum class Position { Learned, Rotary };

/// One transformer: a stack of identical attention + MLP blocks (some of them mixture-of-experts)
/// between a token embedding and a logits projection. Sizes are element counts, not bytes.
struct ModelConfig {
  std::string name;
  std::string source;  // URL of the official config.json or paper
  std::string file;    // where it was read from ("" for in-memory configs)
  std::vector<std::string> notes;

  int layers = 0;
  int hidden = 0;          // model width h
  int heads = 0;           // attention (query) heads a
  int kv_heads = 0;        // key/value heads (GQA when < heads)
  int ffn = 0;             // intermediate size of a dense MLP
  bool gated_mlp = false;  // SwiGLU: gate, up and down matrices (else up and down)
  int vocab = 0;
  bool tied_embeddings = false;  // logits reuse the token embedding matrix
  int max_seq = 0;               // longest sequence (0: not stated); learned positions need it
  bool bias = false;             // linear layers carry biases (GPT-2, BERT)
  Norm norm = Norm::RmsNorm;
  Position position = Position::Rotary;

  // Mixture of experts (experts == 0: dense model).
  int experts = 0;             // routed experts per MoE layer
  int top_k = 0;               // routed experts each token visits
  int shared_experts = 0;      // always-active experts (DeepSeekMoE), each of expert_ffn size
  int expert_ffn = 0;          // intermediate size of one expert
  int moe_every = 1;           // layer i is MoE when i >= first_dense_layers and i % moe_every == 0
  int first_dense_layers = 0;  // leading dense layers (DeepSeek first_k_dense_replace)

  int head_dim() const { return hidden / heads; }
  int kv_dim() const { return kv_heads * head_dim(); }
  bool is_moe() const { return experts > 0; }
  bool is_moe_layer(int layer) const;
  int moe_layer_count() const;
};

/// Parses a model document; `file` names it in errors. Throws InputError.
ModelConfig parse_model(const nlohmann::json& doc, const std::string& file);
/// Reads and parses a model file. Throws InputError.
ModelConfig load_model(const std::string& path);
/// A built-in name ("llama-2-7b", a file stem in `models_dir`) or a path to a model file (anything
/// containing '/' or ending in ".json"). Unknown names are errors with a suggestion.
ModelConfig find_model(const std::string& name_or_path, const std::string& models_dir);
/// Sorted file stems of the model files in `models_dir`.
std::vector<std::string> builtin_model_names(const std::string& models_dir);

/// Parameters of one transformer block (element counts).
struct LayerParams {
  double attention = 0;   // q, k, v, o projections (+ biases)
  double mlp = 0;         // dense MLP, or all routed + shared experts + router
  double mlp_active = 0;  // what one token uses: dense MLP, or top_k + shared experts + router
  double norms = 0;       // the two norms' scales (and shifts)
  double experts = 0;     // routed experts only (0 for a dense layer): sharded by expert parallelism
  double total() const { return attention + mlp + norms; }
  double active() const { return attention + mlp_active + norms; }
};

/// Parameter counts of a whole model (element counts).
struct ParamCounts {
  double embedding = 0;   // token (+ learned position) embeddings
  double lm_head = 0;     // logits projection (0 when tied to the embedding)
  double final_norm = 0;  // the norm after the last block
  double layers = 0;      // all blocks
  double layers_active = 0;
  double total = 0;
  double active = 0;   // parameters one token touches (== total for dense models)
  double experts = 0;  // routed-expert parameters of all blocks
};

LayerParams layer_params(const ModelConfig& m, int layer);
ParamCounts param_counts(const ModelConfig& m);

}  // namespace rigsim::workloads

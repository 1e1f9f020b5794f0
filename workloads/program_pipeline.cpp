// Pipeline parallelism: each stage runs its micro-batches in the order of the schedule
// (pipeline_schedule.hpp), receiving activations (forward) and gradients (backward) from its
// neighbours as point-to-point messages. Data-parallel gradients are reduced after the pipeline
// flush (Megatron-LM's default).
#include <algorithm>
#include <stdexcept>

#include "workloads/memory.hpp"
#include "workloads/pipeline_schedule.hpp"
#include "workloads/program_detail.hpp"

namespace rigsim::workloads::detail {
namespace {

// Virtual stage vs = chunk·pp + stage runs on pipeline stage vs mod pp.
int rank_of_virtual(const RankContext& ctx, int vs) {
  return rank_of(ctx.s.plan, ctx.coords.dp, ctx.coords.tp, vs % ctx.s.plan.pp);
}

// Activations (or their gradients) at a stage boundary: b·s·h in the activation dtype; with sequence
// parallelism each tensor-parallel rank sends its 1/tp of the sequence.
double boundary_bytes(const RankContext& ctx) {
  const Dims d = dims_of(ctx.s, ctx.m);
  return d.tokens * d.h * d.act / (d.sp ? d.tp : 1);
}

std::string name_of(const Crossing& c) {
  return "mb" + std::to_string(c.mb) + (c.grad ? " grad" : " act") + " vs" + std::to_string(c.from) + "->vs" +
         std::to_string(c.to);
}

// The sends and receives of one stage, on the comm stream in the global crossing order (see
// crossing_times): a receive is posted before the pass that needs it, a send after the kernel that
// produced it, and both in (time, crossing) order, the same on both ends of every message.
class P2p {
 public:
  P2p(RankContext& ctx, const std::vector<Item>& items, const std::map<Crossing, double>& times) : ctx_(ctx) {
    last_vs_ = ctx.s.plan.pp * ctx.s.plan.virtual_stages - 1;
    for (const Item& item : items) {
      const int vs = item.chunk * ctx.s.plan.pp + ctx.coords.pp;
      if (const auto in = input_of(item, vs, last_vs_)) events_.push_back({times.at(*in), *in, false});
      if (const auto out = output_of(item, vs, last_vs_)) events_.push_back({times.at(*out), *out, true});
    }
    std::sort(events_.begin(), events_.end());
  }

  int last_vs() const { return last_vs_; }

  void before(const Item& item, int vs) {
    const auto in = input_of(item, vs, last_vs_);
    if (!in) return;
    while (!received_.count(*in)) emit_next();
    ctx_.b.wait_for(received_[*in]);
  }

  void after(const Item& item, int vs) {
    if (const auto out = output_of(item, vs, last_vs_)) produced_[*out] = ctx_.b.last(Stream::Compute);
  }

  void finish() {
    while (next_ < events_.size()) emit_next();
  }

 private:
  struct Event {
    double time;
    Crossing crossing;
    bool send;
    auto operator<=>(const Event&) const = default;
  };

  void emit_next() {
    const Event& e = events_.at(next_++);
    const Crossing& c = e.crossing;
    if (!e.send) {
      received_[c] = ctx_.b.recv(rank_of_virtual(ctx_, c.from), boundary_bytes(ctx_), name_of(c));
      return;
    }
    const auto it = produced_.find(c);
    if (it == produced_.end())
      throw std::logic_error("pipeline send ordered before its producer: " + name_of(c));
    std::vector<std::size_t> after;
    if (it->second) after.push_back(*it->second);
    ctx_.b.send(rank_of_virtual(ctx_, c.to), boundary_bytes(ctx_), name_of(c), after);
  }

  RankContext& ctx_;
  int last_vs_ = 0;
  std::vector<Event> events_;
  std::size_t next_ = 0;
  std::map<Crossing, std::size_t> received_;
  std::map<Crossing, std::optional<std::size_t>> produced_;
};

void chunk_forward(RankContext& ctx, const LayerRange& chunk, int vs, int last_vs, int mb) {
  const std::string tag = "mb" + std::to_string(mb);
  if (vs == 0) piece(ctx, embedding_forward(ctx.s, ctx.m), 1, tag + " embedding");
  for (const LayerRange& block : blocks(ctx.m, chunk, false)) block_forward(ctx, block, 1, tag);
  if (vs == last_vs) piece(ctx, head_forward(ctx.s, ctx.m), 1, tag + " head");
}

void chunk_backward(RankContext& ctx, const LayerRange& chunk, int vs, int last_vs, int mb) {
  const std::string tag = "mb" + std::to_string(mb);
  if (vs == last_vs) piece(ctx, head_backward(ctx.s, ctx.m), 1, tag + " head");
  const auto chunk_blocks = blocks(ctx.m, chunk, false);
  for (auto it = chunk_blocks.rbegin(); it != chunk_blocks.rend(); ++it) block_backward(ctx, *it, 1, tag);
  if (vs == 0) piece(ctx, embedding_backward(ctx.s, ctx.m), 1, tag + " embedding");
}

// A tied embedding lives on the first and the last stage; their gradients are summed (Megatron-LM's
// embedding group) before the step.
void tied_embedding_sync(RankContext& ctx) {
  const ParallelPlan& p = ctx.s.plan;
  const bool holder = ctx.coords.pp == 0 || ctx.coords.pp == p.pp - 1;
  if (!ctx.m.tied_embeddings || !holder || ctx.s.lora.enabled()) return;
  const std::vector<int> group{rank_of(p, ctx.coords.dp, ctx.coords.tp, 0),
                               rank_of(p, ctx.coords.dp, ctx.coords.tp, p.pp - 1)};
  const double bytes = static_cast<double>(ctx.m.vocab) * ctx.m.hidden / p.tp *
                       bytes_per_param(ctx.s.dtype, ctx.s.optimizer).gradient;
  std::vector<std::size_t> after;
  if (const auto k = ctx.b.last(Stream::Compute)) after.push_back(*k);
  ctx.b.collective(Purpose::GradSync, "tied embedding grads", CommKind::AllReduce, group, bytes, 1, after);
}

}  // namespace

void build_pipelined(RankContext& ctx) {
  const int stage = ctx.coords.pp;
  DpSync dp(ctx.s, ctx.b, ctx.g, make_units(ctx, stage));
  ctx.dp = &dp;
  const auto chunks = stage_chunks(ctx.s.plan, ctx.m, stage);
  const int m = ctx.s.micro_batches();
  const auto items = schedule(ctx.s.plan, m, stage);
  P2p p2p(ctx, items, crossing_times(ctx.s.plan, m));
  for (const Item& item : items) {
    const int vs = item.chunk * ctx.s.plan.pp + stage;
    p2p.before(item, vs);
    if (item.forward)
      chunk_forward(ctx, chunks[item.chunk], vs, p2p.last_vs(), item.mb);
    else
      chunk_backward(ctx, chunks[item.chunk], vs, p2p.last_vs(), item.mb);
    p2p.after(item, vs);
  }
  p2p.finish();
  // After the flush: gradients of the whole step, in backward order (head, layers, embedding).
  dp.set_pass("step");
  if (ctx.head_unit) dp.grads_ready(*ctx.head_unit, 1);
  for (auto it = ctx.unit_of_layer.rbegin(); it != ctx.unit_of_layer.rend(); ++it)
    dp.grads_ready(it->second, 1);
  if (ctx.embedding_unit) dp.grads_ready(*ctx.embedding_unit, 1);
  tied_embedding_sync(ctx);
  dp.flush(1);
  dp.step();
}

}  // namespace rigsim::workloads::detail

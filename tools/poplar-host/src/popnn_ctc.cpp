// Host implementation of popnn::ctc_infer::beamSearchDecoderLogProbabilities: CTC prefix
// beam search in double, the algorithm of ipu-mlir's support/ctc.py step for step (the
// beams extended in rank order, each by every class in order, equal prefixes merged, the
// beamwidth most probable kept; ties: the shorter, then the lexicographically smaller
// prefix first). It exists only to check ipu-mlir's emitted code; see ../README.md.
#include <popnn/CTCInference.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include "host_util.hpp"

namespace popnn {
namespace ctc_infer {
namespace {
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

using poplar_host::error;

// log(exp(a) + exp(b))
double logAdd(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  double high = a >= b ? a : b, low = a >= b ? b : a;
  return high + std::log1p(std::exp(low - high));
}

using Prefix = std::vector<unsigned>;
struct Beam {
  Prefix prefix;
  double blank, label;  // log probabilities of the alignments ending in a blank / in the last label
};

// The beams of `scores` most probable first.
std::vector<std::pair<double, Prefix>> ranked(const std::map<Prefix, std::array<double, 2>> &scores) {
  std::vector<std::pair<double, Prefix>> out;
  for (const auto &[prefix, p] : scores) out.emplace_back(logAdd(p[0], p[1]), prefix);
  std::sort(out.begin(), out.end(), [](const auto &a, const auto &b) {
    if (a.first != b.first) return a.first > b.first;
    if (a.second.size() != b.second.size()) return a.second.size() < b.second.size();
    return a.second < b.second;
  });
  return out;
}

// The topPaths most probable label sequences of rows [steps][classes] (padded with (-inf, {})).
std::vector<std::pair<double, Prefix>> beamSearch(const std::vector<std::vector<double>> &rows, unsigned blank, unsigned width,
                                                  unsigned top) {
  std::vector<Beam> beams{{{}, 0.0, kNegInf}};
  std::map<Prefix, std::array<double, 2>> last{{{}, {0.0, kNegInf}}};
  for (const auto &row : rows) {
    std::map<Prefix, std::array<double, 2>> following;
    auto entry = [&](const Prefix &p) -> std::array<double, 2> & {
      return following.try_emplace(p, std::array<double, 2>{kNegInf, kNegInf}).first->second;
    };
    for (const Beam &beam : beams) {
      double total = logAdd(beam.blank, beam.label);
      for (unsigned label = 0; label < row.size(); ++label) {
        double p = row[label];
        if (p == kNegInf) continue;
        if (label == blank) {
          auto &same = entry(beam.prefix);
          same[0] = logAdd(same[0], total + p);
          continue;
        }
        Prefix extendedPrefix = beam.prefix;
        extendedPrefix.push_back(label);
        auto &extended = entry(extendedPrefix);
        if (!beam.prefix.empty() && beam.prefix.back() == label) {
          // a repeat merges unless a blank separates it: the extension needs one
          extended[1] = logAdd(extended[1], beam.blank + p);
          auto &same = entry(beam.prefix);
          same[1] = logAdd(same[1], beam.label + p);
        } else {
          extended[1] = logAdd(extended[1], total + p);
        }
      }
    }
    auto kept = ranked(following);
    if (kept.size() > width) kept.resize(width);
    beams.clear();
    last.clear();
    for (const auto &[score, prefix] : kept) {
      const auto &p = following.at(prefix);
      beams.push_back({prefix, p[0], p[1]});
      last.emplace(prefix, p);
    }
  }
  auto best = ranked(last);
  if (best.size() > top) best.resize(top);
  while (best.size() < top) best.emplace_back(kNegInf, Prefix{});
  return best;
}
} // namespace

std::tuple<poplar::Tensor, poplar::Tensor, poplar::Tensor>
beamSearchDecoderLogProbabilities(poplar::Graph &graph, const poplar::Tensor &logProbs, const poplar::Tensor &dataLengths,
                                  poplar::program::Sequence &prog, unsigned blankClass, unsigned beamwidth, unsigned topPaths,
                                  const poplar::OptionFlags &, const poplar::DebugContext &debug) {
  if (logProbs.rank() != 3) throw error("beamSearchDecoderLogProbabilities: logProbs must be [maxT, B, C]");
  std::size_t steps = logProbs.dim(0), batch = logProbs.dim(1), classes = logProbs.dim(2);
  if (!logProbs.elementType().isFloatingPoint()) throw error("beamSearchDecoderLogProbabilities: logProbs must be floating point");
  if (dataLengths.rank() != 1 || dataLengths.dim(0) != batch || dataLengths.elementType() != poplar::UNSIGNED_INT)
    throw error("beamSearchDecoderLogProbabilities: dataLengths must be [B] UNSIGNED_INT");
  if (blankClass >= classes) throw error("beamSearchDecoderLogProbabilities: blankClass out of range");
  if (beamwidth == 0 || topPaths == 0 || topPaths > beamwidth)
    throw error("beamSearchDecoderLogProbabilities: needs 1 <= topPaths <= beamwidth");
  poplar::Tensor probs = graph.addVariable(logProbs.elementType(), {batch, topPaths}, debug.name() + "/labelProbs");
  poplar::Tensor lengths = graph.addVariable(poplar::UNSIGNED_INT, {batch, topPaths}, debug.name() + "/labelLengths");
  poplar::Tensor labels = graph.addVariable(poplar::UNSIGNED_INT, {batch, topPaths, steps}, debug.name() + "/decodedLabels");
  prog.add(poplar::program::Program::compute(debug.name(), [=] {
    for (std::size_t b = 0; b < batch; ++b) {
      double length = dataLengths.get(b);
      if (length > static_cast<double>(steps))
        throw error("beamSearchDecoderLogProbabilities: dataLengths[" + std::to_string(b) + "] = " +
                    std::to_string(static_cast<unsigned long>(length)) + " is more than the " + std::to_string(steps) + " steps");
      std::vector<std::vector<double>> rows(static_cast<std::size_t>(length), std::vector<double>(classes));
      for (std::size_t t = 0; t < rows.size(); ++t)
        for (std::size_t c = 0; c < classes; ++c) rows[t][c] = logProbs.get((t * batch + b) * classes + c);
      auto found = beamSearch(rows, blankClass, beamwidth, topPaths);
      for (std::size_t k = 0; k < topPaths; ++k) {
        probs.set(b * topPaths + k, found[k].first);
        lengths.set(b * topPaths + k, static_cast<double>(found[k].second.size()));
        for (std::size_t t = 0; t < steps; ++t)
          labels.set((b * topPaths + k) * steps + t, t < found[k].second.size() ? found[k].second[t] : 0.0);
      }
    }
  }));
  return {probs, lengths, labels};
}
} // namespace ctc_infer
} // namespace popnn

// Host implementation of popnn's training functions for batch and layer norm (statistics
// and gradients) and of popnn::logSoftmax, as plain loops in double, rounded to the tensor type on every write.
// It exists only to check ipu-mlir's emitted code; see ../README.md.
#include <popnn/BatchNorm.hpp>
#include <popnn/LayerNorm.hpp>
#include <popnn/LogSoftmax.hpp>

#include <cmath>
#include "host_util.hpp"

namespace popnn {
using poplar_host::error;

namespace {
// Which statistic and which affine parameter each element of acts belongs to: batch norm
// (acts [N][C][...]): both the channel; layer norm (acts [B][C]): the row and the column.
struct Layout {
  bool perRow;
  std::size_t stats, params, inner;
  Layout(const poplar::Tensor &acts, bool layer)
      : perRow(layer), stats(layer ? acts.dim(0) : acts.dim(1)), params(acts.dim(1)),
        inner(layer ? acts.dim(1) : acts.numElements() / acts.dim(0) / acts.dim(1)) {}
  std::size_t stat(std::size_t i) const { return perRow ? i / inner : (i / inner) % stats; }
  std::size_t param(std::size_t i) const { return perRow ? i % inner : (i / inner) % stats; }
};

void checkShapes(const char *fn, const poplar::Tensor &acts, const poplar::Tensor &gradsIn, const poplar::Tensor &mean,
                 const poplar::Tensor &invStd, const Layout &l) {
  if (acts.shape() != gradsIn.shape()) throw error(std::string(fn) + ": acts and gradsIn shapes differ");
  if (mean.numElements() != l.stats || invStd.numElements() != l.stats)
    throw error(std::string(fn) + ": one mean and inverse standard deviation per statistics group");
}

// gradient of the input: invStd * (g*gamma - mean(g*gamma) - xhat * mean(g*gamma*xhat)),
// the means over each statistics group.
poplar::Tensor inputGradients(poplar::Graph &graph, const char *fn, const poplar::Tensor &acts, const poplar::Tensor &gradsIn,
                              const poplar::Tensor &mean, const poplar::Tensor &invStd, const poplar::Tensor &gamma,
                              poplar::program::Sequence &prog, const poplar::DebugContext &debug, bool layer) {
  if (acts.rank() < 2 || (layer && acts.rank() != 2)) throw error(std::string(fn) + ": acts has the wrong rank");
  Layout l(acts, layer);
  checkShapes(fn, acts, gradsIn, mean, invStd, l);
  if (gamma.numElements() != l.params) throw error(std::string(fn) + ": gamma must have one element per channel");
  poplar::Tensor out = graph.addVariable(acts.elementType(), acts.shape(), debug);
  prog.add(poplar::program::Program::compute(debug.name(), [=] {
    std::size_t n = acts.numElements();
    std::vector<double> sumG(l.stats, 0.0), sumGX(l.stats, 0.0), count(l.stats, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      std::size_t s = l.stat(i);
      double xhat = (acts.get(i) - mean.get(s)) * invStd.get(s), gg = gradsIn.get(i) * gamma.get(l.param(i));
      sumG[s] += gg;
      sumGX[s] += gg * xhat;
      count[s] += 1.0;
    }
    for (std::size_t i = 0; i < n; ++i) {
      std::size_t s = l.stat(i);
      double xhat = (acts.get(i) - mean.get(s)) * invStd.get(s), gg = gradsIn.get(i) * gamma.get(l.param(i));
      out.set(i, invStd.get(s) * (gg - sumG[s] / count[s] - xhat * sumGX[s] / count[s]));
    }
  }));
  return out;
}

// (sum of gradsIn * xhat, sum of gradsIn) per affine parameter.
std::pair<poplar::Tensor, poplar::Tensor> paramGradients(poplar::Graph &graph, const char *fn, const poplar::Tensor &acts,
                                                         const poplar::Tensor &gradsIn, const poplar::Tensor &mean,
                                                         const poplar::Tensor &invStd, poplar::program::Sequence &prog,
                                                         const poplar::DebugContext &debug, bool layer) {
  if (acts.rank() < 2 || (layer && acts.rank() != 2)) throw error(std::string(fn) + ": acts has the wrong rank");
  Layout l(acts, layer);
  checkShapes(fn, acts, gradsIn, mean, invStd, l);
  poplar::Tensor gamma = graph.addVariable(acts.elementType(), {l.params}, debug);
  poplar::Tensor beta = graph.addVariable(acts.elementType(), {l.params}, debug);
  prog.add(poplar::program::Program::compute(debug.name(), [=] {
    std::vector<double> dg(l.params, 0.0), db(l.params, 0.0);
    for (std::size_t i = 0; i < acts.numElements(); ++i) {
      std::size_t s = l.stat(i), c = l.param(i);
      dg[c] += gradsIn.get(i) * (acts.get(i) - mean.get(s)) * invStd.get(s);
      db[c] += gradsIn.get(i);
    }
    for (std::size_t c = 0; c < l.params; ++c) { gamma.set(c, dg[c]); beta.set(c, db[c]); }
  }));
  return {gamma, beta};
}
} // namespace

poplar::Tensor logSoftmax(poplar::Graph &graph, poplar::Tensor t, poplar::program::Sequence &prog,
                          const poplar::DebugContext &debug) {
  if (!t.elementType().isFloatingPoint() || t.rank() == 0) throw error("logSoftmax of a non floating point or scalar tensor");
  poplar::Tensor out = graph.addVariable(t.elementType(), t.shape(), debug);
  prog.add(poplar::program::Program::compute(debug.name(), [t, out] {
    std::size_t inner = t.dim(t.rank() - 1);
    for (std::size_t row = 0; inner && row < t.numElements() / inner; ++row) {
      double top = -INFINITY, sum = 0.0;
      for (std::size_t i = 0; i < inner; ++i) top = std::max(top, t.get(row * inner + i));
      for (std::size_t i = 0; i < inner; ++i) sum += std::exp(t.get(row * inner + i) - top);
      for (std::size_t i = 0; i < inner; ++i) out.set(row * inner + i, t.get(row * inner + i) - top - std::log(sum));
    }
  }));
  return out;
}

namespace bn {
std::pair<poplar::Tensor, poplar::Tensor> batchNormStatistics(poplar::Graph &graph, const poplar::Tensor acts, float eps,
                                                              poplar::program::Sequence &prog, bool unbiased, bool,
                                                              const poplar::Type &, const poplar::DebugContext &debug,
                                                              const poplar::OptionFlags &) {
  if (acts.rank() < 2) throw error("batchNormStatistics: acts must be [N][C][...]");
  std::size_t C = acts.dim(1);
  poplar::Tensor mean = graph.addVariable(acts.elementType(), {C}, debug);
  poplar::Tensor invStd = graph.addVariable(acts.elementType(), {C}, debug);
  prog.add(poplar::program::Program::compute(debug.name(), [=] {
    Layout l(acts, false);
    std::vector<double> sum(C, 0.0), sq(C, 0.0);
    for (std::size_t i = 0; i < acts.numElements(); ++i) sum[l.stat(i)] += acts.get(i);
    double count = static_cast<double>(acts.numElements() / C);
    for (std::size_t i = 0; i < acts.numElements(); ++i) {
      double d = acts.get(i) - sum[l.stat(i)] / count;
      sq[l.stat(i)] += d * d;
    }
    for (std::size_t c = 0; c < C; ++c) {
      mean.set(c, sum[c] / count);
      invStd.set(c, 1.0 / std::sqrt(sq[c] / (unbiased ? count - 1.0 : count) + static_cast<double>(eps)));
    }
  }));
  return {mean, invStd};
}

poplar::Tensor batchNormGradients(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &gradsIn,
                                  const poplar::Tensor &mean, const poplar::Tensor &invStdDev, const poplar::Tensor &gamma,
                                  poplar::program::Sequence &prog, const poplar::Type &, const poplar::DebugContext &debug,
                                  const poplar::OptionFlags &) {
  return inputGradients(graph, "batchNormGradients", acts, gradsIn, mean, invStdDev, gamma, prog, debug, false);
}

std::pair<poplar::Tensor, poplar::Tensor> batchNormParamGradients(poplar::Graph &graph, const poplar::Tensor &acts,
                                                                  const poplar::Tensor &gradsIn, const poplar::Tensor &mean,
                                                                  const poplar::Tensor &iStdDev, poplar::program::Sequence &prog,
                                                                  const poplar::Type &, const poplar::DebugContext &debug,
                                                                  const poplar::OptionFlags &) {
  return paramGradients(graph, "batchNormParamGradients", acts, gradsIn, mean, iStdDev, prog, debug, false);
}
} // namespace bn

namespace layerNorm {
poplar::Tensor layerNormGradients(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &gradsIn,
                                  const poplar::Tensor &mean, const poplar::Tensor &invStdDev, const poplar::Tensor &gamma,
                                  poplar::program::Sequence &prog, const poplar::Type &, const poplar::DebugContext &debug,
                                  const poplar::OptionFlags &) {
  return inputGradients(graph, "layerNormGradients", acts, gradsIn, mean, invStdDev, gamma, prog, debug, true);
}

std::pair<poplar::Tensor, poplar::Tensor> layerNormParamGradients(poplar::Graph &graph, const poplar::Tensor &acts,
                                                                  const poplar::Tensor &gradsIn, const poplar::Tensor &mean,
                                                                  const poplar::Tensor &iStdDev, poplar::program::Sequence &prog,
                                                                  const poplar::Type &, const poplar::DebugContext &debug,
                                                                  const poplar::OptionFlags &) {
  return paramGradients(graph, "layerNormParamGradients", acts, gradsIn, mean, iStdDev, prog, debug, true);
}
} // namespace layerNorm
} // namespace popnn

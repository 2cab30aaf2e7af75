// Host implementation of popnn: non-linearities, pooling and normalisation as plain loops
// in double, rounded to the tensor type on every write.
// It exists only to check ipu-mlir's emitted code; see ../README.md.
#include <popnn/BatchNorm.hpp>
#include <popnn/LayerNorm.hpp>
#include <popnn/NonLinearity.hpp>
#include <popnn/Pooling.hpp>

#include <cmath>
#include <limits>
#include <numeric>
#include "host_util.hpp"

namespace popnn {
using poplar_host::error;

poplar::Tensor nonLinearity(poplar::Graph &graph, NonLinearityType type, const poplar::Tensor &t,
                            poplar::program::Sequence &prog, const poplar::DebugContext &debug, const poplar::OptionFlags &) {
  if (!t.elementType().isFloatingPoint()) throw error("nonLinearity of a non floating point tensor");
  poplar::Tensor out = graph.addVariable(t.elementType(), t.shape(), debug);
  prog.add(poplar::program::Program::compute(debug.name(), [type, t, out] {
    std::size_t n = t.numElements();
    if (type == NonLinearityType::SOFTMAX || type == NonLinearityType::SOFTMAX_STABLE) {
      std::size_t inner = t.rank() ? t.dim(t.rank() - 1) : 1;
      for (std::size_t row = 0; row < n / inner; ++row) {
        double top = -std::numeric_limits<double>::infinity(), sum = 0.0;
        for (std::size_t i = 0; i < inner; ++i) top = std::max(top, t.get(row * inner + i));
        std::vector<double> e(inner);
        for (std::size_t i = 0; i < inner; ++i) sum += e[i] = std::exp(t.get(row * inner + i) - top);
        for (std::size_t i = 0; i < inner; ++i) out.set(row * inner + i, e[i] / sum);
      }
      return;
    }
    for (std::size_t i = 0; i < n; ++i) {
      double x = t.get(i), y = 0.0;
      switch (type) {
      case NonLinearityType::RELU: y = x > 0.0 ? x : 0.0; break;
      case NonLinearityType::SIGMOID: y = 1.0 / (1.0 + std::exp(-x)); break;
      case NonLinearityType::HARD_SIGMOID: y = std::min(std::max(x / 6.0 + 0.5, 0.0), 1.0); break;
      case NonLinearityType::TANH: y = std::tanh(x); break;
      case NonLinearityType::GELU: y = 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x))); break;
      case NonLinearityType::GELU_ERF: y = 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); break;
      case NonLinearityType::SWISH: y = x / (1.0 + std::exp(-x)); break;
      default: throw error("unknown non-linearity");
      }
      out.set(i, y);
    }
  }));
  return out;
}

poplar::Tensor nonLinearityInputGradient(poplar::Graph &graph, NonLinearityType type, const poplar::Tensor &act,
                                         const poplar::Tensor &outGradient, poplar::program::Sequence &prog,
                                         const poplar::DebugContext &debug, const poplar::OptionFlags &) {
  if (act.shape() != outGradient.shape()) throw error("nonLinearityInputGradient: act and outGradient shapes differ");
  poplar::Tensor out = graph.addVariable(outGradient.elementType(), outGradient.shape(), debug);
  prog.add(poplar::program::Program::compute(debug.name(), [type, act, outGradient, out] {
    for (std::size_t i = 0; i < out.numElements(); ++i) {
      double a = act.get(i), g = outGradient.get(i), d = 0.0;
      switch (type) {
      case NonLinearityType::RELU: d = a > 0.0 ? 1.0 : 0.0; break;
      case NonLinearityType::SIGMOID: d = a * (1.0 - a); break;
      case NonLinearityType::TANH: d = 1.0 - a * a; break;
      case NonLinearityType::GELU: {
        double k = std::sqrt(2.0 / M_PI), u = k * (a + 0.044715 * a * a * a), t = std::tanh(u);
        d = 0.5 * (1.0 + t) + 0.5 * a * (1.0 - t * t) * k * (1.0 + 3.0 * 0.044715 * a * a);
        break;
      }
      case NonLinearityType::GELU_ERF:
        d = 0.5 * (1.0 + std::erf(a / std::sqrt(2.0))) + a * std::exp(-0.5 * a * a) / std::sqrt(2.0 * M_PI);
        break;
      default: throw error("nonLinearityInputGradient: no gradient for this non-linearity in the host library");
      }
      out.set(i, g * d);
    }
  }));
  return out;
}

namespace pooling {
std::size_t PoolParams::getOutputSize(std::size_t d) const {
  long in = static_cast<long>(inputFieldShape[d]) + inputTruncationOrPaddingLower[d] + inputTruncationOrPaddingUpper[d];
  if (in < static_cast<long>(kernelShape[d])) throw error("pooling window larger than the padded input");
  return static_cast<std::size_t>(in - static_cast<long>(kernelShape[d])) / stride[d] + 1;
}

poplar::Tensor pool(poplar::Graph &graph, const PoolParams &p, const poplar::Tensor &in, poplar::program::Sequence &prog,
                    const poplar::DebugContext &debug, const poplar::OptionFlags &) {
  std::size_t D = p.inputFieldShape.size();
  if (in.rank() != D + 2 || in.dim(0) != p.batchSize || in.dim(1) != p.numChannels) throw error("pool: input shape does not match the parameters");
  std::vector<std::size_t> shape{p.batchSize, p.numChannels}, outField;
  for (std::size_t d = 0; d < D; ++d) outField.push_back(p.getOutputSize(d));
  shape.insert(shape.end(), outField.begin(), outField.end());
  poplar::Tensor out = graph.addVariable(p.dType, shape, debug);
  prog.add(poplar::program::Program::compute(debug.name(), [p, in, out, outField, D] {
    std::size_t inPlane = std::accumulate(p.inputFieldShape.begin(), p.inputFieldShape.end(), std::size_t{1}, std::multiplies<>());
    std::size_t kPlane = std::accumulate(p.kernelShape.begin(), p.kernelShape.end(), std::size_t{1}, std::multiplies<>());
    std::size_t outPlane = std::accumulate(outField.begin(), outField.end(), std::size_t{1}, std::multiplies<>());
    std::vector<std::size_t> o(D), k(D);
    for (std::size_t plane = 0; plane < p.batchSize * p.numChannels; ++plane)
      for (std::size_t op = 0; op < outPlane; ++op) {
        for (std::size_t d = D, r = op; d-- > 0;) { o[d] = r % outField[d]; r /= outField[d]; }
        double acc = p.poolingType == PoolingType::MAX ? -std::numeric_limits<double>::infinity() : 0.0;
        std::size_t count = 0;
        for (std::size_t kp = 0; kp < kPlane; ++kp) {
          for (std::size_t d = D, r = kp; d-- > 0;) { k[d] = r % p.kernelShape[d]; r /= p.kernelShape[d]; }
          std::size_t flat = 0;
          bool inside = true;
          for (std::size_t d = 0; d < D && inside; ++d) {
            long pos = static_cast<long>(o[d] * p.stride[d] + k[d]) - p.inputTruncationOrPaddingLower[d];
            inside = pos >= 0 && pos < static_cast<long>(p.inputFieldShape[d]);
            flat = flat * p.inputFieldShape[d] + static_cast<std::size_t>(inside ? pos : 0);
          }
          if (!inside) continue;
          double x = in.get(plane * inPlane + flat);
          ++count;
          if (p.poolingType == PoolingType::MAX) acc = (std::isnan(x) || x > acc) ? x : acc;
          else acc += x;
        }
        if (p.poolingType == PoolingType::AVG) acc = count ? in.elementType().round(acc) / static_cast<double>(count) : 0.0;
        out.set(plane * outPlane + op, acc);
      }
  }));
  return out;
}

poplar::Tensor poolInputGradient(poplar::Graph &graph, const PoolParams &p, const unsigned, const poplar::Tensor &pooledGradient,
                                 poplar::program::Sequence &prog, const poplar::DebugContext &debug, const poplar::OptionFlags &) {
  if (p.poolingType == PoolingType::MAX) throw error("poolInputGradient: the host library implements AVG and SUM only");
  std::size_t D = p.inputFieldShape.size();
  std::vector<std::size_t> shape{p.batchSize, p.numChannels}, outField;
  for (std::size_t d = 0; d < D; ++d) outField.push_back(p.getOutputSize(d));
  if (pooledGradient.rank() != D + 2 || pooledGradient.dim(0) != p.batchSize || pooledGradient.dim(1) != p.numChannels)
    throw error("poolInputGradient: pooledGradient shape does not match the parameters");
  for (std::size_t d = 0; d < D; ++d)
    if (pooledGradient.dim(static_cast<unsigned>(d + 2)) != outField[d]) throw error("poolInputGradient: pooledGradient field does not match");
  shape.insert(shape.end(), p.inputFieldShape.begin(), p.inputFieldShape.end());
  poplar::Tensor out = graph.addVariable(p.dType, shape, debug);
  prog.add(poplar::program::Program::compute(debug.name(), [p, pooledGradient, out, outField, D] {
    std::size_t inPlane = std::accumulate(p.inputFieldShape.begin(), p.inputFieldShape.end(), std::size_t{1}, std::multiplies<>());
    std::size_t kPlane = std::accumulate(p.kernelShape.begin(), p.kernelShape.end(), std::size_t{1}, std::multiplies<>());
    std::size_t outPlane = std::accumulate(outField.begin(), outField.end(), std::size_t{1}, std::multiplies<>());
    std::vector<double> acc(out.numElements(), 0.0);
    std::vector<std::size_t> o(D), k(D), flats;
    for (std::size_t plane = 0; plane < p.batchSize * p.numChannels; ++plane)
      for (std::size_t op = 0; op < outPlane; ++op) {
        for (std::size_t d = D, r = op; d-- > 0;) { o[d] = r % outField[d]; r /= outField[d]; }
        flats.clear();
        for (std::size_t kp = 0; kp < kPlane; ++kp) {
          for (std::size_t d = D, r = kp; d-- > 0;) { k[d] = r % p.kernelShape[d]; r /= p.kernelShape[d]; }
          std::size_t flat = 0;
          bool inside = true;
          for (std::size_t d = 0; d < D && inside; ++d) {
            long pos = static_cast<long>(o[d] * p.stride[d] + k[d]) - p.inputTruncationOrPaddingLower[d];
            inside = pos >= 0 && pos < static_cast<long>(p.inputFieldShape[d]);
            flat = flat * p.inputFieldShape[d] + static_cast<std::size_t>(inside ? pos : 0);
          }
          if (inside) flats.push_back(flat);
        }
        double g = pooledGradient.get(plane * outPlane + op);
        if (p.poolingType == PoolingType::AVG) g = flats.empty() ? 0.0 : pooledGradient.elementType().round(g / static_cast<double>(flats.size()));
        for (std::size_t flat : flats) acc[plane * inPlane + flat] += g;
      }
    for (std::size_t i = 0; i < acc.size(); ++i) out.set(i, acc[i]);
  }));
  return out;
}
} // namespace pooling

static void normalise(const poplar::Tensor &acts, const poplar::Tensor &gamma, const poplar::Tensor &beta,
                      const poplar::Tensor &mean, const poplar::Tensor &invStd, const poplar::Tensor &out,
                      const poplar::Tensor &whitened, std::size_t groups, std::size_t inner, bool perRow) {
  // element i belongs to statistics group (i / inner) % groups; the affine parameters are
  // per group (batch norm: channels) or per column (layer norm).
  for (std::size_t i = 0; i < acts.numElements(); ++i) {
    std::size_t g = perRow ? i / inner : (i / inner) % groups, c = perRow ? i % inner : g;
    double w = (acts.get(i) - mean.get(g)) * invStd.get(g);
    whitened.set(i, w);
    out.set(i, w * gamma.get(c) + beta.get(c));
  }
}

namespace bn {
std::pair<poplar::Tensor, poplar::Tensor> batchNormalise(poplar::Graph &graph, const poplar::Tensor &acts,
                                                         const poplar::Tensor &gamma, const poplar::Tensor &beta,
                                                         const poplar::Tensor &mean, const poplar::Tensor &invStdDev,
                                                         poplar::program::Sequence &prog, const poplar::DebugContext &debug,
                                                         const poplar::OptionFlags &) {
  if (acts.rank() < 2) throw error("batchNormalise: acts must be [N][C][...]");
  std::size_t C = acts.dim(1);
  for (const poplar::Tensor *t : {&gamma, &beta, &mean, &invStdDev})
    if (t->numElements() != C) throw error("batchNormalise: one statistic and parameter per channel");
  poplar::Tensor out = graph.addVariable(acts.elementType(), acts.shape(), debug);
  poplar::Tensor whitened = graph.addVariable(acts.elementType(), acts.shape(), debug);
  prog.add(poplar::program::Program::compute(debug.name(), [=] {
    normalise(acts, gamma, beta, mean, invStdDev, out, whitened, C, acts.numElements() / acts.dim(0) / C, false);
  }));
  return {out, whitened};
}
} // namespace bn

namespace layerNorm {
std::pair<poplar::Tensor, poplar::Tensor> layerNormStatistics(poplar::Graph &graph, const poplar::Tensor acts, float eps,
                                                              poplar::program::Sequence &prog, bool unbiased, bool,
                                                              const poplar::Type &, const poplar::DebugContext &debug,
                                                              const poplar::OptionFlags &) {
  if (acts.rank() != 2) throw error("layerNormStatistics: acts must be [B][C]");
  poplar::Tensor mean = graph.addVariable(acts.elementType(), {acts.dim(0)}, debug);
  poplar::Tensor invStd = graph.addVariable(acts.elementType(), {acts.dim(0)}, debug);
  prog.add(poplar::program::Program::compute(debug.name(), [=] {
    std::size_t B = acts.dim(0), C = acts.dim(1);
    for (std::size_t b = 0; b < B; ++b) {
      double sum = 0.0, sq = 0.0;
      for (std::size_t c = 0; c < C; ++c) sum += acts.get(b * C + c);
      double m = sum / static_cast<double>(C);
      for (std::size_t c = 0; c < C; ++c) sq += (acts.get(b * C + c) - m) * (acts.get(b * C + c) - m);
      double var = sq / static_cast<double>(unbiased ? C - 1 : C);
      mean.set(b, m);
      invStd.set(b, 1.0 / std::sqrt(var + static_cast<double>(eps)));
    }
  }));
  return {mean, invStd};
}

std::pair<poplar::Tensor, poplar::Tensor> layerNormalise(poplar::Graph &graph, const poplar::Tensor &acts,
                                                         const poplar::Tensor &gamma, const poplar::Tensor &beta,
                                                         const poplar::Tensor &mean, const poplar::Tensor &invStdDev,
                                                         poplar::program::Sequence &prog, const poplar::DebugContext &debug,
                                                         const poplar::OptionFlags &) {
  if (acts.rank() != 2 || gamma.numElements() != acts.dim(1) || beta.numElements() != acts.dim(1) ||
      mean.numElements() != acts.dim(0) || invStdDev.numElements() != acts.dim(0))
    throw error("layerNormalise: acts [B][C], gamma and beta [C], statistics [B]");
  poplar::Tensor out = graph.addVariable(acts.elementType(), acts.shape(), debug);
  poplar::Tensor whitened = graph.addVariable(acts.elementType(), acts.shape(), debug);
  prog.add(poplar::program::Program::compute(debug.name(), [=] {
    normalise(acts, gamma, beta, mean, invStdDev, out, whitened, acts.dim(0), acts.dim(1), true);
  }));
  return {out, whitened};
}
} // namespace layerNorm
} // namespace popnn

// Host implementation of poprand::setSeed, uniform, bernoulli and normal as plain loops over
// one splitmix64 generator (see poprand/RandomGen.hpp). It exists only to check ipu-mlir's
// emitted code; see ../README.md.
#include <poprand/RandomGen.hpp>

#include <cmath>
#include "host_util.hpp"

namespace poprand {
namespace {
using poplar_host::error;

struct Generator {
  uint64_t state = 0;
  bool seeded = false;
  uint64_t next() {  // splitmix64
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
};

Generator &generator() {
  static Generator g;
  return g;
}

poplar::Tensor draw(poplar::Graph &graph, const poplar::Tensor *seed, const poplar::Tensor &reference, const poplar::Type &outType,
                    const char *fn, poplar::program::Sequence &prog, const poplar::DebugContext &debug,
                    std::function<double(Generator &)> value) {
  if (seed) throw error(std::string(fn) + ": a seed tensor per draw is not implemented; set the seed once with poprand::setSeed");
  poplar::Tensor out = graph.addVariable(outType, reference.shape(), debug);
  std::string name = fn;
  prog.add(poplar::program::Program::compute(debug.name(), [out, value, name] {
    Generator &g = generator();
    if (!g.seeded) throw error(name + ": drawn before poprand::setSeed ran");
    for (std::size_t i = 0; i < out.numElements(); ++i) out.set(i, value(g));
  }));
  return out;
}
} // namespace

void setSeed(poplar::Graph &, const poplar::Tensor &masterSeed, uint32_t seedModifier, poplar::program::Sequence &prog,
             const poplar::DebugContext &debug) {
  if (masterSeed.numElements() != 2 || masterSeed.elementType() != poplar::UNSIGNED_INT)
    throw error("setSeed: the seed must be two UNSIGNED_INT");
  prog.add(poplar::program::Program::compute(debug.name(), [masterSeed, seedModifier] {
    Generator &g = generator();
    uint64_t seed = static_cast<uint64_t>(masterSeed.get(0)) | (static_cast<uint64_t>(masterSeed.get(1)) << 32);
    g.state = seed ^ (static_cast<uint64_t>(seedModifier) * 0xD1B54A32D192ED03ULL);
    g.seeded = true;
  }));
}

poplar::Tensor uniform(poplar::Graph &graph, const poplar::Tensor *seed, uint32_t, const poplar::Tensor &reference,
                       const poplar::Type &outType, double minVal, double maxVal, poplar::program::Sequence &prog,
                       const poplar::DebugContext &debug) {
  if (outType.isFloatingPoint()) {
    if (!(minVal <= maxVal)) throw error("uniform: minVal must be <= maxVal");
    return draw(graph, seed, reference, outType, "uniform", prog, debug, [minVal, maxVal, outType](Generator &g) {
      double v = outType.round(minVal + (maxVal - minVal) * g.unit());
      return v < maxVal || minVal == maxVal ? v : std::nextafter(static_cast<float>(maxVal), static_cast<float>(minVal));
    });
  }
  if (minVal != std::floor(minVal) || maxVal != std::floor(maxVal) || minVal > maxVal)
    throw error("uniform: an integer draw needs integral bounds minVal <= maxVal");
  double count = maxVal - minVal + 1;
  return draw(graph, seed, reference, outType, "uniform", prog, debug, [minVal, count](Generator &g) {
    return minVal + std::floor(g.unit() * count);
  });
}

poplar::Tensor bernoulli(poplar::Graph &graph, const poplar::Tensor *seed, uint32_t, const poplar::Tensor &reference,
                         const poplar::Type &outType, double prob, poplar::program::Sequence &prog,
                         const poplar::DebugContext &debug) {
  if (prob < 0 || prob > 1) throw error("bernoulli: prob must be in [0, 1]");
  return draw(graph, seed, reference, outType, "bernoulli", prog, debug, [prob](Generator &g) { return g.unit() < prob ? 1.0 : 0.0; });
}

poplar::Tensor normal(poplar::Graph &graph, const poplar::Tensor *seed, uint32_t, const poplar::Tensor &reference,
                      const poplar::Type &outType, double mean, double stdDev, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debug) {
  if (!outType.isFloatingPoint()) throw error("normal: the output type must be FLOAT or HALF");
  return draw(graph, seed, reference, outType, "normal", prog, debug, [mean, stdDev](Generator &g) {
    double u = 1.0 - g.unit(), v = g.unit();  // Box-Muller, u in (0, 1]
    return mean + stdDev * std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
  });
}
} // namespace poprand

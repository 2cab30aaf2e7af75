// Host implementation of poplin: matrix products and convolutions as plain loops,
// accumulated in double and rounded once to the output type.
// It exists only to check ipu-mlir's emitted code; see ../README.md.
#include <poplin/Convolution.hpp>
#include <poplin/MatMul.hpp>

#include <numeric>
#include "host_util.hpp"

namespace poplin {
using poplar_host::error;

// The planning options a matMul / convolution takes (the ones ipu-mlir emits from its
// poplar.available_memory / poplar.partials_type): checked, then left to the plan they steer.
// The host has no plan: it accumulates in double whatever the partials type, as the IPU
// Model computes in float; another option is an error naming it.
static void checkOptions(const poplar::OptionFlags &options, const std::string &fn) {
  for (const auto &[key, value] : options.entries()) {
    if (key == "availableMemoryProportion") {
      std::size_t used = 0;
      double proportion = -1.0;
      try { proportion = std::stod(value, &used); } catch (const std::exception &) { used = 0; }
      if (used != value.size() || !(proportion >= 0.0 && proportion <= 1.0))
        throw error(fn + ": option availableMemoryProportion must be a number in [0, 1], got '" + value + "'");
    } else if (key == "partialsType") {
      if (value != "float" && value != "half") throw error(fn + ": option partialsType must be float or half, got '" + value + "'");
    } else {
      throw error(fn + ": option '" + key + "' is not implemented by the host library (it takes availableMemoryProportion "
                  "and partialsType)");
    }
  }
}

// C = A x B, or with `scale` C += scale * (A x B) (rounded once).
static void grouped(const poplar::Tensor &A, const poplar::Tensor &B, const poplar::Tensor &C, const double *scale = nullptr) {
  std::size_t G = A.dim(0), M = A.dim(1), K = A.dim(2), N = B.dim(2);
  std::vector<double> a(A.numElements()), b(B.numElements());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = A.get(i);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = B.get(i);
  for (std::size_t g = 0; g < G; ++g)
    for (std::size_t m = 0; m < M; ++m)
      for (std::size_t n = 0; n < N; ++n) {
        double acc = 0.0;
        for (std::size_t k = 0; k < K; ++k) acc += a[(g * M + m) * K + k] * b[(g * K + k) * N + n];
        std::size_t at = (g * M + m) * N + n;
        C.set(at, scale ? C.get(at) + *scale * acc : acc);
      }
}

poplar::Tensor matMulGrouped(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                             poplar::program::Sequence &prog, const poplar::Type &outputType,
                             const poplar::DebugContext &debug, const poplar::OptionFlags &options, matmul::PlanningCache *) {
  checkOptions(options, "matMul");
  if (A.rank() != 3 || B.rank() != 3 || A.dim(0) != B.dim(0) || A.dim(2) != B.dim(1))
    throw error("matMulGrouped: shapes do not match ([G,M,K] x [G,K,N])");
  poplar::Tensor C = graph.addVariable(outputType, {A.dim(0), A.dim(1), B.dim(2)}, debug);
  prog.add(poplar::program::Program::compute(debug.name(), [A, B, C] { grouped(A, B, C); }));
  return C;
}

void matMulGroupedAcc(poplar::Graph &, const poplar::Tensor &C, float k, const poplar::Tensor &A, const poplar::Tensor &B,
                      poplar::program::Sequence &prog, const poplar::DebugContext &debug, const poplar::OptionFlags &options,
                      matmul::PlanningCache *) {
  checkOptions(options, "matMulAcc");
  if (A.rank() != 3 || B.rank() != 3 || C.rank() != 3 || A.dim(0) != B.dim(0) || A.dim(2) != B.dim(1) ||
      C.shape() != std::vector<std::size_t>{A.dim(0), A.dim(1), B.dim(2)})
    throw error("matMulGroupedAcc: shapes do not match (C [G,M,N] += k * [G,M,K] x [G,K,N])");
  double scale = k;
  prog.add(poplar::program::Program::compute(debug.name(), [A, B, C, scale] { grouped(A, B, C, &scale); }));
}

void matMulAcc(poplar::Graph &graph, const poplar::Tensor &C, float k, const poplar::Tensor &A, const poplar::Tensor &B,
               poplar::program::Sequence &prog, const poplar::DebugContext &debug, const poplar::OptionFlags &options,
               matmul::PlanningCache *cache) {
  if (A.rank() != 2 || B.rank() != 2 || C.rank() != 2) throw error("matMulAcc: C [M,N] += k * A [M,K] x B [K,N]");
  matMulGroupedAcc(graph, C.expand({0}), k, A.expand({0}), B.expand({0}), prog, debug, options, cache);
}

poplar::Tensor matMul(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                      poplar::program::Sequence &prog, const poplar::Type &outputType,
                      const poplar::DebugContext &debug, const poplar::OptionFlags &options, matmul::PlanningCache *cache) {
  if (A.rank() != 2 || B.rank() != 2 || A.dim(1) != B.dim(0)) throw error("matMul: shapes do not match ([M,K] x [K,N])");
  poplar::Tensor C = matMulGrouped(graph, A.expand({0}), B.expand({0}), prog, outputType, debug, options, cache);
  return C.reshape({A.dim(0), B.dim(1)});
}

ConvParams::ConvParams(poplar::Type dataType, std::size_t batch, std::vector<std::size_t> field,
                       std::vector<std::size_t> kernel, std::size_t cin, std::size_t cout, std::size_t groups)
    : inputType(dataType), outputType(dataType), batchSize(batch), inputChannelsPerConvGroup(cin),
      outputChannelsPerConvGroup(cout), numConvGroups(groups), inputFieldShape(std::move(field)),
      kernelShape(std::move(kernel)) {
  std::size_t d = inputFieldShape.size();
  for (InputTransform *t : {&inputTransform, &kernelTransform}) {
    t->truncationLower = t->truncationUpper = t->paddingLower = t->paddingUpper = std::vector<unsigned>(d, 0);
    t->dilation = std::vector<unsigned>(d, 1);
    t->flip = std::vector<bool>(d, false);
  }
  outputTransform.truncationLower = outputTransform.truncationUpper = std::vector<unsigned>(d, 0);
  outputTransform.paddingLower = outputTransform.paddingUpper = std::vector<unsigned>(d, 0);
  outputTransform.stride = std::vector<unsigned>(d, 1);
}

std::size_t ConvParams::getOutputSize(unsigned d) const {
  std::size_t in = (inputFieldShape[d] - 1) * inputTransform.dilation[d] + 1 + inputTransform.paddingLower[d] +
                   inputTransform.paddingUpper[d];
  std::size_t k = (kernelShape[d] - 1) * kernelTransform.dilation[d] + 1;
  if (in < k) throw error("convolution kernel larger than the padded input");
  return (in - k) / outputTransform.stride[d] + 1;
}

static void checkSupported(const ConvParams &p) {
  for (std::size_t d = 0; d < p.getNumFieldDims(); ++d)
    if (p.inputTransform.truncationLower[d] || p.inputTransform.truncationUpper[d] ||
        p.inputTransform.flip[d] || p.kernelTransform.paddingLower[d] || p.kernelTransform.paddingUpper[d] ||
        p.kernelTransform.flip[d] || p.kernelTransform.truncationLower[d] || p.kernelTransform.truncationUpper[d] ||
        p.outputTransform.paddingLower[d] || p.outputTransform.paddingUpper[d] || p.outputTransform.truncationLower[d] ||
        p.outputTransform.truncationUpper[d])
      throw error("convolution: the host library implements input dilation and padding, kernel dilation and output stride only");
}

// The flat position in the input plane that output position o and kernel position k read,
// or false when they read padding or a hole of the input dilation.
static bool inputPosition(const ConvParams &p, const std::vector<std::size_t> &o, const std::vector<std::size_t> &k,
                          std::size_t &flat) {
  flat = 0;
  for (std::size_t d = 0; d < p.getNumFieldDims(); ++d) {
    long q = static_cast<long>(o[d] * p.outputTransform.stride[d] + k[d] * p.kernelTransform.dilation[d]) -
             static_cast<long>(p.inputTransform.paddingLower[d]);
    long dil = static_cast<long>(p.inputTransform.dilation[d]);
    if (q < 0 || q % dil != 0 || q / dil >= static_cast<long>(p.inputFieldShape[d])) return false;
    flat = flat * p.inputFieldShape[d] + static_cast<std::size_t>(q / dil);
  }
  return true;
}

static void unflatten(std::size_t flat, const std::vector<std::size_t> &shape, std::vector<std::size_t> &out) {
  for (std::size_t d = shape.size(); d-- > 0;) { out[d] = flat % shape[d]; flat /= shape[d]; }
}

static std::size_t product(const std::vector<std::size_t> &v) {
  return std::accumulate(v.begin(), v.end(), std::size_t{1}, std::multiplies<>());
}

poplar::Tensor convolution(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Tensor &weights,
                           const ConvParams &p, bool transposeAndFlipWeights, poplar::program::Sequence &prog,
                           const poplar::DebugContext &debug, const poplar::OptionFlags &options, PlanningCache *) {
  checkOptions(options, "convolution");
  checkSupported(p);
  std::size_t D = p.getNumFieldDims(), G = p.numConvGroups, Ci = p.inputChannelsPerConvGroup, Co = p.outputChannelsPerConvGroup;
  std::vector<std::size_t> outShape{p.batchSize, G * Co}, outField;
  for (unsigned d = 0; d < D; ++d) outField.push_back(p.getOutputSize(d));
  outShape.insert(outShape.end(), outField.begin(), outField.end());
  if (in.rank() != D + 2 || in.dim(0) != p.batchSize || in.dim(1) != G * Ci) throw error("convolution: input shape does not match the parameters");
  std::size_t w1 = transposeAndFlipWeights ? Ci : Co, w2 = transposeAndFlipWeights ? Co : Ci;
  if (weights.rank() != D + 3 || weights.dim(0) != G || weights.dim(1) != w1 || weights.dim(2) != w2)
    throw error("convolution: weights shape does not match the parameters");
  poplar::Tensor out = graph.addVariable(p.outputType, outShape, debug);
  bool flip = transposeAndFlipWeights;
  prog.add(poplar::program::Program::compute(debug.name(), [in, weights, out, p, outField, D, G, Ci, Co, flip] {
    std::size_t inPlane = product(p.inputFieldShape), kPlane = product(p.kernelShape), outPlane = product(outField);
    std::vector<double> x(in.numElements()), w(weights.numElements());
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = in.get(i);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = weights.get(i);
    std::vector<std::size_t> o(D), k(D);
    for (std::size_t n = 0; n < p.batchSize; ++n)
      for (std::size_t g = 0; g < G; ++g)
        for (std::size_t co = 0; co < Co; ++co)
          for (std::size_t op = 0; op < outPlane; ++op) {
            unflatten(op, outField, o);
            double acc = 0.0;
            for (std::size_t ci = 0; ci < Ci; ++ci)
              for (std::size_t kp = 0; kp < kPlane; ++kp) {
                unflatten(kp, p.kernelShape, k);
                std::size_t flat;
                if (!inputPosition(p, o, k, flat)) continue;  // padding and dilation holes contribute zero
                // flipped: the kernel read back to front, the weights' channel dims swapped
                std::size_t wi = flip ? ((g * Ci + ci) * Co + co) * kPlane + (kPlane - 1 - kp) : ((g * Co + co) * Ci + ci) * kPlane + kp;
                acc += x[(n * G * Ci + g * Ci + ci) * inPlane + flat] * w[wi];
              }
            out.set((n * G * Co + g * Co + co) * outPlane + op, acc);
          }
  }));
  return out;
}

poplar::Tensor calculateWeightDeltas(poplar::Graph &graph, const poplar::Tensor &zDeltas, const poplar::Tensor &activations,
                                     const ConvParams &p, poplar::program::Sequence &prog, const poplar::DebugContext &debug,
                                     const poplar::OptionFlags &options, PlanningCache *) {
  checkOptions(options, "calculateWeightDeltas");
  checkSupported(p);
  std::size_t D = p.getNumFieldDims(), G = p.numConvGroups, Ci = p.inputChannelsPerConvGroup, Co = p.outputChannelsPerConvGroup;
  std::vector<std::size_t> outField, wShape{G, Co, Ci};
  for (unsigned d = 0; d < D; ++d) outField.push_back(p.getOutputSize(d));
  wShape.insert(wShape.end(), p.kernelShape.begin(), p.kernelShape.end());
  if (activations.rank() != D + 2 || activations.dim(0) != p.batchSize || activations.dim(1) != G * Ci)
    throw error("calculateWeightDeltas: activations shape does not match the parameters");
  if (zDeltas.rank() != D + 2 || zDeltas.dim(0) != p.batchSize || zDeltas.dim(1) != G * Co)
    throw error("calculateWeightDeltas: zDeltas shape does not match the parameters");
  for (unsigned d = 0; d < D; ++d)
    if (zDeltas.dim(d + 2) != outField[d]) throw error("calculateWeightDeltas: zDeltas field does not match the output field");
  poplar::Tensor out = graph.addVariable(p.outputType, wShape, debug);
  prog.add(poplar::program::Program::compute(debug.name(), [zDeltas, activations, out, p, outField, D, G, Ci, Co] {
    std::size_t inPlane = product(p.inputFieldShape), kPlane = product(p.kernelShape), outPlane = product(outField);
    std::vector<double> x(activations.numElements()), z(zDeltas.numElements());
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = activations.get(i);
    for (std::size_t i = 0; i < z.size(); ++i) z[i] = zDeltas.get(i);
    std::vector<std::size_t> o(D), k(D);
    for (std::size_t g = 0; g < G; ++g)
      for (std::size_t co = 0; co < Co; ++co)
        for (std::size_t ci = 0; ci < Ci; ++ci)
          for (std::size_t kp = 0; kp < kPlane; ++kp) {
            unflatten(kp, p.kernelShape, k);
            double acc = 0.0;
            for (std::size_t n = 0; n < p.batchSize; ++n)
              for (std::size_t op = 0; op < outPlane; ++op) {
                unflatten(op, outField, o);
                std::size_t flat;
                if (!inputPosition(p, o, k, flat)) continue;
                acc += z[(n * G * Co + g * Co + co) * outPlane + op] * x[(n * G * Ci + g * Ci + ci) * inPlane + flat];
              }
            out.set(((g * Co + co) * Ci + ci) * kPlane + kp, acc);
          }
  }));
  return out;
}

void addBias(poplar::Graph &, const poplar::Tensor &acts, const poplar::Tensor &biases, poplar::program::Sequence &prog,
             const poplar::DebugContext &debug) {
  if (acts.rank() < 2 || biases.numElements() != acts.dim(1)) throw error("addBias: one bias per channel (dimension 1)");
  prog.add(poplar::program::Program::compute(debug.name(), [acts, biases] {
    std::size_t C = acts.dim(1), inner = acts.numElements() / acts.dim(0) / C;
    for (std::size_t i = 0; i < acts.numElements(); ++i) acts.set(i, acts.get(i) + biases.get((i / inner) % C));
  }));
}
} // namespace poplin

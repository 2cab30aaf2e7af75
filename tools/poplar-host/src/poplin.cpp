// Host implementation of poplin: matrix products and convolutions as plain loops,
// accumulated in double and rounded once to the output type.
// It exists only to check ipu-mlir's emitted code; see ../README.md.
#include <poplin/Convolution.hpp>
#include <poplin/MatMul.hpp>

#include <numeric>

namespace poplin {
static std::runtime_error error(const std::string &what) { return std::runtime_error("poplar-host: " + what); }

static void grouped(const poplar::Tensor &A, const poplar::Tensor &B, const poplar::Tensor &C) {
  std::size_t G = A.dim(0), M = A.dim(1), K = A.dim(2), N = B.dim(2);
  std::vector<double> a(A.numElements()), b(B.numElements());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = A.get(i);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = B.get(i);
  for (std::size_t g = 0; g < G; ++g)
    for (std::size_t m = 0; m < M; ++m)
      for (std::size_t n = 0; n < N; ++n) {
        double acc = 0.0;
        for (std::size_t k = 0; k < K; ++k) acc += a[(g * M + m) * K + k] * b[(g * K + k) * N + n];
        C.set((g * M + m) * N + n, acc);
      }
}

poplar::Tensor matMulGrouped(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                             poplar::program::Sequence &prog, const poplar::Type &outputType,
                             const poplar::DebugContext &debug, const poplar::OptionFlags &, matmul::PlanningCache *) {
  if (A.rank() != 3 || B.rank() != 3 || A.dim(0) != B.dim(0) || A.dim(2) != B.dim(1))
    throw error("matMulGrouped: shapes do not match ([G,M,K] x [G,K,N])");
  poplar::Tensor C = graph.addVariable(outputType, {A.dim(0), A.dim(1), B.dim(2)}, debug);
  prog.add(poplar::program::Program::compute(debug.name(), [A, B, C] { grouped(A, B, C); }));
  return C;
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
  std::size_t in = inputFieldShape[d] + inputTransform.paddingLower[d] + inputTransform.paddingUpper[d];
  std::size_t k = (kernelShape[d] - 1) * kernelTransform.dilation[d] + 1;
  if (in < k) throw error("convolution kernel larger than the padded input");
  return (in - k) / outputTransform.stride[d] + 1;
}

static void checkSupported(const ConvParams &p) {
  for (std::size_t d = 0; d < p.getNumFieldDims(); ++d)
    if (p.inputTransform.dilation[d] != 1 || p.inputTransform.truncationLower[d] || p.inputTransform.truncationUpper[d] ||
        p.inputTransform.flip[d] || p.kernelTransform.paddingLower[d] || p.kernelTransform.paddingUpper[d] ||
        p.kernelTransform.flip[d] || p.kernelTransform.truncationLower[d] || p.kernelTransform.truncationUpper[d] ||
        p.outputTransform.paddingLower[d] || p.outputTransform.paddingUpper[d] || p.outputTransform.truncationLower[d] ||
        p.outputTransform.truncationUpper[d])
      throw error("convolution: the host library implements input padding, kernel dilation and output stride only");
}

poplar::Tensor convolution(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Tensor &weights,
                           const ConvParams &p, bool transposeAndFlipWeights, poplar::program::Sequence &prog,
                           const poplar::DebugContext &debug, const poplar::OptionFlags &, PlanningCache *) {
  if (transposeAndFlipWeights) throw error("convolution: transposeAndFlipWeights is not implemented by the host library");
  checkSupported(p);
  std::size_t D = p.getNumFieldDims(), G = p.numConvGroups, Ci = p.inputChannelsPerConvGroup, Co = p.outputChannelsPerConvGroup;
  std::vector<std::size_t> outShape{p.batchSize, G * Co}, outField;
  for (unsigned d = 0; d < D; ++d) outField.push_back(p.getOutputSize(d));
  outShape.insert(outShape.end(), outField.begin(), outField.end());
  if (in.rank() != D + 2 || in.dim(0) != p.batchSize || in.dim(1) != G * Ci) throw error("convolution: input shape does not match the parameters");
  if (weights.rank() != D + 3 || weights.dim(0) != G || weights.dim(1) != Co || weights.dim(2) != Ci)
    throw error("convolution: weights shape does not match the parameters");
  poplar::Tensor out = graph.addVariable(p.outputType, outShape, debug);
  prog.add(poplar::program::Program::compute(debug.name(), [in, weights, out, p, outField, D, G, Ci, Co] {
    std::size_t inPlane = std::accumulate(p.inputFieldShape.begin(), p.inputFieldShape.end(), std::size_t{1}, std::multiplies<>());
    std::size_t kPlane = std::accumulate(p.kernelShape.begin(), p.kernelShape.end(), std::size_t{1}, std::multiplies<>());
    std::size_t outPlane = std::accumulate(outField.begin(), outField.end(), std::size_t{1}, std::multiplies<>());
    std::vector<double> x(in.numElements()), w(weights.numElements());
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = in.get(i);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = weights.get(i);
    std::vector<std::size_t> o(D), k(D);
    for (std::size_t n = 0; n < p.batchSize; ++n)
      for (std::size_t g = 0; g < G; ++g)
        for (std::size_t co = 0; co < Co; ++co)
          for (std::size_t op = 0; op < outPlane; ++op) {
            for (std::size_t d = D, r = op; d-- > 0;) { o[d] = r % outField[d]; r /= outField[d]; }
            double acc = 0.0;
            for (std::size_t ci = 0; ci < Ci; ++ci)
              for (std::size_t kp = 0; kp < kPlane; ++kp) {
                for (std::size_t d = D, r = kp; d-- > 0;) { k[d] = r % p.kernelShape[d]; r /= p.kernelShape[d]; }
                std::size_t flat = 0;
                bool inside = true;
                for (std::size_t d = 0; d < D && inside; ++d) {
                  long pos = static_cast<long>(o[d] * p.outputTransform.stride[d] + k[d] * p.kernelTransform.dilation[d]) -
                             static_cast<long>(p.inputTransform.paddingLower[d]);
                  inside = pos >= 0 && pos < static_cast<long>(p.inputFieldShape[d]);
                  flat = flat * p.inputFieldShape[d] + static_cast<std::size_t>(inside ? pos : 0);
                }
                if (!inside) continue;  // padding contributes zero
                acc += x[(n * G * Ci + g * Ci + ci) * inPlane + flat] * w[((g * Co + co) * Ci + ci) * kPlane + kp];
              }
            out.set((n * G * Co + g * Co + co) * outPlane + op, acc);
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

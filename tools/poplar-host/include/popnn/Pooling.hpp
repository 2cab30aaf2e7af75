// Host implementation of popnn::pooling::pool (see poplar/HostCore.hpp): input
// [N][C][field...]. AVG divides each window's sum by the number of its elements inside the
// unpadded input (padding is not counted). poolInputGradient (AVG and SUM) spreads each
// pooled gradient over its window likewise. Checks our emitted code only.
#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <popnn/PoolingDef.hpp>

namespace popnn {
namespace pooling {
struct PoolParams {
  PoolingType poolingType;
  std::vector<std::size_t> inputFieldShape, kernelShape;
  std::vector<unsigned> stride;
  std::vector<int> inputTruncationOrPaddingLower, inputTruncationOrPaddingUpper;
  std::size_t numChannels, batchSize;
  poplar::Type dType;
  PoolParams(PoolingType poolingType, std::vector<std::size_t> inputFieldShape, std::vector<std::size_t> kernelShape,
             std::vector<unsigned> stride, std::vector<int> paddingLower, std::vector<int> paddingUpper,
             std::size_t numChannels, std::size_t batchSize, poplar::Type dType)
      : poolingType(poolingType), inputFieldShape(std::move(inputFieldShape)), kernelShape(std::move(kernelShape)),
        stride(std::move(stride)), inputTruncationOrPaddingLower(std::move(paddingLower)),
        inputTruncationOrPaddingUpper(std::move(paddingUpper)), numChannels(numChannels), batchSize(batchSize),
        dType(dType) {}
  std::size_t getOutputSize(std::size_t dim) const;
};

poplar::Tensor pool(poplar::Graph &graph, const PoolParams &params, const poplar::Tensor &in,
                    poplar::program::Sequence &prog, const poplar::DebugContext &debug = {},
                    const poplar::OptionFlags &options = {});
// The input gradient of an AVG or SUM pooling from the pooled output's gradient
// (fwdChansPerGroup is a layout hint, unused here).
poplar::Tensor poolInputGradient(poplar::Graph &graph, const PoolParams &params, const unsigned fwdChansPerGroup,
                                 const poplar::Tensor &pooledGradient, poplar::program::Sequence &prog,
                                 const poplar::DebugContext &debug = {}, const poplar::OptionFlags &options = {});
} // namespace pooling
} // namespace popnn

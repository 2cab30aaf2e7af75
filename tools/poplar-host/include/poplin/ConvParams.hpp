// Host implementation of poplin::ConvParams (see poplar/HostCore.hpp). Checks our emitted code only.
#pragma once
#include <poplar/HostCore.hpp>

namespace poplin {
struct ConvParams {
  struct InputTransform {
    std::vector<unsigned> truncationLower, truncationUpper, dilation, paddingLower, paddingUpper;
    std::vector<bool> flip;
  };
  struct OutputTransform {
    std::vector<unsigned> truncationLower, truncationUpper, stride, paddingLower, paddingUpper;
  };
  poplar::Type inputType, outputType;
  std::size_t batchSize, inputChannelsPerConvGroup, outputChannelsPerConvGroup, numConvGroups;
  std::vector<std::size_t> inputFieldShape, kernelShape;
  InputTransform inputTransform, kernelTransform;
  OutputTransform outputTransform;

  ConvParams(poplar::Type dataType, std::size_t batchSize, std::vector<std::size_t> inputFieldShape,
             std::vector<std::size_t> kernelShape, std::size_t inputChannelsPerConvGroup,
             std::size_t outputChannelsPerConvGroup, std::size_t numConvGroups);
  std::size_t getNumFieldDims() const { return inputFieldShape.size(); }
  std::size_t getOutputSize(unsigned dim) const;
};
} // namespace poplin

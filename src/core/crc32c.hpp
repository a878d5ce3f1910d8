// CRC-32C (Castagnoli), the checksum of TensorBoard's record files (TFRecord). A checksum against
// torn or damaged records, not cryptography.
#pragma once
#include <cstdint>
#include <string_view>

namespace dlready {

[[nodiscard]] uint32_t crc32c(std::string_view bytes);
// The record format stores the CRC rotated and offset ("masked") so a CRC of CRCs stays strong.
[[nodiscard]] uint32_t masked_crc32c(std::string_view bytes);

}  // namespace dlready

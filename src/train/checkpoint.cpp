#include "train/checkpoint.hpp"

#include <sodium.h>

#include <cstring>
#include <fstream>

#include "core/json_text.hpp"
#include "core/little_endian.hpp"
#include "secure/sealed_file.hpp"

namespace dlready {
namespace {

constexpr char kMagic[8] = {'D', 'L', 'R', 'C', 'K', 'P', 'T', '1'};
constexpr size_t kSum = crypto_generichash_BYTES;  // 32
constexpr uint64_t kMaxHeader = 64u << 20;

std::string checksum(const std::string& bytes, size_t len) {
  unsigned char out[kSum];
  crypto_generichash(out, kSum, reinterpret_cast<const unsigned char*>(bytes.data()), len, nullptr, 0);
  return std::string(reinterpret_cast<char*>(out), kSum);
}

}  // namespace

Status save_checkpoint(const std::string& path, const Checkpoint& ck, SealingKey* key) {
  nlohmann::json header = {{"format", "dlready.checkpoint/1"}, {"meta", ck.meta}, {"tensors", nlohmann::json::array()}};
  std::string payload;
  for (const auto& [name, t] : ck.tensors) {
    auto c = t.detach().to(torch::kCPU, torch::kFloat).contiguous();
    size_t nbytes = static_cast<size_t>(c.numel()) * sizeof(float);
    header["tensors"].push_back({{"name", name}, {"shape", c.sizes().vec()}, {"offset", payload.size()}, {"bytes", nbytes}});
    payload.append(static_cast<const char*>(c.data_ptr()), nbytes);
  }
  std::string h = json_text(header);
  std::string out(kMagic, sizeof kMagic);
  put_little_endian(out, static_cast<uint64_t>(h.size()));
  out += h;
  out += payload;
  out += checksum(out, out.size());
  return write_protected_file(path, out, key);
}

CheckpointLoad parse_checkpoint(const std::string& b, const std::string& name) {
  auto fail = [&](const std::string& what) { return CheckpointLoad{std::nullopt, name + ": " + what}; };
  if (b.size() < sizeof kMagic + 8 + kSum) return fail("truncated (" + std::to_string(b.size()) + " bytes)");
  if (std::memcmp(b.data(), kMagic, sizeof kMagic) != 0) return fail("not a dlready checkpoint (bad magic)");
  if (checksum(b, b.size() - kSum) != b.substr(b.size() - kSum))
    return fail("checksum mismatch: the file is torn or was altered; refusing it");
  uint64_t hl;
  std::memcpy(&hl, b.data() + sizeof kMagic, sizeof hl);
  size_t body = sizeof kMagic + sizeof hl;
  if (hl > kMaxHeader || body + hl > b.size() - kSum) return fail("header length out of range");
  auto header = parse_json_bounded(std::string_view(b).substr(body, hl));
  if (header.is_discarded() || !header.is_object() || header.value("format", "") != "dlready.checkpoint/1" ||
      !header.contains("tensors") || !header["tensors"].is_array() || !header.contains("meta"))
    return fail("malformed header");
  size_t payload_start = body + hl, payload_size = b.size() - kSum - payload_start;
  Checkpoint ck;
  ck.meta = header["meta"];
  for (const auto& e : header["tensors"]) {
    if (!e.is_object() || !e.contains("name") || !e["name"].is_string() || !e.contains("shape") ||
        !e["shape"].is_array() || !e.contains("offset") || !e["offset"].is_number_unsigned() || !e.contains("bytes") ||
        !e["bytes"].is_number_unsigned())
      return fail("malformed tensor entry");
    const std::string tname = e["name"].get<std::string>();
    for (const auto& [seen, t] : ck.tensors)
      if (seen == tname) return fail("tensor " + tname + " appears twice");
    std::vector<int64_t> shape;
    uint64_t numel = 1;
    if (e["shape"].size() > 8) return fail("bad shape of " + tname);
    for (const auto& d : e["shape"]) {
      // Each extent on its own fits the file too: [0, 2^62, 2^62] has no elements but no tensor either.
      if (!d.is_number_integer() || d.get<int64_t>() < 0 || static_cast<uint64_t>(d.get<int64_t>()) > payload_size)
        return fail("bad shape of " + tname);
      shape.push_back(d.get<int64_t>());
      numel *= static_cast<uint64_t>(shape.back());
      if (numel > payload_size) return fail("tensor " + e["name"].get<std::string>() + " larger than the file");
    }
    uint64_t off = e["offset"], nbytes = e["bytes"];
    if (nbytes != numel * sizeof(float) || off > payload_size || nbytes > payload_size - off)
      return fail("tensor " + e["name"].get<std::string>() + " out of bounds");
    auto t = torch::empty(shape, torch::kFloat);
    std::memcpy(t.data_ptr(), b.data() + payload_start + off, nbytes);
    if (!torch::isfinite(t).all().item<bool>()) return fail("tensor " + tname + " holds NaN or infinite values");
    ck.tensors.emplace_back(tname, t);
  }
  return {std::move(ck), ""};
}

CheckpointLoad load_checkpoint(const std::string& path, SealingKey* key) {
  constexpr uint64_t kMaxCheckpointBytes = uint64_t{1} << 30;  // SimpleNet's is 2.4 MB, the CNN's 3 MB
  auto file = read_protected_file(path, key, kMaxCheckpointBytes, "a checkpoint");
  if (!file.bytes) return {std::nullopt, file.error};
  return parse_checkpoint(*file.bytes, path);
}

}  // namespace dlready

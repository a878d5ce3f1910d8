#include "formats/checkpoint_format.hpp"

#include <cmath>
#include <cstring>
#include <set>

#include "core/json_text.hpp"
#include "core/little_endian.hpp"
#include "core/status.hpp"
#include "secure/content_hash.hpp"

namespace dlready {
namespace {

constexpr char kMagic[8] = {'D', 'L', 'R', 'C', 'K', 'P', 'T', '1'};
constexpr size_t kSum = kContentHashBytes;  // 32
constexpr uint64_t kMaxHeader = 64u << 20;
constexpr size_t kMaxDims = 8;

bool all_finite(const std::string& bytes) {
  for (size_t i = 0; i + sizeof(float) <= bytes.size(); i += sizeof(float)) {
    float v;
    std::memcpy(&v, bytes.data() + i, sizeof v);
    if (!std::isfinite(v)) return false;
  }
  return true;
}

// One tensor entry of the header, checked against the payload; the error names the tensor.
Status read_entry(const nlohmann::json& e, std::string_view payload, RawTensor& t) {
  if (!e.is_object() || !e.contains("name") || !e["name"].is_string() || !e.contains("shape") ||
      !e["shape"].is_array() || !e.contains("offset") || !e["offset"].is_number_unsigned() || !e.contains("bytes") ||
      !e["bytes"].is_number_unsigned())
    return Status::failure("malformed tensor entry");
  t.name = e["name"].get<std::string>();
  t.dtype = "F32";
  uint64_t numel = 1;
  if (e["shape"].size() > kMaxDims) return Status::failure("bad shape of " + t.name);
  for (const auto& d : e["shape"]) {
    // Each extent on its own fits the file too: [0, 2^62, 2^62] has no elements but no tensor either.
    if (!d.is_number_integer() || d.get<int64_t>() < 0 || static_cast<uint64_t>(d.get<int64_t>()) > payload.size())
      return Status::failure("bad shape of " + t.name);
    t.shape.push_back(d.get<int64_t>());
    numel *= static_cast<uint64_t>(t.shape.back());
    if (numel > payload.size())
      return Status::failure("tensor " + t.name + " larger than the file");
  }
  uint64_t off = e["offset"], nbytes = e["bytes"];
  if (nbytes != numel * sizeof(float) || off > payload.size() || nbytes > payload.size() - off)
    return Status::failure("tensor " + t.name + " out of bounds");
  t.bytes = std::string(payload.substr(off, nbytes));
  if (!all_finite(t.bytes))
    return Status::failure("tensor " + t.name + " holds NaN or infinite values");
  return {};
}

}  // namespace

std::string serialize_checkpoint(const nlohmann::json& meta, const std::vector<RawTensor>& tensors) {
  nlohmann::json header = {{"format", "dlready.checkpoint/1"}, {"meta", meta}, {"tensors", nlohmann::json::array()}};
  std::string payload;
  for (const auto& t : tensors) {
    header["tensors"].push_back({{"name", t.name}, {"shape", t.shape}, {"offset", payload.size()}, {"bytes", t.bytes.size()}});
    payload += t.bytes;
  }
  std::string h = json_text(header);
  std::string out(kMagic, sizeof kMagic);
  put_little_endian(out, static_cast<uint64_t>(h.size()));
  out += h;
  out += payload;
  out += content_hash(out);
  return out;
}

CheckpointContent parse_checkpoint_bytes(const std::string& b, const std::string& name) {
  CheckpointContent ck;
  auto fail = [&](const std::string& what) {
    CheckpointContent failed;
    failed.error = name + ": " + what;
    return failed;
  };
  if (b.size() < sizeof kMagic + 8 + kSum) return fail("truncated (" + std::to_string(b.size()) + " bytes)");
  if (std::memcmp(b.data(), kMagic, sizeof kMagic) != 0) return fail("not a dlready checkpoint (bad magic)");
  if (content_hash(std::string_view(b).substr(0, b.size() - kSum)) != b.substr(b.size() - kSum))
    return fail("checksum mismatch: the file is torn or was altered; refusing it");
  uint64_t hl = read_little_endian<uint64_t>(b.data() + sizeof kMagic);
  size_t body = sizeof kMagic + sizeof hl;
  if (hl > kMaxHeader || body + hl > b.size() - kSum) return fail("header length out of range");
  auto header = parse_json_bounded(std::string_view(b).substr(body, hl));
  if (header.is_discarded() || !header.is_object() || header.value("format", "") != "dlready.checkpoint/1" ||
      !header.contains("tensors") || !header["tensors"].is_array() || !header.contains("meta"))
    return fail("malformed header");
  std::string_view payload = std::string_view(b).substr(body + hl, b.size() - kSum - (body + hl));
  ck.meta = header["meta"];
  std::set<std::string> names;
  for (const auto& e : header["tensors"]) {
    RawTensor t;
    if (Status entry = read_entry(e, payload, t); !entry.ok()) return fail(entry.error());
    if (!names.insert(t.name).second) return fail("tensor " + t.name + " appears twice");
    ck.tensors.push_back(std::move(t));
  }
  return ck;
}

}  // namespace dlready
